"""The browser client's files: named by the release's content hash, cached for a year,
compressed, and the start page and the service worker written for the release.

Every file of ``static/`` is served under ``/r/<release>/<path>``, where ``<release>`` is a
hash of all of them: such an answer never changes, so it is cached for a year as ``immutable``,
and a page of one release can never load a file of another (the modules import each other by
relative paths, and the catalogs and rules are fetched relative to the modules). The start page
(``/``, ``/replay/<id>``) names the release's files and preloads all that the board needs in
one go: the style sheet, every module of the game (``modulepreload``) and the catalog of the
language the page will load (its own choice, remembered in a cookie, else the browser's), so
the board is usable after three round trips (the page, its files, the game). It is never cached
without asking again (``no-cache``), nor is the service worker (``/sw.js``), whose cache is
named by the release. The files at their plain paths (``/js/app.js``) are served too, for
whatever linked them before, with ``no-cache`` and an ETag.

Text files are compressed once per process, on first use: Brotli where the browser takes it,
else gzip (``Vary: Accept-Encoding``).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

import brotli
from starlette.requests import Request
from starlette.responses import Response

from ..lru import LruCache
from .deps import run_store

mimetypes.add_type("application/manifest+json", ".webmanifest")

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
LANGUAGES = ("en", "et", "sv")
"""The client's languages, in the order a tie is broken (as ``js/i18n.js`` chooses)."""

_NOT_THE_GAMES = (
    "js/replay.js",
    "js/docs.js",
    "js/account.js",
    "js/challenges.js",
    "js/leagues.js",
    "js/puzzles.js",
    "js/mygames.js",
    "js/pastdailies.js",
    "js/rooms.js",
    "js/askname.js",
)
"""The client's scripts the game's page does not import at first (the replay viewer, loaded on
its own page, the API page's, and the account's, challenges', leagues', puzzles' and MY GAMES's
screens, imported when first opened, with the question of a name that three of them ask):
every other module is preloaded with the page."""

_CLASSIC = ("js/boot.js",)
"""The start page's classic script (not a module: it reloads the page when the modules fail
to load), which a module preload would fetch for nothing."""


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


@dataclass(frozen=True)
class Asset:
    """One file's bytes and how to send them."""

    body: bytes
    media_type: str
    etag: str

    @property
    def compressible(self) -> bool:
        """Whether it is text worth compressing."""
        return self.media_type.startswith("text/") or self.media_type in (
            "application/javascript",
            "application/json",
            "application/manifest+json",
            "image/svg+xml",
        )


class Assets:
    """The client's files, read once, and the release they make (module docstring)."""

    def __init__(self, root: Path) -> None:
        self.files: dict[str, Asset] = {}
        digest = hashlib.sha256()
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            name = path.relative_to(root).as_posix()
            body = path.read_bytes()
            hashed = hashlib.sha256(body).digest()
            digest.update(name.encode() + b"\0" + hashed)
            body = _sent(name, hashed, body)
            media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if media_type.startswith("text/") or media_type == "application/javascript":
                media_type += "; charset=utf-8"
            self.files[name] = Asset(body, media_type, _etag(body))
        self.release = digest.hexdigest()[:16]
        self.prefix = f"/r/{self.release}"
        self.modules = [
            name
            for name in self.files
            if name.startswith("js/")
            and name.endswith(".js")
            and name not in _NOT_THE_GAMES + _CLASSIC
        ]
        """The modules of the game's page (preloaded with it)."""
        self._encoded: dict[tuple[str, str], bytes] = {}
        # files of the releases before this one, as the database keeps them (release_file)
        self.older: LruCache[str, Asset] = LruCache(256)
        self._pages: dict[str, Asset] = {}
        self.worker = self._service_worker()

    # --- the start page ------------------------------------------------------------------

    def page(self, language: str) -> Asset:
        """The start page for a client of ``language`` (:func:`choose_language`): the
        release's files, all of the board's preloaded, with that language's catalog."""
        page = self._pages.get(language)
        if page is None:
            page = self._render(language)
            self._pages[language] = page
        return page

    def _render(self, language: str) -> Asset:
        html = self.files["index.html"].body.decode()
        html = re.sub(r'(href|src)="/(?!/)', rf'\1="{self.prefix}/', html)
        preloads = [
            f'<link rel="modulepreload" href="{self.prefix}/{module}">' for module in self.modules
        ]
        preloads.append(
            f'<link rel="preload" href="{self.prefix}/i18n/{language}.json" as="fetch" crossorigin>'
        )
        html = html.replace("</head>", "\n".join(preloads) + "\n</head>", 1)
        body = html.encode()
        return Asset(body, "text/html; charset=utf-8", _etag(body))

    # --- the service worker --------------------------------------------------------------

    def _service_worker(self) -> Asset:
        source = self.files["sw.js"].body.decode()
        source = source.replace("__RELEASE__", self.release)
        body = source.encode()
        return Asset(body, "application/javascript; charset=utf-8", f'"{self.release}"')

    # --- sending -------------------------------------------------------------------------

    def encoded(self, key: str, asset: Asset, accept_encoding: str) -> tuple[bytes, str | None]:
        """The body to send for ``asset`` and its ``Content-Encoding`` (None: as it is)."""
        if not asset.compressible or len(asset.body) < 256:
            return asset.body, None
        accepted = {part.split(";")[0].strip().lower() for part in accept_encoding.split(",")}
        for encoding in ("br", "gzip"):
            if encoding in accepted:
                found = self._encoded.get((key, encoding))
                if found is None:
                    found = compress(asset.body, encoding)
                    self._encoded[(key, encoding)] = found
                return found, encoding
        return asset.body, None


