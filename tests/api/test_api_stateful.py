"""A Hypothesis state machine over the API: several players and games, legal and illegal
actions in any order. A rejected action changes nothing, and every view agrees with replaying
the game's stored seed and log through the engine."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, rule
from sqlalchemy import create_engine, text

from magdagdon.engine import Game
from magdagdon.settings import Settings
from magdagdon.web.app import create_app

ACTIONS = st.one_of(
    st.just({"type": "roll"}),
    st.builds(
        lambda d, c: {"type": "stage", "die": d, "cell": c}, st.integers(-1, 4), st.integers(-1, 16)
    ),
    st.builds(lambda d: {"type": "unstage", "die": d}, st.integers(0, 3)),
    st.just({"type": "unstage_all"}),
    st.just({"type": "confirm"}),
    st.builds(
        lambda d, x: {"type": "adjust", "die": d, "delta": x},
        st.integers(0, 3),
        st.sampled_from([-1, 1, 2]),
    ),
    st.builds(lambda ds: {"type": "reroll", "dice": ds}, st.lists(st.integers(0, 3), max_size=4)),
    st.builds(lambda c: {"type": "accept_magdagdon", "cell": c}, st.integers(0, 15)),
    st.fixed_dictionaries({"type": st.sampled_from(["fly", "stage"]), "cell": st.text(max_size=3)}),
)


def legal_guess(view: dict[str, Any], pick: int) -> dict[str, Any]:
    """A plausible action read from the view (so games make progress too)."""
    if view["can_roll"]:
        return {"type": "roll"}
    if view["phase"] == "magdagdon" and view["ruin_choices"]:  # none once abandoned
        return {
            "type": "accept_magdagdon",
            "cell": view["ruin_choices"][pick % len(view["ruin_choices"])],
        }
    if view["can_confirm"] and pick % 3 == 0:
        return {"type": "confirm"}
    moves = [(d["index"], c) for d in view["dice"] if d["cell"] is None for c in d["legal_cells"]]
    if view["dead_end"] or not moves:
        return {"type": "unstage_all"}
    die, cell = moves[pick % len(moves)]
    return {"type": "stage", "die": die, "cell": cell}


class ApiMachine(RuleBasedStateMachine):
    """Players create games and act on them (their own and others')."""

    games = Bundle("games")

    def __init__(self) -> None:
        super().__init__()
        self.views: dict[str, dict[str, Any]] = {}  # last view seen of each game
        self.owner: dict[str, int] = {}

    @initialize()
    def start(self) -> None:
        self.clients = [TestClient(APP) for _ in range(3)]

    @rule(
        target=games,
        player=st.integers(0, 2),
        difficulty=st.sampled_from(["peaceful", "survival", "nightmare"]),
        seed=st.integers(0, 2**40),
    )
    def create(self, player: int, difficulty: str, seed: int) -> str:
        r = self.clients[player].post(
            "/api/games", json={"difficulty": difficulty, "seed": seed, "abandon": True}
        )
        assert r.status_code == 201, r.text
        view = r.json()
        for gid, owner in self.owner.items():  # the player's earlier unfinished game is abandoned
            if owner == player and self.views[gid]["status"] == "active":
                self.views[gid] = self.clients[player].get(f"/api/games/{gid}").json()
        self.views[view["id"]] = view
        self.owner[view["id"]] = player
        self.check(view["id"])
        return str(view["id"])

    @rule(
        game=games,
        player=st.integers(0, 2),
        action=ACTIONS,
        stale=st.booleans(),
        pick=st.integers(0, 100),
        guess=st.booleans(),
    )
    def act(
        self, game: str, player: int, action: dict[str, Any], stale: bool, pick: int, guess: bool
    ) -> None:
        before = self.views[game]
        if guess:
            action = legal_guess(before, pick)
        version = before["version"] - 1 if stale else before["version"]
        client = self.clients[player]
        r = client.post(f"/api/games/{game}/actions", json={"version": version, "action": action})
        owner = self.owner[game] == player
        if not owner:  # someone else's game: not found (or a body that is not an action)
            assert r.status_code == 404 or r.json()["error"]["code"] == "invalid_request", r.text
        elif r.status_code == 200:
            assert not stale and r.json()["version"] == before["version"] + 1
            self.views[game] = r.json()
            self.check(game)
            return
        else:
            assert r.status_code in (409, 422), r.text
            assert stale or r.status_code == 422
        after = self.clients[self.owner[game]].get(f"/api/games/{game}").json()
        assert after["version"] == before["version"]  # a rejected action changes nothing
        assert after["board"] == before["board"] and after["dice"] == before["dice"]

    def check(self, gid: str) -> None:
        """The game's view agrees with replaying its stored seed and log through the engine."""
        with ENGINE.connect() as conn:
            difficulty, seed, state, count, version, status = conn.execute(
                text(
                    "SELECT difficulty, seed, state, action_count, version, status "
                    "FROM games WHERE id = :id"
                ),
                {"id": gid},
            ).one()
            rows = conn.execute(
                text("SELECT action FROM game_actions WHERE game_id = :id ORDER BY seq"),
                {"id": gid},
            ).scalars()
            log = [json.loads(a) if isinstance(a, str) else a for a in rows]
        state = json.loads(state) if isinstance(state, str) else state
        assert count == len(log)
        game = Game.replay(difficulty, bytes.fromhex(seed), log)
        assert state == game.snapshot()  # the stored snapshot is the replayed game's
        view = self.clients[self.owner[gid]].get(f"/api/games/{gid}").json()
        assert view["version"] == version and view["status"] == status
        assert view["board"] == str(game.board) and view["phase"] == game.phase.value
        assert [d["value"] for d in view["dice"]] == [d.value for d in game.dice]
        assert view["score"]["total"] == game.score(include_staged=True).total
        assert len(log) == version

    def teardown(self) -> None:
        for client in getattr(self, "clients", []):
            client.close()


APP: Any = None
ENGINE: Any = None


@pytest.fixture
def machine_app(tmp_path: Any) -> Any:
    global APP, ENGINE
    url = f"sqlite:///{tmp_path / 'stateful.db'}"
    APP = create_app(
        Settings(database_url=url, allow_test_seeds=True, test_seeds_scored=True, rate_limits=False)
    )
    APP.state.store.db.migrate()
    ENGINE = create_engine(url)
    yield APP
    ENGINE.dispose()


@pytest.mark.slow  # (make check leaves it out)
def test_api_state_machine(machine_app: Any) -> None:
    ApiMachine.TestCase.settings = settings(
        max_examples=30,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    ApiMachine.TestCase().runTest()
