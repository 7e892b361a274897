"""Challenges in the browser, with two players (two browser contexts): a link made from a
finished game, the friend's game on the same dice, the table with both boards, "same dice,
different choices" from the turn where they parted; in EN/ET/SV on a phone."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import ViewPlayer, play_through
from ..utils.ui import UiPlayer, screenshot
from .conftest import player_page
from .test_browser_play import open_game

PHONES = [(360, 640), (375, 667)]


@pytest.fixture
def friend(browser: Any, live_server: str) -> Iterator[Any]:
    """A second player's phone (its own cookies)."""
    with player_page(browser, 375, 667) as page:
        yield page


def made_challenge(page: Any, live_server: str, seed: int) -> tuple[Any, str, list[Any]]:
    """Ann plays a whole SURVIVAL game through the page and makes a challenge of it from its
    game-over sheet: her final view, the link, her game's actions."""
    ui = open_game(page, live_server, "survival", seed)
    final, _ = ui.play_to_end(use_power=False)
    page.locator("#sheet [data-intent='challenge-create']").click()
    link = page.locator("#link-text")
    link.wait_for(state="visible")
    assert page.locator("#sheet .qr").count() == 1
    url = link.input_value()
    assert "#challenge=" in url
    screenshot(page, "challenge-link-390x844")
    actions = page.request.get(f"{live_server}/api/games/{final['id']}/replay").json()["actions"]
    return final, url, actions


def quick_challenge(page: Any, live_server: str, seed: int) -> tuple[str, list[Any]]:
    """A challenge made through the API by the page's player (a finished SURVIVAL game of
    ``seed``): its link and the game's actions (when the test is about the friend's side)."""
    post = partial(post_as, page, live_server)
    view = post("/api/games", {"difficulty": "survival", "seed": seed, "abandon": True})
    final = play_through(post, view, to_the_end=True)
    url = str(post("/api/challenges", {"game_id": final["id"]})["url"])
    actions = page.request.get(f"{live_server}/api/games/{final['id']}/replay").json()["actions"]
    return url, actions


def open_link(page: Any, url: str) -> None:
    page.goto(url)
    page.locator("[data-intent='challenge-play']").wait_for(state="visible")


def play_from_link(page: Any, live_server: str, url: str) -> tuple[str, UiPlayer]:
    """The friend opens the link and presses PLAY: the challenge's code, and a player of the
    game it started."""
    code = url.rpartition("=")[2]
    open_link(page, url)
    page.locator("[data-intent='challenge-play']").click()
    page.locator("#sheet").wait_for(state="hidden")
    return code, challenge_player(page, live_server, code)


def challenge_player(page: Any, live_server: str, code: str) -> UiPlayer:
    ui = UiPlayer(page, live_server)
    ui.game_id = page.request.get(f"{live_server}/api/challenges/{code}").json()["game_id"]
    assert ui.game_id
    return ui


def test_a_friend_plays_the_same_moves_and_gets_the_same_score(
    page: Any, friend: Any, live_server: str
) -> None:
    ann = f"Ann {secrets.token_hex(2)}"  # names are the server's: this test's own
    assert page.request.put(f"{live_server}/api/players/me", data={"name": ann}).ok
    final, url, actions = made_challenge(page, live_server, seed=21)
    code = url.rpartition("=")[2]
    open_link(friend, url)
    landing = friend.locator("#sheet-body").inner_text()
    assert f"{ann} challenges you" in landing and "SURVIVAL" in landing
    # no score before playing (the name's four random digits taken out: "Ann 2402" held 240)
    assert str(final["final_score"]["total"]) not in landing.replace(ann, "")
    screenshot(friend, "challenge-landing-375x667")
    friend.locator("[data-intent='challenge-play']").click()
    friend.locator("#sheet").wait_for(state="hidden")
    ui = challenge_player(friend, live_server, code)
    assert ui.view()["challenge"] == code
    for action in actions:
        ui.perform(action)
    theirs = ui.view()
    assert theirs["final_score"]["total"] == final["final_score"]["total"]
    friend.locator("#sheet [data-intent='challenge-results']").click()
    friend.locator(".duel .mini-board").nth(1).wait_for(state="visible")
    body = friend.locator("#sheet-body")
    assert friend.locator(".challenge-rows li").count() == 2
    assert "You made every choice the same." in body.inner_text()
    assert "challenger" in body.inner_text()
    screenshot(friend, "challenge-results-375x667")
    # the challenger's next visit: a quiet line, and the list of who played
    page.goto(f"{live_server}/")
    news = page.locator("#news")
    news.wait_for(state="visible")
    total = final["final_score"]["total"]
    said = f"Anonymous played your challenge: {total} to your {total}."  # the friend's unnamed
    assert news.inner_text().startswith(said)
    screenshot(page, "challenge-news-390x844")
    news.locator("[data-intent='open']").click()
    page.locator(".challenge-item").first.wait_for(state="visible")
    assert "1 played" in page.locator(".challenge-list").inner_text()
    assert "1 new" in page.locator(".challenge-list").inner_text()
    assert page.locator("#news").count() == 0
    with page.expect_response(lambda r: r.url.endswith("/api/games/current")) as asked:
        page.reload()
    assert "x-magdagdon-news" not in asked.value.headers  # seen: no news again
    page.wait_for_selector("#app[aria-busy='false']")
    assert page.locator("#news").count() == 0


