"""Private leagues over the API: friends' daily scores week by week (store/leagues.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from magdagdon.settings import Settings
from magdagdon.store import leagues as league_rules
from magdagdon.web.app import create_app
from magdagdon.web.deps import TEST_DATE_HEADER

from ..utils.api import play_to_end

MONDAY, TUESDAY = "2026-12-07", "2026-12-08"  # ISO week 2026-W50
Client = TestClient


@pytest.fixture
def app(settings: Settings) -> Any:
    return create_app(settings.model_copy(update={"daily_par": False}))


@pytest.fixture
def players(app: Any) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    """Three players, each an account with a name, on :data:`MONDAY`."""
    day = {TEST_DATE_HEADER: MONDAY}
    with (
        TestClient(app, headers=day) as ann,
        TestClient(app, headers=day) as ben,
        TestClient(app, headers=day) as cid,
    ):
        for client, name in ((ann, "Ann"), (ben, "Ben"), (cid, "Cid")):
            client.put("/api/players/me", json={"name": name})
            account(client)
        yield ann, ben, cid


def account(client: Client) -> None:
    """Make the client's player an account (a transfer code does)."""
    assert client.post("/api/account/transfer-codes").status_code == 201
    assert client.get("/api/players/me").json()["account"] is True


def create(client: Client, name: str = "Friday Club", difficulty: str = "peaceful") -> Any:
    r = client.post("/api/leagues", json={"name": name, "difficulty": difficulty})
    assert r.status_code == 201, r.json()
    return r.json()


def join(client: Client, invite: str) -> Any:
    r = client.post("/api/leagues/join", json={"invite": invite})
    assert r.status_code == 200, r.json()
    return r.json()


def daily(client: Client, day: str, difficulty: str = "peaceful") -> int:
    """Play the daily of ``day`` to its end; its score."""
    r = client.post(f"/api/daily/{difficulty}", headers={TEST_DATE_HEADER: day})
    assert r.status_code == 201, r.json()
    view = r.json()
    view = play_to_end(_On(client, day), view)
    return int(view["final_score"]["total"])


class _On:
    """A client whose requests all say ``day`` is today."""

    def __init__(self, client: Client, day: str) -> None:
        self.client, self.day = client, day

    def post(self, url: str, **kwargs: Any) -> Any:
        return self.client.post(url, headers={TEST_DATE_HEADER: self.day}, **kwargs)

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.client.get(url, headers={TEST_DATE_HEADER: self.day}, **kwargs)


def table(client: Client, league: dict[str, Any], day: str, week: str | None = None) -> Any:
    params = {"week": week} if week else {}
    r = client.get(f"/api/leagues/{league['id']}", params=params, headers={TEST_DATE_HEADER: day})
    assert r.status_code == 200, r.json()
    return r.json()


def test_three_players_over_two_days(players: tuple[Client, Client, Client]) -> None:
    ann, ben, cid = players
    league = create(ann)
    assert league["members"] == 1 and league["creator"] is True
    assert league["url"].endswith(f"/#league={league['invite']}")
    shown = ben.get(f"/api/leagues/invites/{league['invite']}").json()
    assert shown == {"name": "Friday Club", "difficulty": "peaceful", "members": 1, "by": "Ann"}
    join(ben, league["invite"])
    assert join(cid, league["invite"])["members"] == 3
    assert join(cid, league["invite"])["members"] == 3  # joining again changes nothing
    monday = {name: daily(c, MONDAY) for name, c in (("Ann", ann), ("Ben", ben), ("Cid", cid))}
    tuesday = {name: daily(c, TUESDAY) for name, c in (("Ann", ann), ("Ben", ben))}
    daily(cid, TUESDAY, "survival")  # another difficulty's daily: not this league's
    week = table(cid, league, TUESDAY)
    assert week["week"] == "2026-W50" and week["days"][0] == MONDAY
    assert week["next_week"] is None and week["previous_week"] == "2026-W49"
    lines = {m["name"]: m for m in week["members"]}
    for name in ("Ann", "Ben"):
        assert lines[name]["scores"][:2] == [monday[name], tuesday[name]]
        assert lines[name]["total"] == monday[name] + tuesday[name]
        assert lines[name]["streak"] == 2 and lines[name]["days"] == 2
    # (a streak goes on until a day is missed: Cid has until midnight to play today's)
    assert lines["Cid"]["scores"][:2] == [monday["Cid"], None] and lines["Cid"]["streak"] == 1
    assert lines["Cid"]["mine"] is True and lines["Ann"]["creator"] is True
    ranks = [m["rank"] for m in week["members"]]
    assert ranks == sorted(ranks)
    totals = [m["total"] for m in week["members"]]
    assert totals == sorted(totals, reverse=True)
    # next week: last week's winner, and the table of any past week
    later = table(ann, league, "2026-12-14")
    best = max(lines.values(), key=lambda m: m["total"])["total"]
    # (the dailies' dice are this database's own: a week whose best is no points has no winner)
    winners = [n for n, m in lines.items() if m["total"] == best] if best > 0 else []
    assert later["last_week_winners"] == winners
    assert all(m["total"] == 0 for m in later["members"])
    again = table(ann, league, "2026-12-14", week="2026-W50")
    assert {m["name"]: m["total"] for m in again["members"]} == {
        n: m["total"] for n, m in lines.items()
    }
    assert again["next_week"] == "2026-W51"


