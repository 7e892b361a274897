"""``magdagdon puzzles mine``: puzzles found in the coach's own games and in a server's games.

Self-play (``--self-play N --seed S``) plays the coach's games ``game_seed(S, i)`` for ``i <
N`` in each difficulty asked and keeps every turn where one plan stands out
(:func:`magdagdon.ai.puzzles.analyse`); the same command gives the same puzzles, in the same
order, byte for byte (``--out FILE.jsonl.gz``: gzip without a timestamp). With ``--check``
the puzzles found then go through :func:`check_puzzles`, as ``magdagdon puzzles check --in
FILE`` puts an existing set: one puzzle per position, no forced answer, each position
analysed again by today's coach, and the best plan kept only when the paired play-outs of
:mod:`magdagdon.ai.puzzlecheck` find it significantly ahead of its rivals (the check's seed
``--check-seed``; the same command gives the same file). The starter set shipped in the
package is made so (its command is in BENCHMARKS.md).

A server's database (the server's settings, ``--env-file``): every finished game not searched
yet, newest first (``--limit``; a daily once its day is over), yields its public puzzles (the
turns where the player's plan lost the most and one plan stands out, kept only when the
puzzle check holds, as a starter puzzle's) and the player's own
("your puzzles": the same turns with a smaller margin, rated apart; a challenge's game only
these); the game is then marked searched. A systemd timer can run it every hour
(``deploy/magdagdon-puzzles.timer``).
"""

from __future__ import annotations

import gzip
import io
import json
import logging
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from multiprocessing import get_context
from pathlib import Path

from .ai import puzzles as P
from .ai.players import Player
from .ai.strong import StrongPlayer
from .engine import Difficulty

log = logging.getLogger("magdagdon.puzzles")

OWN_MARGIN = 2.0
"""A turn of the player's own game is one of their puzzles when its best plan beats the next
by this much (and their plan lost at least :data:`~magdagdon.ai.puzzles.MARGIN`)."""


def _mine_one(task: tuple[str, int, int]) -> list[dict[str, object]]:
    difficulty, seed, index = task
    found = []
    player, deep = P.analyst(), P._deep_player()
    for game, source in P.self_play_game(Difficulty(difficulty), seed, index):
        puzzle = P.analyse(game, player=player, deep=deep, source=source)
        if puzzle is not None:
            found.append(puzzle.to_dict())
    return found


@dataclass
class Mined:
    """What a mining run found, and how fast."""

    puzzles: list[dict[str, object]]
    games: int
    seconds: float
    cpu_seconds: float

    @property
    def per_cpu_minute(self) -> float:
        """Puzzles found per CPU-minute."""
        return 60 * len(self.puzzles) / max(self.cpu_seconds, 1e-9)


def mine_self_play(
    difficulties: Iterable[Difficulty], games: int, seed: int, processes: int = 1
) -> Mined:
    """The puzzles of ``games`` coach's games per difficulty (module docstring)."""
    tasks = [(d.value, seed, i) for d in difficulties for i in range(games)]
    start, cpu = time.perf_counter(), time.process_time()
    found: list[dict[str, object]] = []
    if processes > 1:
        with get_context("spawn").Pool(processes) as pool:
            for part in pool.imap(_mine_one, tasks):
                found.extend(part)
        import resource

        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = children.ru_utime + children.ru_stime
    else:
        for task in tasks:
            found.extend(_mine_one(task))
        used = time.process_time() - cpu
    return Mined(found, len(tasks), time.perf_counter() - start, used)


def _check_one(
    task: tuple[dict[str, object], int, bool],
) -> tuple[dict[str, object] | None, str]:
    """One puzzle (analysed again, unless it was just mined) checked: (the puzzle with its
    check, "") or (None, why not)."""
    from .ai import puzzlecheck as C

    data, seed, reanalyse = task
    old = P.Puzzle.from_dict(data)
    game = old.position.game()
    player = _worker_players()
    found = P.plans(game, player[0])
    puzzle: P.Puzzle | None = old
    if reanalyse:
        puzzle = P.analyse(game, player=player[0], deep=player[1], source=old.source, found=found)
    if puzzle is None:
        return None, "no longer stands out"
    checked = C.check(puzzle.position, puzzle.best, found=found, seed=seed, bot=player[2])
    if not checked.holds:
        return None, checked.reason
    return replace(puzzle, check=checked.to_dict()).to_dict(), ""


_PLAYERS: list[tuple[StrongPlayer, StrongPlayer, Player]] = []


def _worker_players() -> tuple[StrongPlayer, StrongPlayer, Player]:
    """The analyst, the deeper search and the play-out bot of this process (made once: their
    memories are worth keeping from one puzzle to the next)."""
    if not _PLAYERS:
        from .ai.registry import make_player

        _PLAYERS.append((P.analyst(), P._deep_player(), make_player("ntuple")))
    return _PLAYERS[0]


