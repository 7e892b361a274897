"""The cost of an action against the length of the game's history.

Run: ``python -m benchmarks.log_length [--actions 2000] [--repeats 400] [--database-url URL]``
from the repository root (PostgreSQL: ``--database-url postgresql+psycopg://...``; a
temporary database is made on that server and dropped). It stores two games: one with
``--actions`` logged actions (staging a die and taking it back, written through the store
without the server's per-turn bound, as a game stored before the bound could have), and a
new one. The server's per-turn bound is lifted for the run. Then, alternating between
them, it times ``POST /api/games/{id}/actions`` through
the app (Starlette's test client, no network) and the store's ``act`` alone, with this
process's cache of games (warm) and without it (cold: the game is restored from the
database, as another worker or a restarted server does). Prints p50 and mean per case and
the ratio long/new; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from magdagdon.engine import Game
from magdagdon.settings import Settings
from magdagdon.store import Store
from magdagdon.web import limits
from magdagdon.web.app import create_app
from tests.utils.pg import temporary_database


@contextmanager
def _database(url: str | None) -> Iterator[str]:
    if url is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
    else:
        with temporary_database(url) as made:
            yield made


def _toggle(game: Game) -> None:
    """Stage die 0 on its first legal square, or take it back."""
    if game.staged:
        game.unstage_all()
    else:
        game.stage(0, min(game.legal_cells(0)))


def _timed(work: Callable[[], Any]) -> float:
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) * 1000


def _action(view: dict[str, Any]) -> dict[str, Any]:
    if view["staged"]:
        return {"type": "unstage_all"}
    return {"type": "stage", "die": 0, "cell": view["dice"][0]["legal_cells"][0]}


def run(url: str | None, actions: int, repeats: int) -> dict[str, list[float]]:
    """Build the two games on a fresh database; the timings (ms) of each case."""
    # a history of any length, as one stored before the bound (TURN_ACTIONS is Final)
    setattr(limits, "TURN_ACTIONS", 10**9)  # noqa: B010
    with _database(url) as database_url:
        settings = Settings(database_url=database_url, allow_test_seeds=True, rate_limits=False)
        app = create_app(settings)
        with TestClient(app) as first:
            store: Store = app.state.store
            games: dict[str, tuple[dict[str, str], str, int]] = {}
            for name in ("long", "new"):  # two players, one client (one event loop)
                first.cookies.clear()
                made = first.post("/api/games", json={"difficulty": "peaceful", "seed": 3})
                cookies = dict(first.cookies)
                player = store.player_id(cookies["magdagdon_player"])
                assert player is not None
                games[name] = (cookies, made.json()["id"], player)
            version = {}
            for name, (_, game_id, player) in games.items():
                count = actions if name == "long" else 1
                v = 0
                for n in range(count):
                    v = store.act(game_id, player, v, Game.roll if n == 0 else _toggle).version
                version[name] = v
            times: dict[str, list[float]] = {}
            for _ in range(repeats):
                for name, (cookies, game_id, player) in games.items():
                    client = first
                    client.cookies = cookies
                    view = client.get(f"/api/games/{game_id}").json()
                    body = {"version": view["version"], "action": _action(view)}
                    url = f"/api/games/{game_id}/actions"
                    times.setdefault(f"HTTP action, {name}", []).append(
                        _timed(partial(client.post, url, json=body))
                    )
                    for cold in (False, True):
                        if cold:
                            store._cache.clear()  # as a fresh process
                        v = client.get(f"/api/games/{game_id}").json()["version"]
                        times.setdefault(
                            f"store.act {'cold' if cold else 'warm'}, {name}", []
                        ).append(_timed(partial(store.act, game_id, player, v, _toggle)))
            print(f"{database_url.split(':')[0]}: the long game has {actions}+ logged actions")
            return times


def report(times: dict[str, list[float]]) -> None:
    """One line per case (p50, mean) with the ratio long/new."""
    print(f"{'case':<28}{'p50 ms':>9}{'mean ms':>9}{'long/new':>10}")
    for case, values in times.items():
        if not case.endswith("long"):
            continue
        base = times[case.replace("long", "new")]
        for name, vals in ((case, values), (case.replace("long", "new"), base)):
            ratio = statistics.median(values) / statistics.median(base)
            print(
                f"{name:<28}{statistics.median(vals):>9.2f}{statistics.fmean(vals):>9.2f}"
                + (f"{ratio:>10.2f}" if name == case else "")
            )


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=400)
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server to use")
    args = parser.parse_args()
    report(run(args.database_url, args.actions, args.repeats))


if __name__ == "__main__":
    main()
