"""Harvested answers do not steer what an account is served, nor its rating (hardening V,
item 2): throwaway players miss puzzles on purpose and keep their answers; a fresh account
then solves the ones it knows and skips the rest. It is served known answers no more than
chance gives, and skipping costs what missing does once the puzzles count as skipped."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from magdagdon.settings import Settings
from magdagdon.store.models import puzzle_served, utcnow
from magdagdon.web.app import create_app

from .test_api_puzzles import _any_plan, missing_plan, ok

THROWAWAY = 10
ASKED = 6
SERVED = 20


@pytest.mark.slow  # (make check leaves it out)
def test_throwaway_players_answers_give_an_account_nothing(settings: Settings) -> None:
    random.seed(20261204)  # the server chooses puzzles with the random module
    app = create_app(settings.model_copy(update={"daily_par": False}))
    known: dict[int, list[object]] = {}
    for _ in range(THROWAWAY):
        with TestClient(app) as throwaway:
            for _ in range(ASKED):
                puzzle = ok(throwaway.get("/api/puzzles/next?difficulty=peaceful"))
                try:
                    plan = missing_plan(puzzle)
                except AssertionError:  # not a placement: any legal plan
                    plan = _any_plan(puzzle)
                r = throwaway.post(f"/api/puzzles/{puzzle['id']}/attempts", json={"actions": plan})
                known[puzzle["id"]] = ok(r)["best"]
    with TestClient(app) as account:
        assert account.post("/api/account/transfer-codes").status_code == 201
        served = []
        for _ in range(SERVED):
            puzzle = ok(account.get("/api/puzzles/next?difficulty=peaceful"))
            served.append(puzzle["id"])
            if puzzle["id"] in known:  # the answer it holds; the others it skips
                r = account.post(
                    f"/api/puzzles/{puzzle['id']}/attempts", json={"actions": known[puzzle["id"]]}
                )
                assert ok(r)["solved"]
            assert puzzle["rating"] == 1500.0  # throwaway players' misses moved no puzzle
        hits = sum(1 for p in served if p in known)
        # chance: 60 known of the 789 PEACEFUL puzzles is 7.6%, 1.5 of 20 (P(≥ 7) < 0.1%)
        assert hits <= 6, (hits, len(known))
        solved_only = ok(account.get("/api/players/me/puzzles"))["rating"]
        assert solved_only["attempts"] == hits
        # the skipped ones are settled as misses once SKIPPED_AFTER has passed
        with app.state.store.db.engine.begin() as c:  # an hour later
            c.execute(update(puzzle_served).values(served_at=utcnow() - timedelta(hours=1)))
        ok(account.get("/api/puzzles/next?difficulty=peaceful"))
        settled = ok(account.get("/api/players/me/puzzles"))["rating"]
        assert settled["attempts"] == SERVED  # every one given is a solve or a miss
        assert settled["rating"] < 1500.0  # mostly skipped: mostly missed