def test_the_best_five_days_count() -> None:
    assert league_rules.standing([10, None, 30, 20, 50, 40, 60]) == 60 + 50 + 40 + 30 + 20
    assert league_rules.standing([None] * 7) == 0
    assert league_rules.standing([-5, None, None, None, None, None, None]) == -5
    assert league_rules.week_days("2026-W01")[0].isoformat() == "2025-12-29"
    for wrong in ("2026-W54", "2026-W00", "2026-w05"):
        with pytest.raises(ValueError):
            league_rules.week_days(wrong)


def test_only_members_see_the_table_and_weeks_are_checked(
    players: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = players
    league = create(ann)
    refused = ben.get(f"/api/leagues/{league['id']}")
    fake = ben.get("/api/leagues/NOSUCHLEAGUE")
    # a league not the player's is answered as one that does not exist
    assert refused.status_code == fake.status_code == 404
    assert refused.json()["error"] == fake.json()["error"]
    assert refused.json()["error"]["code"] == "league_not_found"
    assert ann.get("/api/leagues/NOSUCHLEAGUE").status_code == 404
    future = ann.get(f"/api/leagues/{league['id']}", params={"week": "2027-W10"})
    assert future.status_code == 404 and future.json()["error"]["code"] == "week_not_found"
    assert ann.get(f"/api/leagues/{league['id']}", params={"week": "2026-W99"}).status_code == 404
    assert ann.get(f"/api/leagues/{league['id']}", params={"week": "soon"}).status_code == 422
    for extreme in ("9999-W52", "0001-W01", "9999-W01"):  # a week whose neighbour is no date
        r = ann.get(
            f"/api/leagues/{league['id']}",
            params={"week": extreme},
            headers={TEST_DATE_HEADER: "9999-12-31"},
        )
        assert r.status_code == 404 and r.json()["error"]["code"] == "week_not_found", extreme


def test_leagues_not_found_are_counted_like_guessed_codes(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"rate_limits": True, "address_links_per_hour": 8, "daily_par": False}
    )
    app = create_app(limited)
    with TestClient(app) as ann, TestClient(app) as ben:
        account(ann)
        league = create(ann)
        for _ in range(10):  # the member's own table is never counted
            assert ann.get(f"/api/leagues/{league['id']}").status_code == 200
        answers = [ben.get(f"/api/leagues/NOSUCHLEAGU{i}").status_code for i in range(3)]
        answers.append(ben.get(f"/api/leagues/{league['id']}").status_code)
        assert answers == [404, 404, 404, 404]  # the burst (4), the real one alike
        late = ben.get(f"/api/leagues/{league['id']}")
        assert late.status_code == 429 and int(late.headers["Retry-After"]) >= 1