def test_different_choices_show_the_turn_where_the_games_parted(
    page: Any, friend: Any, live_server: str
) -> None:
    url, actions = quick_challenge(page, live_server, seed=22)
    _, ui = play_from_link(friend, live_server, url)
    # the first turn as Ann played it, then another square for the second turn's first die
    second = [n for n, a in enumerate(actions) if a["type"] == "roll"][1]
    for action in actions[:second]:
        ui.perform(action)
    view = ui.perform({"type": "roll"})
    hers = next(a for a in actions[second:] if a["type"] == "stage")
    if view["phase"] == "place":
        other = next(
            {"type": "stage", "die": d["index"], "cell": cell}
            for d in view["dice"]
            for cell in d["legal_cells"]
            if {"type": "stage", "die": d["index"], "cell": cell} != hers
        )
        view = ui.perform(other)
    bot = ViewPlayer(use_power=False)
    while view["phase"] != "over":
        view = ui.perform(bot.next_action(view))
    friend.locator("#sheet [data-intent='challenge-results']").click()
    note = friend.locator("#sheet-body .note", has_text="parted at turn")
    note.wait_for(state="visible")
    assert "parted at turn 2" in note.inner_text()
    friend.locator("#sheet [data-intent='challenge-compare']").first.click()
    friend.locator(".compare-turn").wait_for(state="visible")
    assert friend.locator(".compare-turn").inner_text().startswith("Turn 2 of")
    assert friend.locator(".duel .mini-board").count() == 2
    screenshot(friend, "challenge-compare-375x667")
    friend.locator("[data-intent='challenge-turn'][data-by='1']").click()
    friend.locator(".compare-turn", has_text="Turn 3 of").wait_for()


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_the_challenge_screens_fit_a_phone(
    browser: Any, page: Any, live_server: str, language: str
) -> None:
    url, _ = quick_challenge(page, live_server, seed=23)
    for width, height in PHONES:
        with player_page(browser, width, height, locale=language) as phone:
            open_link(phone, url)
            play = phone.locator("[data-intent='challenge-play']")
            fits(phone, play, width, height)
            screenshot(phone, f"challenge-landing-{language}-{width}x{height}")
            # played (through the API), its table: SAME DICE, DIFFERENT CHOICES on screen
            code = url.rpartition("=")[2]
            base = f"{live_server}/api"
            view = phone.request.post(f"{base}/challenges/{code}/games").json()
            play_through(partial(post_as, phone, live_server), view, to_the_end=True)
            phone.goto(url)
            phone.locator("[data-intent='challenge-game']").click()
            same = phone.locator("#sheet [data-intent='challenge-compare']").first
            same.wait_for(state="visible")
            fits(phone, same, width, height)
            screenshot(phone, f"challenge-results-{language}-{width}x{height}")
            same.click()
            step = phone.locator("[data-intent='challenge-turn'][data-by='1']")
            step.wait_for(state="visible")
            fits(phone, step, width, height)
            screenshot(phone, f"challenge-compare-{language}-{width}x{height}")