@dataclass
class Checked:
    """What :func:`check_puzzles` kept, what it refused and why, and how fast."""

    kept: list[dict[str, object]]
    seen: int
    refused: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def check_puzzles(
    found: Iterable[dict[str, object]], seed: int = 0, processes: int = 1, reanalyse: bool = True
) -> Checked:
    """A set of puzzles (:meth:`~magdagdon.ai.puzzles.Puzzle.to_dict`'s form) under the rules
    of issue 44: the first of each position (:func:`~magdagdon.ai.puzzlecheck.position_key`)
    kept, each analysed again by today's coach (:func:`~magdagdon.ai.puzzles.analyse`: it
    must still stand out, and its best plan may change; not with ``reanalyse`` False, for
    puzzles just mined), then checked by paired play-outs
    from ``seed`` (:func:`~magdagdon.ai.puzzlecheck.check`, which also refuses a forced
    answer); in the order given, the same for the same input and seed."""
    from .ai import puzzlecheck as C

    start = time.perf_counter()
    refused: Counter[str] = Counter()
    seen: set[tuple[object, ...]] = set()
    tasks = []
    total = 0
    for data in found:
        total += 1
        key = C.position_key(P.Position.from_dict(data["position"]))  # type: ignore[arg-type]
        if key in seen:
            refused["repeat"] += 1
            continue
        seen.add(key)
        tasks.append((data, seed, reanalyse))
    kept: list[dict[str, object]] = []
    if processes > 1:
        with get_context("spawn").Pool(processes) as pool:
            results = list(pool.imap(_check_one, tasks))
    else:
        results = [_check_one(task) for task in tasks]
    for puzzle, why in results:
        if puzzle is None:
            refused[why] += 1
        else:
            kept.append(puzzle)
    return Checked(kept, total, refused, time.perf_counter() - start)


def read_puzzles(path: Path) -> list[dict[str, object]]:
    """A file of :func:`write_puzzles` (gzipped when it ends in .gz)."""
    raw = path.read_bytes()
    text = gzip.decompress(raw).decode() if path.suffix == ".gz" else raw.decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_puzzles(found: list[dict[str, object]], path: Path) -> None:
    """One puzzle a line (JSON), gzipped without a timestamp when ``path`` ends in .gz."""
    text = "".join(json.dumps(p, sort_keys=True, separators=(",", ":")) + "\n" for p in found)
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as out:
            out.write(text.encode())
        path.write_bytes(buffer.getvalue())
    else:
        path.write_text(text, encoding="utf-8")


def mine_database(
    store: object, limit: int, player_id: int | None = None, open_day: date | None = None
) -> tuple[int, int, int]:
    """Search up to ``limit`` finished games of a server not searched yet (a player's, or
    anybody's): (games searched, public puzzles added, own puzzles added). A game that fails
    is logged and left for the next run. A daily waits until its day is over (a day before
    ``open_day``, by default :func:`~magdagdon.store.first_open_day` of now)."""
    from .store import Store, first_open_day

    assert isinstance(store, Store)
    day = open_day or first_open_day(datetime.now(UTC))
    searched = public = own = 0
    for game_id, _ in store.unmined_games(player_id, limit, day):
        try:
            found_public, found_own = puzzles_of_game(store, game_id)
            added = store.store_mined(game_id, found_public, found_own, day)
        except Exception:
            log.exception("searching the game %s for puzzles failed", game_id)
            continue
        searched += 1
        public += added[0]
        own += added[1]
    return searched, public, own


def puzzles_of_game(store: object, game_id: str) -> tuple[list[P.Puzzle], list[P.Puzzle]]:
    """A finished game's public puzzles and its player's own."""
    from .store import Store

    assert isinstance(store, Store)
    try:
        row = store.finished_game(game_id)
    except LookupError:
        return [], []
    return mine_game(row.game, game_id)


def mine_game(game: object, game_id: str) -> tuple[list[P.Puzzle], list[P.Puzzle]]:
    """The public puzzles and the player's own of a finished game (its turns where the
    player's plan lost at least :data:`~magdagdon.ai.puzzles.MARGIN`, the biggest losses
    first, three at most of each). A public one is kept only when the puzzle check holds
    (:func:`~magdagdon.ai.puzzlecheck.check`, from seed 0, as the starter set's: its figures
    stored with it); a player's own is their own game's lesson, kept unchecked."""
    from .ai import puzzlecheck as C
    from .ai.registry import make_player
    from .engine import Game

    assert isinstance(game, Game)
    player, deep = P.analyst(), P._deep_player()
    bot: Player | None = None
    public: list[P.Puzzle] = []
    own: list[P.Puzzle] = []
    for loss, start, found in P.player_losses(game, player):
        if loss < P.MARGIN or len(own) == 3:  # (a public puzzle is one of the own ones)
            break
        mine = P.analyse(start, margin=OWN_MARGIN, deep=deep, source="game", found=found)
        if mine is not None:
            own.append(mine)
            if mine.margin >= P.MARGIN:
                bot = bot or make_player(C.BOT)
                checked = C.check(mine.position, mine.best, found=found, seed=0, bot=bot)
                if checked.holds:
                    public.append(replace(mine, check=checked.to_dict()))
    return public, own
