"""What a player does, as every browser must let them: the tests that test_firefox.py and
test_webkit.py run each in their own browser (their classes inherit these methods and give the
``page`` fixture: a new player's page, whose errors fail the test).

A whole game to GAME OVER through the page's buttons (a Majda Power, a RUIN) and then its
replay, a reload in the middle of a turn, the daily to its end with SHARE (the clipboard's text
read back), SHARE from the daily's list, a puzzle solved by tapping its dice, and a lost
connection that the page says and survives;
and that an error in the page would be seen.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx2

from ..utils.api import ViewPlayer, ends_the_game, play_through
from .pages import (
    Page,
    number,
    open_game,
    perform,
    play_through_api,
    wait_for_par,
    wait_for_version,
)

CATALOG = Path(__file__).parents[2] / "src" / "magdagdon" / "web" / "static" / "i18n" / "en.json"
SQUARES = set("🟩🟨💥⬜")


def words(key: str, **params: Any) -> str:
    """The English catalog's text, its placeholders filled."""
    text: str = json.loads(CATALOG.read_text("utf-8"))[key]
    return text.format(**params)


def check_daily_share(text: str, page: Page, final: Any, par: int) -> None:
    """SHARE's text of a finished PEACEFUL daily: its day, the score and the coach's, the board
    as emoji, the replay's address on this page's origin."""
    lines = text.split("\n")
    assert len(lines) == 7, text
    assert lines[0] == f"MAGDAGDON Daily #{final['daily']['number']} · PEACEFUL"
    assert lines[1] == f"Score {number(final['final_score']['total'])} · Coach {number(par)}"
    assert all(len(row) == 4 and set(row) <= SQUARES for row in lines[2:6]), text
    assert lines[6] == f"{page.base}/replay/{final['id']}"


def open_daily_list(page: Page) -> None:
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    page.wait_for("#sheet [data-intent='daily-play'], #sheet [data-intent='share']")