def post_as(page: Any, live_server: str, path: str, body: dict[str, Any]) -> Any:
    """A POST of the page's player (its cookie); the JSON answer."""
    r = page.request.post(f"{live_server}{path}", data=body)
    assert r.ok, r.text()
    return r.json()


def fits(page: Any, node: Any, width: int, height: int) -> None:
    """The control is wholly on screen (no scrolling), and the page does not scroll sideways."""
    box = node.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, box
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, wide


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_rematch_in_the_list_can_be_played_on_a_phone(
    browser: Any, page: Any, live_server: str, language: str
) -> None:
    """PLAY THE CHALLENGE, the only button of a REMATCH in the challenger's list, was cut at
    375 px ("MÄNGI VÄLJAKUTSET", 125 px of words in a 59 px box)."""
    with player_page(browser, 375, 667, locale=language) as ann:
        ann.goto(live_server)
        ann.locator("#app[aria-busy='false']").wait_for()
        url, _ = quick_challenge(ann, live_server, seed=29)
        code = url.rpartition("=")[2]
        # a friend plays it and sends a REMATCH back (through the API, with the friend's cookie)
        post = plays_challenge(page, live_server, code)
        rematch = post(f"/api/challenges/{code}/rematch", {"abandon": True})
        play_through(post, rematch, to_the_end=True)
        # the news line says each for what it is ("2 friends played your challenge" before)
        ann.reload()
        from .test_browser_replay import words  # (it imports this module's helpers, by a11y's)

        back = words(language, "news_reply", who=words(language, "anonymous"))
        ann.locator("#news", has_text=back).wait_for()
        ann.locator("#menu-button").click()
        ann.locator("#sheet [data-screen='challenges']").click()
        play = ann.locator("#sheet [data-intent='challenge-landing']")
        play.wait_for(state="visible")
        screenshot(ann, f"challenge-rematch-{language}-375x667")
        fits(ann, play, 375, 667)
        assert play.evaluate("b => b.scrollWidth <= b.clientWidth"), play.inner_text()


def plays_challenge(page: Any, live_server: str, code: str) -> Callable[[str, dict[str, Any]], Any]:
    """The page's player (its cookie, once the page has one) plays the challenge to its end
    through the API; their POST, to go on with."""
    page.goto(live_server)
    page.locator("#app[aria-busy='false']").wait_for()
    post = partial(post_as, page, live_server)
    play_through(post, post(f"/api/challenges/{code}/games", {}), to_the_end=True)
    return post


def see_table(page: Any, url: str) -> None:
    """The challenge's table, from its link, for a player who has played it."""
    page.goto(url)
    page.locator("#sheet [data-intent='challenge-game']").click()