def test_a_player_who_has_not_saved_their_games_is_asked_to(app: Any) -> None:
    with TestClient(app) as ann, TestClient(app) as stranger:
        account(ann)
        league = create(ann)
        r = stranger.post("/api/leagues/join", json={"invite": league["invite"]})
        assert r.status_code == 403 and r.json()["error"]["code"] == "account_needed"
        r = stranger.post("/api/leagues", json={"name": "Mine", "difficulty": "peaceful"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "account_needed"


def test_a_league_name_follows_the_rules_of_names(players: tuple[Client, Client, Client]) -> None:
    ann, _, _ = players
    for wrong in ("", " ", "a\u200bb", "x" * 25, "<b>hi</b>"):
        r = ann.post("/api/leagues", json={"name": wrong, "difficulty": "peaceful"})
        assert r.status_code == 422, wrong
    assert ann.post("/api/leagues", json={"name": "Ok", "difficulty": "hard"}).status_code == 422
    assert create(ann, "Ｆｕｌｌ width")["name"] == "Full width"  # NFKC, as players' names


def test_an_invite_that_cannot_be_a_code_is_refused_as_such(
    players: tuple[Client, Client, Client],
) -> None:
    """A NUL in a typed invite reached PostgreSQL, which cannot hold one: a 500 (found by the
    schema's property test)."""
    ann, _, _ = players
    for wrong in ("\x00", "AB\x00CD", "ÄÖ", "<b>"):
        r = ann.post("/api/leagues/join", json={"invite": wrong})
        assert r.status_code == 422, (wrong, r.text)
    r = ann.post("/api/leagues/join", json={"invite": "abcd-efgh jk"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "league_not_found"


def test_the_creator_renews_the_invite_and_removes_members(
    players: tuple[Client, Client, Client],
) -> None:
    ann, ben, cid = players
    league = create(ann)
    join(ben, league["invite"])
    assert ben.post(f"/api/leagues/{league['id']}/invite").status_code == 403
    renewed = ann.post(f"/api/leagues/{league['id']}/invite").json()
    assert renewed["invite"] != league["invite"]
    old = cid.post("/api/leagues/join", json={"invite": league["invite"]})
    assert old.status_code == 404 and old.json()["error"]["code"] == "league_not_found"
    assert cid.get(f"/api/leagues/invites/{league['invite']}").status_code == 404
    join(cid, renewed["invite"])
    members = {m["name"]: m["member"] for m in table(ann, league, MONDAY)["members"]}
    assert ben.delete(f"/api/leagues/{league['id']}/members/{members['Cid']}").status_code == 403
    assert ann.delete(f"/api/leagues/{league['id']}/members/{members['Cid']}").status_code == 204
    assert ann.delete(f"/api/leagues/{league['id']}/members/{members['Cid']}").status_code == 404
    assert (
        cid.get(f"/api/leagues/{league['id']}").status_code == 404
    )  # not theirs now: as no league
    assert [m["name"] for m in table(ben, league, MONDAY)["members"]] == ["Ann", "Ben"]


def test_members_leave_and_the_league_passes_on(players: tuple[Client, Client, Client]) -> None:
    ann, ben, cid = players
    league = create(ann)
    join(ben, league["invite"])
    join(cid, league["invite"])
    ann.put("/api/players/me", json={"name": "Ann L"})
    table = ann.get(f"/api/leagues/{league['id']}").json()
    heir = next(m for m in table["members"] if m["member"] == table["heir"])
    assert heir["name"] == ben.get("/api/players/me").json()["name"]  # said before leaving
    assert table["handed_from"] is None
    assert ann.delete(f"/api/leagues/{league['id']}/members/me").status_code == 204
    assert ann.get("/api/leagues").json() == []
    assert ben.get("/api/leagues").json()[0]["creator"] is True  # joined first after Ann
    # the new creator is told, whose part it was; the others are not
    assert ben.get(f"/api/leagues/{league['id']}").json()["handed_from"] == "Ann L"
    assert cid.get(f"/api/leagues/{league['id']}").json()["handed_from"] is None
    assert ben.delete(f"/api/leagues/{league['id']}/members/me").status_code == 204
    assert cid.delete(f"/api/leagues/{league['id']}/members/me").status_code == 204
    assert cid.delete(f"/api/leagues/{league['id']}/members/me").status_code == 204  # no-op
    assert cid.get(f"/api/leagues/{league['id']}").status_code == 404  # the last left: gone


def test_limits_on_leagues_and_members(
    players: tuple[Client, Client, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, ben, cid = players
    monkeypatch.setattr(league_rules, "MEMBERS_PER_LEAGUE", 2)
    monkeypatch.setattr(league_rules, "LEAGUES_PER_PLAYER", 2)
    league = create(ann)
    join(ben, league["invite"])
    full = cid.post("/api/leagues/join", json={"invite": league["invite"]})
    assert full.status_code == 409 and full.json()["error"]["code"] == "league_full"
    create(ann, "Second")
    third = ann.post("/api/leagues", json={"name": "Third", "difficulty": "peaceful"})
    assert third.status_code == 409 and third.json()["error"]["code"] == "too_many_leagues"


def test_export_and_deletion_include_leagues(
    players: tuple[Client, Client, Client], settings: Settings
) -> None:
    ann, ben, _ = players
    league = create(ann)
    join(ben, league["invite"])
    exported = ann.get("/api/players/me/export").json()["leagues"]
    assert [(x["id"], x["creator"]) for x in exported] == [(league["id"], True)]
    assert ben.get("/api/players/me/export").json()["leagues"][0]["creator"] is False
    assert ann.delete("/api/players/me").status_code == 204
    engine = create_engine(settings.database_url)
    with engine.connect() as c:
        members = c.execute(text("SELECT COUNT(*) FROM league_members")).scalar()
        creators = c.execute(text("SELECT COUNT(*) FROM leagues")).scalar()
    engine.dispose()
    assert members == 1 and creators == 1
    assert ben.get("/api/leagues").json()[0]["creator"] is True  # the league passed to Ben


def test_a_sign_in_takes_the_accounts_leagues_to_the_new_device(
    players: tuple[Client, Client, Client], app: Any
) -> None:
    """A league is the account's: a device that signs in to it (its own anonymous games
    merged in) is in the account's leagues at once, and the league counts the account once."""
    ann, ben, _ = players
    league = create(ann)
    join(ben, league["invite"])
    code = ben.post("/api/account/transfer-codes").json()["code"]
    with TestClient(app, headers={TEST_DATE_HEADER: MONDAY}) as tablet:
        tablet.post("/api/games", json={"difficulty": "peaceful"})  # an anonymous player first
        assert tablet.get("/api/leagues").json() == []
        r = tablet.post("/api/account/sign-in/transfer", json={"code": code})
        assert r.status_code == 200, r.json()
        mine = tablet.get("/api/leagues").json()
        assert [(x["id"], x["members"]) for x in mine] == [(league["id"], 2)]
        assert tablet.get(f"/api/leagues/{league['id']}").status_code == 200
