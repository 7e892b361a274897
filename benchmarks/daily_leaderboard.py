"""A daily leaderboard read by everyone at once: 100,000 finished dailies on one day.

Run: ``python -m benchmarks.daily_leaderboard [--players 100000] [--requests 1000]
[--postgres URL]`` from the repository root. It fills an SQLite database (and, with
``--postgres``, a temporary database made on that PostgreSQL server and dropped after) with
``--players`` players who each finished the day's PEACEFUL daily (scores spread like real
ones, with many ties), then times ``GET /api/daily/{date}/peaceful/leaderboard`` through the
app (Starlette's test client, no network) as random players, each with their own rank and
percentile, and the store's ``daily_leaderboard`` alone. It prints p50, p99 and mean per
backend side by side, and the query plan of each query the leaderboard runs (SQLite's
EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN ANALYZE). Target: p99 ≤ 50 ms. Asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event, insert, text

from magdagdon.engine import Difficulty
from magdagdon.settings import Settings
from magdagdon.store import Database, Store
from magdagdon.store.models import daily_results, daily_scores, games, players, sessions
from magdagdon.store.players import hash_token
from magdagdon.web.app import create_app
from magdagdon.web.deps import COOKIE, TEST_DATE_HEADER
from tests.utils.pg import temporary_database

DAY = date(2026, 12, 1)
CHUNK = 5000


@contextmanager
def _sqlite() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{Path(tmp) / 'bench.db'}"


def fill(url: str, count: int, rng: random.Random) -> list[str]:
    """``count`` players who finished the day's PEACEFUL daily; their cookie tokens."""
    Database(url).migrate()
    db = Database(url, timeout=600)
    start = datetime(2026, 12, 1, tzinfo=UTC)
    tokens = [f"bench-{n}" for n in range(count)]
    counts: Counter[int] = Counter()
    with db.transaction(write=True) as c:
        for first in range(0, count, CHUNK):
            ids = range(first + 1, min(count, first + CHUNK) + 1)
            c.execute(
                insert(players),
                [
                    {"id": i, "name": f"Player {i}", "created_at": start, "account_since": start}
                    for i in ids
                ],
            )
            c.execute(
                insert(sessions),
                [
                    {
                        "id": f"bench-{i}",
                        "token_hash": hash_token(tokens[i - 1]),
                        "player_id": i,
                        "method": "visit",
                        "label": "",
                        "created_at": start,
                        "last_used_at": start,
                    }
                    for i in ids
                ],
            )
            rows: list[dict[str, Any]] = []
            for i in ids:
                finished = start + timedelta(seconds=rng.randrange(86_400))
                rows.append(
                    {
                        "i": i,
                        "score": max(-60, round(rng.gauss(330, 90))),
                        "finished_at": finished,
                        "turns": rng.randrange(10, 17),
                        "powers": rng.randrange(0, 3),
                    }
                )
            c.execute(
                insert(games),
                [
                    {
                        "id": f"{r['i']:024x}",
                        "player_id": r["i"],
                        "difficulty": "peaceful",
                        "seed": "00",
                        "chosen_seed": False,
                        "state": None,
                        "action_count": 0,
                        "version": 40,
                        "status": "over",
                        "phase": "over",
                        "score": r["score"],
                        "turns": r["turns"],
                        "powers_used": r["powers"],
                        "hints_used": 0,
                        "created_at": start,
                        "updated_at": r["finished_at"],
                        "finished_at": r["finished_at"],
                        "daily": DAY.isoformat(),
                    }
                    for r in rows
                ],
            )
            counts.update(r["score"] for r in rows)
            c.execute(
                insert(daily_results),
                [
                    {
                        "game_id": f"{r['i']:024x}",
                        "player_id": r["i"],
                        "day": DAY.isoformat(),
                        "difficulty": "peaceful",
                        "score": r["score"],
                        "turns": r["turns"],
                        "powers_used": r["powers"],
                        "hints_used": 0,
                        "finished_at": r["finished_at"],
                        "ranked": True,
                    }
                    for r in rows
                ],
            )
        c.execute(
            insert(daily_scores),
            [
                {
                    "day": DAY.isoformat(),
                    "difficulty": "peaceful",
                    "score": k,
                    "ranked": True,
                    "players": v,
                }
                for k, v in counts.items()
            ],
        )
    if not db.is_sqlite:  # as autovacuum leaves a table that has been written to
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
    else:
        with db.transaction(write=True) as c:
            c.execute(text("ANALYZE"))
    db.dispose()
    return tokens