def test_a_rematch_gives_up_a_game_never_rolled_without_asking(
    page: Any, friend: Any, live_server: str
) -> None:
    """REMATCH asked to abandon a game the player had started and never rolled (as NEW GAME
    does not); one rolled is still asked about."""
    url, _ = quick_challenge(page, live_server, seed=23)
    code = url.rpartition("=")[2]
    post = plays_challenge(friend, live_server, code)
    untouched = post("/api/games", {"difficulty": "peaceful", "abandon": True})
    assert untouched["version"] == 0
    see_table(friend, url)
    friend.locator("#sheet [data-intent='challenge-rematch']").click()
    friend.locator("#sheet").wait_for(state="hidden")
    assert not friend.locator("#confirm").evaluate("d => d.open")
    current = friend.request.get(f"{live_server}/api/games/current").json()
    assert current["id"] != untouched["id"] and current["version"] == 0
    # a game with a roll in it is asked about
    rolled = post("/api/games", {"difficulty": "peaceful", "abandon": True})
    post(f"/api/games/{rolled['id']}/actions", {"version": 0, "action": {"type": "roll"}})
    see_table(friend, url)
    friend.locator("#sheet [data-intent='challenge-rematch']").click()
    friend.locator("#confirm-text").wait_for(state="visible")


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_rematchs_end_says_it_went_back_as_a_challenge(
    browser: Any, page: Any, live_server: str, language: str
) -> None:
    """The end of a REMATCH showed the ordinary game-over sheet: no word that it went back to
    the challenger as a challenge, no way to its table."""
    from .test_browser_replay import words

    url, _ = quick_challenge(page, live_server, seed=24)
    code = url.rpartition("=")[2]
    with player_page(browser, 375, 667, locale=language) as friend:
        plays_challenge(friend, live_server, code)
        see_table(friend, url)
        friend.locator("#sheet [data-intent='challenge-rematch']").click()
        friend.locator("#sheet").wait_for(state="hidden")
        UiPlayer(friend, live_server).play_to_end(use_power=False)
        note = friend.locator("#sheet-body .note.sent-back")
        note.wait_for(state="visible")
        assert note.inner_text() == words(language, "rematch_sent_back")
        table = friend.locator("#sheet-body [data-intent='challenge-results']")
        fits(friend, table, 375, 667)
        for scheme in ("light", "dark"):
            friend.emulate_media(color_scheme=scheme)
            screenshot(friend, f"challenge-rematch-over-{language}-{scheme}-375x667")
        table.click()
        friend.locator(".challenge-rows li").first.wait_for(state="visible")
        assert friend.locator(".challenge-rows li").count() == 1  # the friend's game, so far


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_every_device_of_the_account_hears_the_news_and_sees_it_once(
    browser: Any, page: Any, live_server: str, language: str
) -> None:
    """The news came only to a browser that had made a challenge (a local flag): the account's
    other devices never heard it. Now each device says who did what, with a badge on
    CHALLENGES, and what one device has seen the other no longer says."""
    from .test_browser_a11y import serious_violations
    from .test_browser_replay import words

    ann_name, ben_name = f"Ann {secrets.token_hex(2)}", f"Ben {secrets.token_hex(2)}"
    with (
        player_page(browser, 375, 667, locale=language) as laptop,
        player_page(browser, 360, 640, locale=language) as phone,
    ):
        laptop.goto(live_server)
        laptop.locator("#app[aria-busy='false']").wait_for()
        assert laptop.request.put(f"{live_server}/api/players/me", data={"name": ann_name}).ok
        made = post_as(laptop, live_server, "/api/account/transfer-codes", {})
        phone.goto(live_server)
        phone.locator("#app[aria-busy='false']").wait_for()
        post_as(phone, live_server, "/api/account/sign-in/transfer", {"code": made["code"]})
        url, _ = quick_challenge(phone, live_server, seed=25)  # made on the phone
        code = url.rpartition("=")[2]
        # Ben plays it (through the API, with the test page's cookie)
        assert page.request.put(f"{live_server}/api/players/me", data={"name": ben_name}).ok
        ben = play_through(
            partial(post_as, page, live_server),
            post_as(page, live_server, f"/api/challenges/{code}/games", {}),
            to_the_end=True,
        )
        rows = phone.request.get(f"{live_server}/api/challenges/{code}/results").json()["rows"]
        (hers,) = [r["score"] for r in rows if r["challenger"]]
        said = words(
            language, "news_played", who=ben_name, score=ben["final_score"]["total"], against=hers
        )
        for device, size in ((laptop, "375x667"), (phone, "360x640")):
            device.reload()
            news = device.locator("#news")
            news.wait_for(state="visible")
            assert news.inner_text().startswith(said), news.inner_text()
            device.locator("#menu-button").click()
            entry = device.locator("#sheet [data-screen='challenges']")
            assert entry.locator(".news-badge").inner_text() == "1"
            assert serious_violations(device) == []
            for scheme in ("light", "dark"):
                device.emulate_media(color_scheme=scheme)
                screenshot(device, f"challenge-news-menu-{language}-{scheme}-{size}")
            device.keyboard.press("Escape")
        # seen on the phone: the laptop says nothing more, and CHALLENGES has no badge
        phone.locator("#news [data-intent='open']").click()
        phone.locator(".challenge-item").first.wait_for(state="visible")
        laptop.reload()
        laptop.locator("#app[aria-busy='false']").wait_for()
        laptop.locator("#menu-button").click()
        laptop.locator("#sheet [data-screen='challenges']").wait_for()
        assert laptop.locator("#news").count() == 0
        assert laptop.locator("#sheet .news-badge").count() == 0


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_same_dice_different_choices_shows_each_turns_powers_and_ruins(
    browser: Any, page: Any, live_server: str, language: str
) -> None:
    """SAME DICE, DIFFERENT CHOICES showed "Rolled 6 6 2 4" and a 3 on the board with no word
    of the Majda Power that made it, nor of a RUIN; and "parted at turn 1" for the same play
    one row lower. Each turn now says what each game did with its powers, and the screen says
    what parting is."""
    from .test_browser_replay import words

    post = partial(post_as, page, live_server)
    for seed in range(40, 80):  # the first seed whose game (the bot rescues) uses a power
        view = post("/api/games", {"difficulty": "survival", "seed": seed, "abandon": True})
        bot, final = ViewPlayer(use_power=True), view
        while final["phase"] != "over":
            body = {"version": final["version"], "action": bot.next_action(final)}
            final = post(f"/api/games/{final['id']}/actions", body)
        frames = page.request.get(f"{live_server}/api/games/{final['id']}/frames").json()
        turns = [f["turn"] for f in frames["frames"] if f["kind"] in ("adjust", "ruin")]
        if any(f["kind"] == "adjust" for f in frames["frames"]):
            break
    else:
        raise AssertionError("no seed of 40 to 79 gave a game with a power")
    code = post("/api/challenges", {"game_id": final["id"]})["code"]
    actions = page.request.get(f"{live_server}/api/games/{final['id']}/replay").json()["actions"]
    with player_page(browser, 375, 667, locale=language) as friend:
        friend.goto(live_server)
        friend.locator("#app[aria-busy='false']").wait_for()
        mine = post_as(friend, live_server, f"/api/challenges/{code}/games", {})
        for action in actions:  # the same play: no parting
            body = {"version": mine["version"], "action": action}
            mine = post_as(friend, live_server, f"/api/games/{mine['id']}/actions", body)
        see_table(friend, f"{live_server}/#challenge={code}")
        friend.locator("#sheet [data-intent='challenge-compare']").first.click()
        friend.locator(".compare-turn").wait_for(state="visible")
        assert friend.locator("#sheet-body").inner_text().count(words(language, "parted_rule"))
        for _ in range(turns[0] - 1):
            friend.locator("[data-intent='challenge-turn'][data-by='1']").click()
        turn = words(language, "compare_turn", n=turns[0], of=final["turns"])
        friend.locator(".compare-turn", has_text=turn).wait_for()
        powers = friend.locator(".compare-powers")
        assert powers.count() == 2, friend.locator("#sheet-body").inner_text()
        assert (
            "Majda Power" in powers.first.inner_text()
            or words(language, "compare_ruin") in powers.first.inner_text()
        )
        for scheme in ("light", "dark"):
            friend.emulate_media(color_scheme=scheme)
            screenshot(friend, f"challenge-compare-powers-{language}-{scheme}-375x667")