class Journeys:
    """The journeys; a subclass names the browser and gives the ``page`` fixture."""

    def test_a_whole_game_with_a_power_and_a_ruin_then_its_replay(self, page: Page) -> None:
        """PEACEFUL seed 0 has a MAGDAGDON rescued by a Majda Power and another with a RUIN,
        which ends the game: every action through the page's buttons, then WATCH REPLAY from
        the game-over sheet, stepped by button and by key to the final score."""
        view = open_game(page, "/?seed=0")
        assert view["difficulty"] == "peaceful" and view["version"] == 0
        bot = ViewPlayer(use_power=True)
        kinds = []
        while view["phase"] != "over":
            action = bot.next_action(view)
            kinds.append(action["type"])
            view = perform(page, view, action)
        assert "adjust" in kinds and view["powers_used"] == 1
        assert kinds[-1] == "accept_magdagdon" and "X" in view["board"]
        total = view["final_score"]["total"]
        page.wait_for_text("#sheet .final-score", number(total))

        page.click(f"#sheet a[href='/replay/{view['id']}']")
        page.wait_for("#app[aria-busy='false'] #replay-slider")
        frames = int(page.evaluate("() => document.querySelector('#replay-slider').max")) + 1
        assert frames > 2 * view["turns"]
        assert page.text("#replay-caption") == words("replay_start")
        page.click("[data-replay='next']")  # the first roll
        page.wait_for_text("#replay-position", words("replay_step", n=2, of=frames))
        page.press("ArrowRight")  # the first die placed
        page.wait_for_text("#replay-position", words("replay_step", n=3, of=frames))
        assert page.count(".replay-board .square svg") == 1
        page.press("End")
        page.wait_for_text("#replay-caption", words("replay_end", score=number(total)))
        assert page.text("#replay-score") == number(total)
        page.click("[data-replay='previous']")
        page.wait_for_text("#replay-position", words("replay_step", n=frames - 1, of=frames))

    def test_a_reload_in_the_middle_of_a_turn_shows_the_same_game(self, page: Page) -> None:
        view = open_game(page, "/?seed=2")
        view = perform(page, view, {"type": "roll"})
        bot = ViewPlayer()
        action = bot.next_action(view)
        assert action["type"] == "stage"
        view = perform(page, view, action)
        page.reload()
        page.wait_for("#app[aria-busy='false'] [data-intent='confirm']")
        again = page.api("GET", "/api/games/current")
        assert (again["id"], again["version"]) == (view["id"], view["version"])
        page.wait_for(f"[data-square='{action['cell']}'].staged")
        for die in view["dice"]:
            node = f"[data-die='{die['index']}'][data-value='{die['value']}']"
            page.wait_for(f"{node}.on-board" if die["cell"] is not None else node)
        while view["turns"] == again["turns"]:  # the rest of the turn, after the reload
            view = perform(page, view, bot.next_action(view))
        assert view["turns"] == again["turns"] + 1 and view["id"] == again["id"]

    def test_the_daily_to_its_end_with_share(self, page: Page) -> None:
        """From the menu to the day's PEACEFUL game; most of it through the API, a reload, the
        last action in the page; the coach's score; SHARE puts the text into the clipboard."""
        open_game(page)
        open_daily_list(page)
        page.click("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
        page.wait_for("#sheet", hidden=True)
        page.wait_for_text("#difficulty-chip", "Daily #")
        today = page.api("GET", "/api/daily")
        game_id = next(g["game_id"] for g in today["games"] if g["difficulty"] == "peaceful")
        view = page.api("GET", f"/api/games/{game_id}")
        assert view["daily"]["number"] == today["number"]
        view = play_through_api(page, view)
        page.reload()  # the page shows where the daily stands
        page.idle()
        action = ViewPlayer().next_action(view)
        assert ends_the_game(view, action)
        final = perform(page, view, action)
        assert final["phase"] == "over"
        page.wait_for_text("#sheet .final-score", number(final["final_score"]["total"]))
        par = wait_for_par(page, final)
        page.wait_until(
            """(par) => {
                const line = document.querySelector('#sheet .daily-coach');
                return line && line.textContent.replace(/[\\u202f\\u00a0]/g, '').includes(par);
            }""",
            number(par),
            timeout=30,
            what="the coach's score",
        )
        page.click("#sheet [data-intent='share']")
        page.wait_for_text("#sheet .share-note", words("share_copied"))
        check_daily_share(page.clipboard(), page, final, par)
        page.click("#sheet [data-intent='leaderboard']")
        page.wait_for("#sheet tr.mine a.watch")

    def test_share_from_the_daily_list(self, page: Page) -> None:
        """A daily finished (through the API), then SHARE on its line of the day's list: the
        page fetches the game and the coach's score before it writes the clipboard."""
        open_game(page)
        daily = page.api("POST", "/api/daily/peaceful")
        final = play_through_api(page, daily, to_the_end=True)
        par = wait_for_par(page, final)
        open_daily_list(page)
        page.click(f"#sheet [data-intent='share'][data-game='{final['id']}']")
        said = "#sheet .share-note, #sheet .share-fallback label"  # copied, or copy it yourself
        page.wait_for(said)
        assert page.text(said) == words("share_copied")
        check_daily_share(page.clipboard(), page, final, par)

    def test_a_challenge_from_its_link_on_the_same_dice(self, page: Page) -> None:
        """A friend (another player, through the API) finished a SURVIVAL game and made a
        challenge of it; its link opens the challenge here, PLAY THE CHALLENGE gives a game on
        the same dice, played with the friend's moves (the last one in the page, after a
        reload that shows the challenge's game again): the table has both boards and the same
        score, and every choice the same."""
        with httpx2.Client(base_url=page.base, timeout=30) as friend:

            def post(path: str, body: dict[str, Any]) -> Any:
                r = friend.post(path, json=body)
                assert r.status_code < 300, r.text
                return r.json()

            view = post("/api/games", {"difficulty": "survival", "seed": 31})
            theirs = play_through(post, view, to_the_end=True)
            code = post("/api/challenges", {"game_id": theirs["id"]})["code"]
            actions = friend.get(f"/api/games/{theirs['id']}/replay").json()["actions"]
        open_game(page)
        page.goto(f"/#challenge={code}")
        page.click("#sheet [data-intent='challenge-play']")
        page.wait_for("#sheet", hidden=True)
        game_id = page.api("GET", f"/api/challenges/{code}")["game_id"]
        view = page.api("GET", f"/api/games/{game_id}")
        assert view["challenge"] == code and view["board"] == "..../..../..../...."
        for action in actions[:-1]:
            view = page.api(
                "POST",
                f"/api/games/{game_id}/actions",
                {"version": view["version"], "action": action},
            )
        page.reload()  # the challenge's game is shown again, where it stands
        page.idle()
        final = perform(page, view, actions[-1])
        assert final["final_score"]["total"] == theirs["final_score"]["total"]
        page.click("#sheet [data-intent='challenge-results']")
        page.wait_for(".duel .duel-side + .duel-side .mini-board")
        page.wait_for_text("#sheet-body", words("parted_never_note"))
        scores = page.evaluate(
            "() => [...document.querySelectorAll('.challenge-row .score')]"
            ".map((n) => n.textContent)"
        )
        assert scores == [number(theirs["final_score"]["total"])] * 2

    def test_a_puzzle_solved_by_tapping_its_dice(self, page: Page) -> None:
        """A puzzle given to this player (its best plan is dice placed and CONFIRM) shown on
        PUZZLES: each die tapped onto its square, CONFIRM; the verdict, the rating up, and MY
        GAMES opens."""
        from ..api.test_api_puzzles import best_of, is_starter

        open_game(page)
        for _ in range(40):
            puzzle = page.api("GET", "/api/puzzles/next?difficulty=peaceful")
            if not is_starter(puzzle):
                continue
            plan = best_of(puzzle)
            if {a["type"] for a in plan} == {"stage", "confirm"}:
                break
        page.evaluate(f"() => sessionStorage.setItem('magdagdon-puzzle', '{puzzle['id']}')")
        page.click("#menu-button")
        page.click("#sheet [data-intent='open'][data-screen='puzzles']")
        page.wait_for(".puzzle-board .square")
        for action in plan[:-1]:
            page.click(f".puzzle-tray .die[data-die='{action['die']}']")
            page.click(f".puzzle-board [data-square='{action['cell']}'].legal")
            page.wait_for(f".puzzle-tray .die[data-die='{action['die']}'].on-board")
        page.click("#puzzle-confirm:not([disabled])")
        page.wait_for(".puzzle-verdict.good")
        page.wait_for_text(".puzzle-rating", "1 of 1 solved")
        rating = page.api("GET", "/api/players/me/puzzles")["rating"]
        assert rating["solved"] == 1 and rating["rating"] > 1500
        page.click("#sheet [data-intent='close']")
        page.click("#menu-button")
        page.click("#sheet [data-intent='open'][data-screen='mygames']")
        page.wait_for_text("#sheet-body", "No finished games yet.")  # (this player has none)

    def test_offline_the_page_says_so_and_goes_on_when_back(self, page: Page) -> None:
        """ROLL without a connection: the page says the game is safe and retries; once the
        connection is back the roll lands, once."""
        view = open_game(page, "/?seed=3")
        page.set_offline(True)
        try:
            page.click("[data-intent='roll']")
            page.wait_for("#connection")
            assert page.text("#connection") == words("connection_lost")
        finally:
            page.set_offline(False)
        page.wait_for("#connection", hidden=True)
        view = wait_for_version(page, view["id"], 1)
        assert view["version"] == 1 and view["phase"] == "place"
        page.wait_for("[data-die='3']")

    def test_errors_in_the_page_are_seen(self, page: Page) -> None:
        """What every test ends with, no error in the page, would see one: an exception, a
        rejected promise nobody handles, and console.error."""
        open_game(page)
        page.evaluate(
            """() => {
                setTimeout(() => { throw new Error("thrown on purpose"); });
                Promise.reject(new Error("rejected on purpose"));
                console.error("said on purpose");
            }"""
        )
        wanted = ["thrown on purpose", "rejected on purpose", "said on purpose"]
        seen: list[str] = []
        deadline = time.monotonic() + page.timeout
        while not all(any(w in error for error in seen) for w in wanted):
            assert time.monotonic() < deadline, seen
            time.sleep(0.1)
            seen += page.errors()