def percentiles(times: list[float]) -> dict[str, float]:
    """p50, p99 and mean of milliseconds."""
    ordered = sorted(times)
    return {
        "p50": ordered[len(ordered) // 2],
        "p99": ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))],
        "mean": statistics.fmean(ordered),
    }


def plans(store: Store, player_id: int) -> list[str]:
    """Each statement one leaderboard runs, with the database's plan for it."""
    captured: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            captured.append((statement, params))

    engine = store.db.engine
    event.listen(engine, "before_cursor_execute", capture)
    try:
        store.daily_leaderboard(DAY, Difficulty.PEACEFUL, player_id)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    out = []
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        for statement, params in captured:
            sqlite = store.db.is_sqlite
            explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN (ANALYZE, COSTS OFF) "
            cursor.execute(explain + statement, params)
            rows = cursor.fetchall()
            plan = [" ".join(str(v) for v in row[-1:]) for row in rows]
            out.append(" ".join(statement.split()) + "\n    " + "\n    ".join(plan))
    finally:
        raw.close()
    return out


def measure(url: str, name: str, count: int, requests: int, seed: int) -> dict[str, Any]:
    """Fill, then time the leaderboard through the app and through the store."""
    rng = random.Random(seed)
    started = time.perf_counter()
    tokens = fill(url, count, rng)
    filled = time.perf_counter() - started
    settings = Settings(database_url=url, allow_test_seeds=True, rate_limits=False, daily_par=False)
    app = create_app(settings)
    http: list[float] = []
    store_times: list[float] = []
    path = f"/api/daily/{DAY.isoformat()}/peaceful/leaderboard"
    with TestClient(app, headers={TEST_DATE_HEADER: DAY.isoformat()}) as client:
        store: Store = app.state.store
        for n in range(requests + 20):  # the first 20 warm up
            who = rng.randrange(count)
            client.cookies.set(COOKIE, tokens[who])
            t0 = time.perf_counter()
            r = client.get(path)
            t1 = time.perf_counter()
            assert r.status_code == 200 and r.json()["me"] is not None, r.text
            store.daily_leaderboard(DAY, Difficulty.PEACEFUL, who + 1)
            t2 = time.perf_counter()
            if n >= 20:
                http.append((t1 - t0) * 1000)
                store_times.append((t2 - t1) * 1000)
        board = r.json()
        shown = plans(store, rng.randrange(count) + 1)
    return {
        "name": name,
        "filled_s": filled,
        "http": percentiles(http),
        "store": percentiles(store_times),
        "players": board["players"],
        "plans": shown,
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--postgres", help="a PostgreSQL server URL (a database is made on it)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = []
    with _sqlite() as url:
        results.append(measure(url, "SQLite", args.players, args.requests, args.seed))
    if args.postgres:
        with temporary_database(args.postgres) as url:
            results.append(measure(url, "PostgreSQL", args.players, args.requests, args.seed))
    print(
        f"daily leaderboard with the player's own rank: {args.players:,} finished dailies "
        f"on one day, {args.requests} requests by random players"
    )
    print(
        f"{'database':<12}{'fill s':>8}  {'HTTP p50':>9}{'p99':>8}{'mean':>8}  "
        f"{'store p50':>10}{'p99':>8}{'mean':>8}  (ms)"
    )
    for res in results:
        h, s = res["http"], res["store"]
        print(
            f"{res['name']:<12}{res['filled_s']:>8.1f}  {h['p50']:>9.2f}{h['p99']:>8.2f}"
            f"{h['mean']:>8.2f}  {s['p50']:>10.2f}{s['p99']:>8.2f}{s['mean']:>8.2f}"
        )
    for res in results:
        print(f"\n{res['name']} query plans:")
        for plan in res["plans"]:
            print("  " + plan)


if __name__ == "__main__":
    main()