def test_the_coachs_score_on_the_challenge_shows_however_late_it_comes(
    page: Any, friend: Any, live_server: str
) -> None:
    """On a busy server the coach's game on the challenge's dice may end minutes after the
    friend's: the results go on saying the coach is playing and show its score once the server
    has it (the page asked four times in the first 30 s, then said it was playing for good)."""
    url, actions = quick_challenge(page, live_server, seed=23)
    code, ui = play_from_link(friend, live_server, url)
    for action in actions:
        ui.perform(action)
    # the page's timers run on a clock that stands still but for the test's moves: one move
    # past the page's next ask fires that one ask (the next is set once its answer is read)
    friend.context.clock.install()
    friend.clock.pause_at(datetime.now() + timedelta(seconds=1))
    results = f"**/api/challenges/{code}/results"
    late: dict[str, Any] = {"coach": None}  # what the server has, as the page sees it

    def held(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "coach": late["coach"]})

    friend.route(results, held)
    friend.locator("#sheet [data-intent='challenge-results']").click()
    coach = friend.locator("#sheet .coach-line")
    expect(coach).to_have_text("The coach is playing these dice…")

    def a_little_later() -> None:  # the page asks again within 31 s (fails if it does not)
        with friend.expect_response(results):
            friend.clock.run_for(31_000)

    for _ in range(6):  # two and a half minutes: the asks after 2, 4, 8, 16, 30 and 30 s
        a_little_later()
    expect(coach).to_have_text("The coach is playing these dice…")
    late["coach"] = 345  # the coach's game ends on the server, some three minutes late
    a_little_later()
    expect(coach).to_have_text("The coach scored 345 on these dice.")
