"""Puzzles and MY GAMES in the browser: a puzzle solved by tapping its dice onto the board, one
missed and its best plan shown, the rating followed up and down (and drawn in STATISTICS);
the puzzle's board, dice and CONFIRM on a phone's screen without scrolling in EN/ET/SV,
light and dark; MY GAMES with its replay and review."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..api.test_api_puzzles import best_of, is_starter, missing_plan, other_plan
from ..utils.ui import screenshot
from .conftest import player_page
from .test_browser_challenges import fits, post_as

KEPT = "magdagdon-puzzle"


def given_puzzle(page: Any, live_server: str, difficulty: str = "peaceful") -> dict[str, Any]:
    """A puzzle given to the page's player (through the API, with its cookie) whose best plan
    is dice placed and CONFIRM, with another placement to miss it by."""
    for _ in range(40):
        found: dict[str, Any] = page.request.get(
            f"{live_server}/api/puzzles/next?difficulty={difficulty}"
        ).json()
        if not is_starter(found):
            continue
        plan = best_of(found)
        if found["view"]["phase"] == "place" and {a["type"] for a in plan} == {"stage", "confirm"}:
            try:
                missing_plan(found)
            except AssertionError:
                continue
            return found
    raise AssertionError("no such puzzle")


def ruin_puzzle(page: Any, live_server: str) -> dict[str, Any]:
    """A rated SURVIVAL puzzle at MAGDAGDON whose best plan is to accept it on a square."""
    for _ in range(40):
        found: dict[str, Any] = page.request.get(
            f"{live_server}/api/puzzles/next?difficulty=survival&theme=ruin"
        ).json()
        if not is_starter(found):
            continue
        plan = best_of(found)
        if found["view"]["phase"] == "magdagdon" and plan[0]["type"] == "accept_magdagdon":
            return found
    raise AssertionError("no RUIN puzzle")


def open_puzzle(page: Any, live_server: str, puzzle: dict[str, Any]) -> None:
    """The page opened on PUZZLES, showing ``puzzle`` (this tab's puzzle in play)."""
    page.goto(live_server)
    page.locator("#board .square").first.wait_for()
    page.evaluate(f"sessionStorage.setItem('{KEPT}', '{puzzle['id']}')")
    page.locator("#menu-button").click()
    page.locator("#sheet [data-screen='puzzles']").click()
    page.locator(".puzzle-board .square").first.wait_for()


def below_the_sheet(page: Any) -> int:
    """How far the sheet's content reaches below its edge, in pixels (0: none of it needs a
    scroll to be seen)."""
    return int(
        page.evaluate(
            "(() => { const b = document.querySelector('#sheet .sheet-body');"
            " return b.scrollHeight - b.clientHeight; })()"
        )
    )


def play(page: Any, plan: list[dict[str, Any]]) -> None:
    """Tap each die onto its square, then CONFIRM; wait for the verdict."""
    for action in plan:
        if action["type"] == "stage":
            die = page.locator(f".puzzle-tray .die[data-die='{action['die']}']")
            if die.get_attribute("aria-pressed") != "true":  # (a tap on a chosen die lets go)
                die.click()
            page.locator(f".puzzle-board [data-square='{action['cell']}'].legal").click()
            page.locator(f".puzzle-tray .die[data-die='{action['die']}'].on-board").wait_for()
    page.locator("#puzzle-confirm:not([disabled])").click()
    page.locator(".puzzle-verdict").wait_for()


def rating(page: Any) -> int:
    line = page.locator(".puzzle-rating").inner_text()
    return int(line.split()[2])


def test_a_puzzle_solved_then_one_missed_the_rating_up_then_down(
    page: Any, live_server: str
) -> None:
    first = given_puzzle(page, live_server)
    open_puzzle(page, live_server, first)
    assert page.locator(".puzzle-board .square").count() == 16
    assert page.locator(".puzzle-tray .die").count() == 4
    play(page, best_of(first))
    assert page.locator(".puzzle-verdict.good").inner_text() == "Solved: the best plan!"
    change = page.locator(".puzzle-change").inner_text()
    assert change.startswith("Rating 1500 → ") and "(+" in change
    page.locator(".puzzle-rating", has_text="1 of 1 solved").wait_for()
    up = rating(page)
    assert up > 1500
    screenshot(page, "puzzle-solved-390x844")

    second = given_puzzle(page, live_server, "survival")
    page.reload()  # the tab's puzzle in play is the second one now
    page.evaluate(f"sessionStorage.setItem('{KEPT}', '{second['id']}')")
    page.locator("#board .square").first.wait_for()
    page.locator("#menu-button").click()
    page.locator("#sheet [data-screen='puzzles']").click()
    page.locator(".puzzle-board .square").first.wait_for()
    play(page, missing_plan(second))
    assert page.locator(".puzzle-verdict.bad").inner_text() == "Not the best plan"
    boards = page.locator("#sheet .review-boards .mini figcaption")
    assert boards.all_inner_texts() == ["Your plan", "Best plan"]
    assert page.locator(".review-plan").inner_text().startswith("Best plan: ")
    # what the best does that this plan does not (or, where the server finds nothing line by
    # line, why the best is best)
    why = page.locator(".puzzle-differences li, .puzzle-reason").all_inner_texts()
    assert why and all(
        w.startswith(("The best plan", "Your plan", "You spent", "Why: ")) for w in why
    )
    page.locator(".puzzle-rating", has_text="1 of 2 solved").wait_for()
    assert rating(page) < up
    screenshot(page, "puzzle-missed-390x844")

    page.locator("#puzzle-next").click()  # the next one comes
    page.locator(".puzzle-board .square").first.wait_for()
    assert page.locator(".puzzle-verdict").count() == 0

    # the rating's history in STATISTICS
    page.locator("#sheet [data-intent='close']").click()
    page.locator("#menu-button").click()
    page.locator("#sheet [data-screen='stats']").click()
    chart = page.locator("#sheet .rating-chart svg")
    chart.wait_for()
    assert "from 1" in (chart.get_attribute("aria-label") or "")
    assert page.locator("#sheet .rating-chart circle").count() == 2


def test_a_power_and_a_take_back_are_the_servers_to_judge(page: Any, live_server: str) -> None:
    puzzle = given_puzzle(page, live_server)
    open_puzzle(page, live_server, puzzle)
    stage = best_of(puzzle)[0]
    page.locator(f".puzzle-tray .die[data-die='{stage['die']}']").click()
    assert page.locator(".puzzle-board .square.legal").count() >= 1
    page.locator(f".puzzle-board [data-square='{stage['cell']}']").click()
    page.locator(".puzzle-board .square.staged").wait_for()
    page.locator("[data-intent='puzzle-take-back']").click()
    page.locator(".puzzle-board .square.staged").wait_for(state="detached")
    # the daily puzzle is a tab away
    page.locator("[data-intent='puzzle-mode'][data-mode='daily']").click()
    page.locator("[data-intent='puzzle-mode'][data-mode='daily'][aria-pressed='true']").wait_for()
    page.locator(".puzzle-board .square").first.wait_for()


@pytest.mark.parametrize("language", ["en", "et", "sv"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_puzzle_fits_a_phone(
    browser: Any, live_server: str, language: str, scheme: str
) -> None:
    from .test_browser_replay import words  # (it imports this module, by a11y's)

    for width, height in [(360, 640), (375, 667)]:
        with player_page(browser, width, height, locale=language, color_scheme=scheme) as phone:
            puzzle = given_puzzle(phone, live_server, "survival")
            open_puzzle(phone, live_server, puzzle)
            stage = best_of(puzzle)[0]
            chosen = f".puzzle-tray .die[data-die='{stage['die']}']"
            phone.locator(chosen).click()
            phone.locator(f"{chosen}[aria-pressed='true']").wait_for()
            # (the sheet is drawn again when the rating's line arrives: measured once it has)
            phone.wait_for_load_state("networkidle")
            for part in (".puzzle-board", ".puzzle-tray", "#puzzle-confirm"):
                fits(phone, phone.locator(f"#sheet {part}"), width, height)
            # within the sheet too, which does not scroll (its edge hid CONFIRM of a long
            # Estonian task, on the screen though it was)
            assert below_the_sheet(phone) <= 1, below_the_sheet(phone)
            # each row's and column's sum and bonus beside it, as on the game board
            for kind, key in (("row", "row_sum"), ("col", "column_sum")):
                sums = phone.locator(f"#sheet .puzzle-board .sum.{kind}")
                assert sums.count() == 4
                said = sums.first.get_attribute("aria-label") or ""
                assert said.startswith(words(language, key, n=1)), said
            screenshot(phone, f"puzzle-{language}-{scheme}-{width}x{height}")
            play(phone, missing_plan(puzzle))
            screenshot(phone, f"puzzle-missed-{language}-{scheme}-{width}x{height}")
        if width == 360:  # a MAGDAGDON too, with its ACCEPT, its REROLL and its rescues
            with player_page(browser, width, height, locale=language, color_scheme=scheme) as phone:
                open_puzzle(phone, live_server, ruin_puzzle(phone, live_server))
                phone.wait_for_load_state("networkidle")
                fits(phone, phone.locator("#sheet #puzzle-confirm"), width, height)
                assert below_the_sheet(phone) <= 1, below_the_sheet(phone)
                screenshot(phone, f"puzzle-magdagdon-{language}-{scheme}-{width}x{height}")


def test_my_games_lists_the_finished_games_with_their_replay_and_review(
    page: Any, live_server: str
) -> None:
    from ..utils.api import play_through

    def post(path: str, body: dict[str, Any]) -> Any:
        return post_as(page, live_server, path, body)

    page.goto(live_server)
    page.locator("#board .square").first.wait_for()
    finished = []
    for seed in (71, 72):
        view = post("/api/games", {"difficulty": "nightmare", "seed": seed, "abandon": True})
        finished.append(play_through(post, view, to_the_end=True))
    page.locator("#menu-button").click()
    page.locator("#sheet [data-screen='mygames']").click()
    rows = page.locator("#sheet .my-game")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    first = rows.first.inner_text()
    score = str(finished[-1]["score"]["total"]).replace("-", "−")  # (as the page writes it)
    assert "NIGHTMARE" in first and score in first
    link = rows.first.locator("[data-replay-link]")
    assert link.get_attribute("href") == f"/replay/{finished[-1]['id']}"
    page.locator("[data-intent='mygames-difficulty'][data-difficulty='peaceful']").click()
    page.locator("#sheet", has_text="No finished games yet.").wait_for()
    page.locator("[data-intent='mygames-difficulty'][data-difficulty='']").click()
    rows.nth(1).wait_for()
    screenshot(page, "mygames-390x844")
    rows.first.locator("[data-intent='review']").click()
    page.locator("#sheet .review-turn").first.wait_for()


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_magdagdon_puzzle_has_accept_magdagdon_and_fits_a_phone(
    browser: Any, live_server: str, language: str
) -> None:
    """There was no ACCEPT MAGDAGDON (a player had to guess that tapping a red dashed square
    picks the RUIN), and CONFIRM sat below the fold at 375×667 in Estonian."""
    from .test_browser_replay import words

    with player_page(browser, 375, 667, locale=language) as phone:
        puzzle = ruin_puzzle(phone, live_server)
        cell = best_of(puzzle)[0]["cell"]
        open_puzzle(phone, live_server, puzzle)
        accept = phone.locator("#puzzle-confirm")
        penalty = puzzle["view"]["ruin_penalty"]
        assert accept.inner_text() == f"{words(language, 'accept_magdagdon')} (−{penalty})"
        phone.wait_for_load_state("networkidle")
        screenshot(phone, f"puzzle-magdagdon-{language}-375x667")
        fits(phone, accept, 375, 667)
        accept.click()  # no square yet: it asks for one, the keyboard goes to one, nothing sent
        line = phone.locator(".puzzle-ruin-line")
        assert line.inner_text() == words(language, "choose_ruin")
        phone.locator(".puzzle-board .square.ruin-choice:focus").wait_for()
        assert phone.locator(".puzzle-verdict").count() == 0
        phone.locator(f".puzzle-board [data-square='{cell}']").click()
        phone.locator("#puzzle-confirm", has_text=words(language, "square_ruin")).wait_for()
        accept.click()
        phone.locator(".puzzle-verdict").wait_for()


def test_unrated_puzzles_show_no_ratings_and_an_ended_streak_says_so(
    page: Any, live_server: str
) -> None:
    """The daily and STREAK puzzles showed ratings though they are unrated; a missed STREAK
    said "0 in a row" where it should say it ended, with TRY AGAIN."""
    streak: dict[str, Any] = {}
    for _ in range(40):
        streak = page.request.get(f"{live_server}/api/puzzles/next?mode=streak").json()
        if not is_starter(streak):
            continue
        plan = best_of(streak)
        placing = {a["type"] for a in plan} == {"stage", "confirm"}
        if streak["view"]["phase"] == "place" and placing and other_plan(streak) is not None:
            break
    else:
        raise AssertionError("no STREAK puzzle to miss")
    open_puzzle(page, live_server, streak)
    task = page.locator(".puzzle-task").inner_text()
    rated = re.compile(r"puzzle \d+ · you \d+")  # (a rated one's: "puzzle 1500 · you 1500")
    assert not rated.search(task), task
    play(page, missing_plan(streak))
    assert page.locator(".puzzle-change").inner_text() == "Your STREAK ended at 0 puzzles."
    assert page.locator("#puzzle-next").inner_text() == "TRY AGAIN"
    # a day whose puzzle is dice placed and CONFIRM (what play() taps), the same on any date
    # the suite runs
    for n in range(1, 29):
        day = {"X-Magdagdon-Test-Date": f"2027-02-{n:02d}"}
        daily = page.request.get(f"{live_server}/api/puzzles/daily", headers=day).json()
        if is_starter(daily) and {a["type"] for a in best_of(daily)} == {"stage", "confirm"}:
            break
    else:
        raise AssertionError("no daily puzzle of dice placed in February 2027")
    page.set_extra_http_headers(day)
    page.locator("[data-intent='puzzle-mode'][data-mode='daily']").click()
    page.locator("[data-intent='puzzle-mode'][data-mode='daily'][aria-pressed='true']").wait_for()
    page.locator(".puzzle-board .square").first.wait_for()
    task = page.locator(".puzzle-task").inner_text()
    assert not rated.search(task), task
    # the daily puzzle says its day, and its result can be shared
    assert f"The puzzle of February {int(daily['date'][-2:])}, 2027" in task, task  # (en-US)
    play(page, best_of(daily))
    page.locator("#sheet [data-intent='puzzle-share']").click()
    said = page.locator("#sheet .share-note, #sheet #share-text").first
    said.wait_for(state="visible")
    if said.get_attribute("id") == "share-text":  # (no clipboard here: the text to copy)
        text = said.input_value()
        assert text.startswith("MAGDAGDON · The puzzle of ") and "Solved" in text, text