_SENT: LruCache[tuple[str, bytes], bytes] = LruCache(1024)
"""What :func:`without_comments` made of a file, by its name and digest: an app made again in
the same process (the tests make one for each test) does not strip the same files again."""


def _sent(name: str, digest: bytes, body: bytes) -> bytes:
    """:func:`without_comments` of a file whose SHA-256 is ``digest``, kept in :data:`_SENT`."""
    key = (name, digest)
    sent = _SENT.get(key)
    if sent is None:
        sent = without_comments(name, body)
        _SENT.put(key, sent)
    return sent


_TEMPLATE_SAFE = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\\`")
_CSS_COMMENT = re.compile(rb"/\*.*?\*/\n?", re.S)


def without_comments(name: str, body: bytes) -> bytes:
    """What a client file is sent as: a script without its comment lines (a line that is only
    a ``//`` comment, outside any template literal) and a style sheet without its ``/* */``
    comments, and a script's lines without their indentation. The comments are for whoever
    reads the source; the first visit over a phone's network does not pay for them (about a
    fifth of the compressed scripts). No line is joined, and nothing inside a line but its
    leading spaces changes, so the code is the same code."""
    if name.endswith(".css"):
        return _CSS_COMMENT.sub(b"", body)
    if not name.endswith(".js"):
        return body
    kept: list[str] = []
    in_template = False
    for line in body.decode().split("\n"):
        if not in_template:
            line = line.lstrip()  # (the indentation too: nothing in a script depends on it)
            if line.startswith("//"):
                continue
        if _TEMPLATE_SAFE.sub("", line).count("`") % 2:
            in_template = not in_template  # a template literal goes on past this line
        kept.append(line)
    return "\n".join(kept).encode()


def compress(body: bytes, encoding: str) -> bytes:
    """``body`` compressed as ``br`` (Brotli, the best it does for text) or ``gzip``."""
    if encoding == "br":
        return bytes(brotli.compress(body, mode=brotli.MODE_TEXT, quality=11))
    return gzip.compress(body, compresslevel=9, mtime=0)


def choose_language(accept_language: str) -> str:
    """The first language of an ``Accept-Language`` header that the game speaks, else English
    (weights are ignored: browsers list languages in the order of preference)."""
    for part in accept_language.split(","):
        base = part.split(";")[0].strip().lower().split("-")[0]
        if base in LANGUAGES:
            return base
    return "en"


def send(request: Request, key: str, asset: Asset, cache_control: str) -> Response:
    """``asset`` as the answer to ``request``: 304 when the browser has it (``ETag``),
    compressed when it takes that, with ``cache_control``."""
    headers = {"cache-control": cache_control, "etag": asset.etag, "vary": "Accept-Encoding"}
    if request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    assets: Assets = request.app.state.assets
    body, encoding = assets.encoded(key, asset, request.headers.get("accept-encoding", ""))
    if encoding:
        headers["content-encoding"] = encoding
    return Response(body, media_type=asset.media_type, headers=headers)


LANGUAGE_COOKIE = "magdagdon_language"
"""The language the page last chose (``js/i18n.js`` sets it: the one of SETTINGS, else the
browser's), so that the start page preloads the catalog the page will load: a page fetched by
the service worker carries the worker's ``Accept-Language``, not the page's, and SETTINGS may
have chosen another."""


def page_language(request: Request) -> str:
    """The language whose catalog the start page preloads: the page's own choice (its cookie),
    else the first of ``Accept-Language`` that the game speaks."""
    chosen = request.cookies.get(LANGUAGE_COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    return choose_language(request.headers.get("accept-language", ""))


async def start_page(request: Request) -> Response:
    """The game's page (``/``, ``/replay/<id>``), written for this release."""
    assets: Assets = request.app.state.assets
    language = page_language(request)
    return send(request, f"page:{language}", assets.page(language), REVALIDATE)


async def service_worker(request: Request) -> Response:
    """``/sw.js``: the service worker of this release (its cache is named by the release)."""
    assets: Assets = request.app.state.assets
    return send(request, "sw.js", assets.worker, REVALIDATE)


async def release_file(request: Request) -> Response:
    """``/r/<release>/<path>``: a file of this release, cached for a year; a file of one of
    the last releases before it from the database (store/releases.py: a page of that release
    still open after an upgrade loads what it had not loaded yet, never a file of another
    release); 404 for anything else."""
    assets: Assets = request.app.state.assets
    path = request.path_params["path"]
    release = request.path_params["release"]
    if path == "sw.js" or not RELEASE.fullmatch(release):
        return _not_found()
    if release == assets.release:
        asset = assets.files.get(path)
        return send(request, path, asset, IMMUTABLE) if asset is not None else _not_found()
    key = f"{release}/{path}"
    kept = assets.older.get(key)
    if kept is None:
        store = request.app.state.store
        found = await run_store(store, lambda: store.release_file(release, path))
        if found is None:
            return _not_found()
        kept = Asset(found[1], found[0], _etag(found[1]))
        assets.older.put(key, kept)
    return send(request, key, kept, IMMUTABLE)


RELEASE = re.compile(r"[0-9a-f]{16}")
"""What a release's name looks like (a hash's first 16 hex digits)."""


def _not_found() -> Response:
    return Response("Not found", status_code=404, media_type="text/plain")


async def plain_file(request: Request) -> Response:
    """A file at its plain path (``/css/app.css``): always checked again (``no-cache``), so a
    copy kept by a browser or a proxy is never used once the release changes."""
    assets: Assets = request.app.state.assets
    path = request.path_params["path"]
    if path in ("", "index.html"):
        return await start_page(request)
    if path == "sw.js":
        return await service_worker(request)
    asset = assets.files.get(path)
    if asset is None:
        return Response("Not found", status_code=404, media_type="text/plain")
    return send(request, path, asset, REVALIDATE)
