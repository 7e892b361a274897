"""The client's files: named by the release, cached for a year, compressed, the start page
preloading what the board needs, and the game's start in one request."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import brotli
import pytest
from fastapi.testclient import TestClient

from magdagdon.settings import Settings
from magdagdon.web.app import STATIC, create_app
from magdagdon.web.assets import Assets, choose_language, without_comments

from ..utils.api import act


def test_the_release_is_the_hash_of_every_file(tmp_path: Path) -> None:
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    assert Assets(copy).release == Assets(STATIC).release
    (copy / "css" / "app.css").write_text((copy / "css" / "app.css").read_text() + "\n")
    assert Assets(copy).release != Assets(STATIC).release


def test_a_release_file_is_immutable_and_another_release_is_gone(client: TestClient) -> None:
    release = client.app.state.assets.release  # type: ignore[attr-defined]
    r = client.get(f"/r/{release}/js/app.js")
    assert (
        r.status_code == 200 and r.headers["cache-control"] == "public, max-age=31536000, immutable"
    )
    assert r.content == without_comments("js/app.js", (STATIC / "js" / "app.js").read_bytes())
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in r.headers  # a script is no document
    svg = client.get(f"/r/{release}/icons/icon.svg")  # an SVG can be one
    assert "content-security-policy" in svg.headers
    for url in (f"/r/{'0' * 16}/js/app.js", f"/r/{release}/js/nothing.js", f"/r/{release}/sw.js"):
        assert client.get(url).status_code == 404, url
    etag = r.headers["etag"]
    again = client.get(f"/r/{release}/js/app.js", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize("path", ["/", "/sw.js", "/js/app.js", "/css/app.css", "/replay/abc"])
def test_what_is_not_named_by_the_release_is_always_checked_again(
    client: TestClient, path: str
) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache", path
    assert r.headers["etag"]


@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_text_is_compressed_when_the_browser_takes_it(client: TestClient, encoding: str) -> None:
    release = client.app.state.assets.release  # type: ignore[attr-defined]
    for path in ("/", f"/r/{release}/js/controller.js", f"/r/{release}/i18n/et.json"):
        r = client.get(path, headers={"accept-encoding": f"{encoding}, deflate"})
        assert r.headers["content-encoding"] == encoding and r.headers["vary"] == "Accept-Encoding"
        raw = client.get(path, headers={"accept-encoding": "identity"})
        assert "content-encoding" not in raw.headers
        assert int(r.headers["content-length"]) < len(raw.content) / 2.5, path
    body = without_comments("css/app.css", (STATIC / "css" / "app.css").read_bytes())
    packed = Assets(STATIC).encoded("css/app.css", Assets(STATIC).files["css/app.css"], encoding)[0]
    assert (brotli.decompress(packed) if encoding == "br" else gzip.decompress(packed)) == body


def test_the_page_names_its_release_and_preloads_the_board(client: TestClient) -> None:
    release = client.app.state.assets.release  # type: ignore[attr-defined]
    page = client.get("/", headers={"accept-language": "sv-SE,sv;q=0.9,en;q=0.8"}).text
    linked = re.findall(r'(?:href|src)="(/[^"]*)"', page)
    assert linked and all(url.startswith(f"/r/{release}/") for url in linked), linked
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)"', page)
    # (account.js, challenges.js, leagues.js, puzzles.js, mygames.js, pastdailies.js and
    # rooms.js are imported when their screens first open, not with the page, and askname.js
    # with four of them; boot.js is a classic script)
    imported = {p.name for p in (STATIC / "js").glob("*.js")} - {
        "replay.js",
        "docs.js",
        "account.js",
        "challenges.js",
        "leagues.js",
        "puzzles.js",
        "mygames.js",
        "pastdailies.js",
        "rooms.js",
        "askname.js",
        "boot.js",
    }
    assert {url.rpartition("/")[2] for url in preloaded} == imported
    assert f'<link rel="preload" href="/r/{release}/i18n/sv.json" as="fetch" crossorigin>' in page
    for url in linked:
        assert client.get(url).status_code == 200, url
    worker = client.get("/sw.js").text
    assert f'const RELEASE = "{release}";' in worker


@pytest.mark.parametrize(
    "header, language",
    [("", "en"), ("et", "et"), ("de-DE,sv;q=0.5", "sv"), ("fi, en-GB;q=0.9, et", "en")],
)
def test_the_preloaded_catalog_is_the_one_the_page_chooses(header: str, language: str) -> None:
    assert choose_language(header) == language  # js/i18n.js chooses the same way


def test_the_game_starts_in_one_request(client: TestClient) -> None:
    first = client.post("/api/games", json={"difficulty": "survival", "resume": True, "seed": 3})
    assert first.status_code == 201 and first.json()["difficulty"] == "survival"
    view = act(client, first.json(), {"type": "roll"})
    again = client.post("/api/games", json={"difficulty": "peaceful", "resume": True})
    assert again.status_code == 200 and again.json() == view  # the game in progress, unchanged
    both = client.post(
        "/api/games", json={"difficulty": "peaceful", "resume": True, "abandon": True}
    )
    assert both.status_code == 422


def test_a_second_release_is_served_from_its_own_folder(tmp_path: Path, settings: Settings) -> None:
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    (copy / "js" / "app.js").write_text((copy / "js" / "app.js").read_text() + '\nvoid "B";\n')
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings, static=copy)) as b:
        release_a = a.app.state.assets.release  # type: ignore[attr-defined]
        release_b = b.app.state.assets.release  # type: ignore[attr-defined]
        assert release_a != release_b
        assert b.get(f"/r/{release_b}/js/app.js").text.endswith('void "B";\n')
        # A's files under A's name, from the database: never B's (a page of A still open)
        older = b.get(f"/r/{release_a}/js/app.js")
        assert older.status_code == 200 and 'void "B"' not in older.text
        assert older.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert b.get(f"/r/{release_a}/js/account.js").status_code == 200
        assert b.get(f"/r/{release_a}/js/nothing.js").status_code == 404
        assert b.get(f"/r/{release_a}/sw.js").status_code == 404


def test_the_last_three_releases_files_are_kept(settings: Settings) -> None:
    """A page of an older release still open loads what it had not loaded yet, from the
    database, for the last three releases; older ones are forgotten (store/releases.py)."""
    from magdagdon.store import Database, Store

    store = Store(Database(settings.database_url))
    store.db.migrate()
    try:
        for n in range(5):
            store.keep_release(f"{n:016x}", {"js/a.js": ("text/javascript", f"// {n}".encode())})
        kept = [store.release_file(f"{n:016x}", "js/a.js") for n in range(5)]
        assert kept[:2] == [None, None]
        assert kept[2:] == [("text/javascript", f"// {n}".encode()) for n in (2, 3, 4)]
        store.keep_release("0" * 15 + "2", {"js/a.js": ("text/javascript", b"other")})  # again
        assert store.release_file("0" * 15 + "2", "js/a.js") == ("text/javascript", b"// 2")
    finally:
        store.db.dispose()


def test_what_is_sent_is_the_code_without_its_comments() -> None:
    source = (
        b'// a comment\n  const a = "// not one";\n  // another\n'
        b"/* kept */ f(`x\n// in a template\n`);\n"
    )
    assert without_comments("js/x.js", source) == (
        b'const a = "// not one";\n/* kept */ f(`x\n// in a template\n`);\n'
    )
    assert without_comments("css/x.css", b"a { b: c; } /* gone */\n/* gone\ntoo */\nd {}") == (
        b"a { b: c; } d {}"
    )
    assert without_comments("i18n/en.json", b"// kept") == b"// kept"
