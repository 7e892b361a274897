"""The ``magdagdon`` command: ``score``, ``check`` and the commands of the other parts.

Each command imports what it needs when it runs: ``score``, ``check``, ``simulate``, ``train``
and ``play`` need none of the server's packages, and the server's commands say in one line
when the ``server`` extra is missing (docs/design.md, "Packaging")."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from . import __version__
from .engine import Board, Difficulty, NotationError, find_placement, score_board, square_label
from .engine.scoring import LineScore, ScoreBreakdown
from .logs import LOG_LEVELS

if TYPE_CHECKING:
    from .settings import Settings

Command = Callable[[argparse.Namespace], int]


class CommandError(Exception):
    """The command cannot do its work: the message says why in one line."""


class ExtraMissing(Exception):
    """The command needs an extra that is not installed: the message says which, in one line
    (exit status 2)."""


SERVER_IMPORTS: Final = (
    "fastapi",
    "uvicorn",
    "sqlalchemy",
    "alembic",
    "pydantic",
    "pydantic_settings",
    "psycopg",
    "swagger_ui_bundle",
    "brotli",
    "webauthn",
    "segno",
)
"""The modules of the ``server`` extra's packages, which the server's commands need."""


def _need_server(command: str) -> None:
    """Raise ExtraMissing if a package of the ``server`` extra is not installed (looked for,
    not imported: a command imports what it needs once it runs)."""
    from importlib.util import find_spec

    for name in SERVER_IMPORTS:
        try:
            found = find_spec(name) is not None
        except (ImportError, ValueError):  # a finder refused it, or a broken module
            found = False
        if not found:
            raise ExtraMissing(
                f"magdagdon {command} needs the server's packages ({name} is missing): "
                "pip install 'magdagdon[server]'"
            )


def _board(text: str) -> Board:
    try:
        return Board.parse(text)
    except NotationError as exc:
        raise argparse.ArgumentTypeError(f"invalid board: {exc}") from exc


def _die(text: str) -> int:
    if text not in {"1", "2", "3", "4", "5", "6"}:
        raise argparse.ArgumentTypeError(f"{text!r} is not a die value (1-6)")
    return int(text)


def _bonus_text(line: LineScore) -> str:
    return f"  {line.bonus.name.replace('_', ' ')} +{line.bonus_points}" if line.bonus else ""


def format_breakdown(board: Board, score: ScoreBreakdown) -> str:
    """The board with row sums on the right and column sums below, then the totals."""
    lines = []
    for row, line in zip(str(board).split("/"), score.rows, strict=True):
        lines.append(
            " " + "".join(f"{ch:>3}" for ch in row) + f"  | {line.total:>2}{_bonus_text(line)}"
        )
    lines.append(" " + "-" * 12)
    lines.append(" " + "".join(f"{line.total:>3}" for line in score.columns))
    for c, line in enumerate(score.columns):
        if line.bonus:
            lines.append(f"column {c + 1}:{_bonus_text(line)}")
    lines.append(f"base {score.base}")
    lines.append(f"bonuses +{score.bonuses}")
    lines.append(f"ruins {score.ruins} x 15 = -{score.ruin_penalty}")
    if score.power_penalty:
        lines.append(f"powers -{score.power_penalty}")
    lines.append(f"total {score.total}")
    return "\n".join(lines)


def cmd_score(args: argparse.Namespace) -> int:
    """Print the score breakdown of a board."""
    board: Board = args.board
    print(format_breakdown(board, score_board(board)))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Print the required minimum, whether the roll is MAGDAGDON, and a witness order."""
    board: Board = args.board
    difficulty = Difficulty(args.difficulty)
    required = difficulty.required(board.empty_count)
    print(f"board {board}  dice {' '.join(map(str, args.dice))}  {difficulty.name}")
    print(f"required: {required} (empty squares: {board.empty_count})")
    if required == 0:
        print("the board is full: the game is over")
        return 0
    witness = find_placement(board, args.dice, required)
    if witness is None:
        print("MAGDAGDON: no legal order places the required dice")
    else:
        print("not MAGDAGDON; a legal order:")
        for n, (value, square) in enumerate(witness, 1):
            print(f"  {n}. {value} on {square_label(square)}")
    return 0


def version() -> str:
    """This installation's version, from the package metadata (the source's if not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("magdagdon")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return __version__


def _settings(args: argparse.Namespace) -> Settings:
    """The settings, with ``--env-file`` (or ``MAGDAGDON_ENV_FILE``) read too. The file is
    named in the environment so that worker processes read it as well."""
    from pydantic import ValidationError

    from .settings import ENV_FILE_VARIABLE, get_settings

    env_file = getattr(args, "env_file", None)
    if env_file:
        os.environ[ENV_FILE_VARIABLE] = str(Path(env_file).resolve())
    named = os.environ.get(ENV_FILE_VARIABLE)
    if named and not Path(named).is_file():
        raise CommandError(f"the settings file {named} does not exist")
    get_settings.cache_clear()
    try:
        return get_settings()
    except ValidationError as exc:
        wrong = "; ".join(
            f"MAGDAGDON_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors()
        )
        raise CommandError(f"invalid settings: {wrong}") from None


def _prepare(args: argparse.Namespace) -> Settings:
    """The settings; logging set up, then the database waited for, checked and migrated."""
    import logging.config

    from .logs import log_config
    from .startup import StartupError, prepare_database
    from .store import Database

    settings = _settings(args)
    level = getattr(args, "log_level", None) or settings.log_level
    args.log_level = level
    logging.config.dictConfig(log_config(level))
    try:
        database = Database(settings.database_url)
    except OSError as exc:  # an SQLite file's directory cannot be made
        raise CommandError(f"cannot create the database: {exc}") from None
    try:
        prepare_database(database, settings.database_wait)
    except StartupError as exc:
        raise CommandError(str(exc)) from None
    finally:
        database.dispose()
    return settings


def announce_when_served(host: str, port: int, line: str, timeout: float = 600) -> bool:
    """Log ``line`` once the server answers ``GET /api/health`` on ``host:port`` (a worker
    serves: the address printed can be opened at once); False if it never did in ``timeout``."""
    import logging
    import time
    import urllib.request

    target = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    target = f"[{target}]" if ":" in target else target
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with opener.open(f"http://{target}:{port}/api/health", timeout=2) as r:
                if r.status == 200:
                    logging.getLogger("magdagdon.serve").info("%s", line)
                    return True
        except OSError:  # not listening yet, or no answer yet (URLError is an OSError)
            pass
        time.sleep(0.05)
    return False


def open_at(host: str, port: int, settings: Settings) -> str:
    """The address to print for people to open: ``MAGDAGDON_PUBLIC_ORIGIN``'s (the first), or
    ``http://localhost:PORT/`` for a server on a loopback or every address (browsers refuse an
    IP address as a passkey's site: at 127.0.0.1 passkeys would fail), or the host given."""
    from .settings import is_loopback_host

    if settings.public_origins:
        return settings.public_origins[0] + "/"
    if is_loopback_host(host) or host in ("0.0.0.0", "::", ""):
        return f"http://localhost:{port}/"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def trusted_proxies(settings: Settings) -> str:
    """The proxies whose forwarding headers the server believes: ``MAGDAGDON_TRUSTED_PROXIES``,
    else the ``FORWARDED_ALLOW_IPS`` of earlier releases, else none."""
    return settings.trusted_proxies.strip() or os.environ.get("FORWARDED_ALLOW_IPS", "").strip()


def cmd_serve(args: argparse.Namespace) -> int:
    """Migrate the database, then serve the game with Uvicorn."""
    _need_server("serve")
    import logging

    import uvicorn

    from .ai.strong import models_problem
    from .logs import log_config
    from .settings import is_loopback_host
    from .startup import shown_url
    from .web.protocol import PROTOCOL

    settings = _prepare(args)  # once, before any worker starts
    log = logging.getLogger("magdagdon.serve")
    problem = models_problem()
    if problem:
        log.error("%s: hints and reviews will fail and /api/ready answers 503", problem)
    line = (
        f"magdagdon {version()} is served at {open_at(args.host, args.port, settings)}  "
        f"(database: {shown_url(settings.database_url)})"
    )
    if not settings.public_origins and not is_loopback_host(args.host):
        log.warning(
            "passkeys and transfer codes work at http://localhost:%d/ only: set "
            "MAGDAGDON_PUBLIC_ORIGIN to the address players open (README, Running the server)",
            args.port,
        )
    threading.Thread(
        target=announce_when_served, args=(args.host, args.port, line), daemon=True
    ).start()
    proxies = trusted_proxies(settings)
    uvicorn.run(
        "magdagdon.web.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        http=PROTOCOL,
        server_header=False,  # "server: uvicorn" on every answer tells nobody anything useful
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
        log_config=log_config(args.log_level),
        log_level=args.log_level,
    )
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    """Bring the database to the newest revision this version knows, then exit."""
    _need_server("migrate")
    _prepare(args)
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    """Copy the live SQLite database to a file, consistently, while the server runs."""
    _need_server("backup")
    import logging.config

    from .logs import log_config
    from .store.backup import BackupError, backup_sqlite

    settings = _settings(args)
    logging.config.dictConfig(log_config(settings.log_level))
    try:
        size = backup_sqlite(settings.database_url, Path(args.path))
    except BackupError as exc:
        raise CommandError(str(exc)) from None
    print(f"backed up the database to {args.path} ({size} bytes)")
    return 0


def cmd_rotate_secret(args: argparse.Namespace) -> int:
    """Replace the daily secret from tomorrow on; say plainly what that changes."""
    _need_server("rotate-secret")
    from datetime import UTC, datetime

    from .store import Store
    from .store.db import Database

    settings = _prepare(args)
    database = Database(settings.database_url)
    try:
        first = Store(database).rotate_daily_secret(datetime.now(UTC).date())
    finally:
        database.dispose()
    print(
        f"The daily games' secret is replaced from {first.isoformat()} (UTC) on: the dailies of "
        "that day and after get dice nobody can work out from the old secret.\n"
        "Today's dailies keep their dice (every player of a daily gets the same dice, and some "
        "may be playing them): if the old secret leaked, today's dice may be known.\n"
        "Past days keep their published seeds, so every finished game still checks out.\n"
        "Backups made before now hold the old secret only; make a new one to keep the new one."
    )
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play many seeded games with a bot; print statistics (and compare with another bot)."""
    import json
    from pathlib import Path

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TimeRemainingColumn,
    )
    from rich.table import Table

    from .ai.simulate import histogram_svg, paired, run_games, summarize

    bots = [args.bot] + ([args.vs] if args.vs else [])
    console = Console(stderr=True)
    runs = {}
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=args.json or not console.is_terminal,
    ) as progress:
        for bot in bots:
            task = progress.add_task(f"{bot} {args.difficulty}", total=args.games)

            def advance(task: TaskID = task) -> None:
                progress.advance(task)

            runs[bot] = run_games(
                bot, args.difficulty, args.games, args.seed, args.processes, progress=advance
            )
    summaries = {
        bot: summarize(results, bot, args.difficulty, args.seed) for bot, results in runs.items()
    }
    comparison = paired(runs[args.bot], runs[args.vs]) if args.vs else None
    if args.plot:
        Path(args.plot).write_text(
            histogram_svg({bot: [r.score for r in runs[bot]] for bot in bots})
        )
    if args.json:
        out = dict(summaries[args.bot])
        if args.vs:
            out["vs"] = summaries[args.vs]
            out["paired"] = comparison
        print(json.dumps(out))
        return 0
    table = Table(title=f"{args.games} {args.difficulty.upper()} games, seed {args.seed}")
    table.add_column("")
    for bot in bots:
        table.add_column(bot, justify="right")
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("mean ± 95% CI", lambda s: f"{s['mean']:.1f} ± {s['ci95']:.1f}"),
        ("sd", lambda s: f"{s['sd']:.1f}"),
        *[
            (name, lambda s, name=name: f"{s['percentiles'][name]:.0f}")
            for name in ("p5", "p25", "p50", "p75", "p95")
        ],
        ("ruins per game", lambda s: f"{s['ruins_per_game']:.2f}"),
        ("STRAIGHT per game", lambda s: f"{s['bonuses_per_game']['straight']:.2f}"),
        ("FOUR per game", lambda s: f"{s['bonuses_per_game']['four']:.2f}"),
        ("TWO PAIRS per game", lambda s: f"{s['bonuses_per_game']['two_pairs']:.2f}"),
        ("powers per game", lambda s: f"{s['powers_per_game']:.2f}"),
        (
            "ms per decision p50 / p99",
            lambda s: f"{s['ms_per_decision_p50']:.2f} / {s['ms_per_decision_p99']:.2f}",
        ),
    ]
    for label, cell in rows:
        table.add_row(label, *(str(cell(summaries[bot])) for bot in bots))
    Console().print(table)
    if comparison:
        print(
            f"paired difference {args.bot} − {args.vs}: {comparison['mean_difference']:+.1f} "
            f"± {comparison['ci95']:.1f} (95% CI, same {args.games} seeds)"
        )
    if args.plot:
        print(f"histogram written to {args.plot}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Fit the strong player's weights from self-play and write the weights file."""
    from pathlib import Path

    from rich.console import Console

    from .ai.train import dumps, train

    if args.network and args.calibrate:
        print("--network and --calibrate are two commands: give one", file=sys.stderr)
        return 2
    if args.network:
        return _train_network(args)
    if args.calibrate:
        return _calibrate(args)
    console = Console(stderr=True)
    levels = tuple(Difficulty(d) for d in args.difficulty) if args.difficulty else tuple(Difficulty)
    data = train(
        args.games or TRAIN_GAMES,
        args.rounds,
        args.seed,
        processes=args.processes,
        difficulties=levels,
        progress=lambda message: console.print(message),
        search_games=search_games(args),
    )
    Path(args.output).write_text(dumps(data), encoding="utf-8")
    console.print(f"weights written to {args.output}")
    return 0


TRAIN_GAMES = 1000
"""``magdagdon train``'s games per round and difficulty by default."""
SEARCH_GAMES_PER_GAME = 2
"""``magdagdon train``'s searching games per difficulty by default, for each of ``--games``
(the shipped weights: 1,000 games a round, 2,000 searching games)."""


def search_games(args: argparse.Namespace) -> int:
    """``magdagdon train``'s games of the searching player's round per difficulty: as
    ``--search-games`` says, else twice ``--games`` (2,000 for the default 1,000), so a short
    training is short in every stage."""
    if args.search_games is not None:
        count: int = args.search_games
        return count
    return SEARCH_GAMES_PER_GAME * (args.games or TRAIN_GAMES)


NETWORK_GAMES = 2_000_000
"""``magdagdon train --network``'s self-play games by default."""


def _networks_folder(args: argparse.Namespace) -> Path:
    """Where ``train --network`` and ``train --calibrate`` write: --output as a folder, the
    package's networks folder when it is left at the weights file's default (made if need
    be)."""
    out = Path(args.output if args.output != "weights.json" else "src/magdagdon/ai/networks")
    out.mkdir(parents=True, exist_ok=True)
    return out


CALIBRATION_GAMES = 1000
"""``magdagdon train --calibrate``'s games per difficulty by default."""


def _calibrate(args: argparse.Namespace) -> int:
    """Fit the offsets of the hints' expected scores (:mod:`magdagdon.ai.calibration`) on
    games of the coach, and write the table (``calibration.json`` in the --output folder)."""
    import json
    from multiprocessing import get_context

    from .ai.calibration import FILE, fit, offsets_of

    levels = [Difficulty(d) for d in args.difficulty] if args.difficulty else list(Difficulty)
    games = args.games or CALIBRATION_GAMES
    out = _networks_folder(args)
    if args.processes > 1:
        with get_context("spawn").Pool(args.processes) as pool:
            data = fit(games, args.seed, levels, mapper=pool.imap)
    else:
        data = fit(games, args.seed, levels)
    (out / FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for level in levels:
        entry = data[level.value]
        offsets = offsets_of(entry["decisions"], entry["means"])
        print(f"{level.value}: offsets by empty squares 16..1: {offsets[16:0:-1]}")
    print(f"written to {out / FILE}")
    return 0


def _train_network(args: argparse.Namespace) -> int:
    """Train one difficulty's n-tuple network; write it, its learning curve and provenance."""
    import json
    import shlex
    from pathlib import Path

    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from .ai.ntrain import Run, curve_svg, train_network
    from .ai.ntuple import encode_network, network_file, powers_file

    if not args.difficulty or len(args.difficulty) != 1:
        print("--network trains one difficulty: give one --difficulty", file=sys.stderr)
        return 2
    difficulty = Difficulty(args.difficulty[0])
    games = args.games or NETWORK_GAMES
    out = _networks_folder(args)
    name = powers_file(difficulty) if args.powers else network_file(difficulty)
    checkpoint = out / f"{difficulty.value}{'-powers' if args.powers else ''}.checkpoint"
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,}/{task.total:,} games"),
        TextColumn("{task.fields[curve]}"),
        TimeRemainingColumn(),
        transient=False,
    ) as progress:
        task = progress.add_task(f"{difficulty.value} network", total=games, curve="")

        def report(run: Run) -> None:
            _, mean, ruins = run.curve[-1]
            curve = f"mean {mean:.1f}, ruins {ruins:.2f}"
            if run.powers:
                curve += f", powers {run.powers_used / run.done:.2f}"
            progress.update(task, completed=run.done, curve=curve)

        run = train_network(
            difficulty,
            games,
            args.seed,
            learning=args.learning,
            masked=args.masked,
            powers=args.powers,
            checkpoint=checkpoint,
            progress=report,
        )
    (out / name).write_bytes(encode_network(run.weights))
    curve = Path(args.curve or f"{difficulty.value}-network-curve.svg")
    curve.parent.mkdir(parents=True, exist_ok=True)
    curve.write_text(curve_svg(run), encoding="utf-8")
    meta_path = out / "networks.json"
    meta = json.loads(meta_path.read_text("utf-8")) if meta_path.exists() else {}
    meta.setdefault("coach", {})
    meta.setdefault("networks", {})[name] = {
        "command": "magdagdon train --network "
        + shlex.join(
            [
                "--difficulty",
                difficulty.value,
                "--games",
                str(games),
                "--seed",
                str(args.seed),
                "--learning",
                run.learning,
                *(["--masked"] if run.masked else []),
                *(["--powers"] if run.powers else []),
            ]
        ),
        "curve": curve.as_posix(),
        "games": run.games,
        "seed": run.seed,
        "learning": run.learning,
        "masked": run.masked,
        "powers": run.powers,
        "powers_per_game": round(run.powers_used / run.games, 3),
        "alpha": list(run.alpha),
        "seconds": round(run.seconds),
        "last_chunk_mean": run.curve[-1][1],
    }
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    checkpoint.unlink()
    print(f"{out / name} written ({run.done:,} games, {run.seconds:.0f} s)", file=sys.stderr)
    return 0


def _bot(text: str) -> str:
    """A bot for ``simulate``: a built-in name or a loadable ``package.module:Class``."""
    from .ai.registry import make_player

    try:
        make_player(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return text


PLAY_NEEDS: Final = "magdagdon play needs Textual: pip install 'magdagdon[tui]'"


def _print_checked(checked: Any, out: str) -> None:
    refused = ", ".join(f"{n} {why}" for why, n in sorted(checked.refused.items()))
    print(
        f"checked {checked.seen} puzzles in {checked.seconds:.0f} s: {len(checked.kept)} kept "
        f"-> {out}; refused: {refused or 'none'}"
    )


def cmd_puzzles(args: argparse.Namespace) -> int:
    """Find puzzles: in the coach's own games (a file) or in a server's finished games."""
    from pathlib import Path

    from . import mining

    if args.action == "check":
        if not args.input or not args.out:
            raise CommandError("check reads a file and writes one: give --in FILE and --out FILE")
        checked = mining.check_puzzles(
            mining.read_puzzles(Path(args.input)), args.check_seed, args.processes
        )
        mining.write_puzzles(checked.kept, Path(args.out))
        _print_checked(checked, args.out)
        return 0
    if args.self_play is not None:
        if not args.out:
            raise CommandError("--self-play writes a file: give --out FILE.jsonl.gz")
        levels = [Difficulty(d) for d in (args.difficulty or [d.value for d in Difficulty])]
        mined = mining.mine_self_play(levels, args.self_play, args.seed, args.processes)
        print(
            f"{len(mined.puzzles)} puzzles from {mined.games} games in {mined.seconds:.0f} s "
            f"({mined.per_cpu_minute:.1f} puzzles per CPU-minute)"
        )
        found = mined.puzzles
        if args.check:
            checked = mining.check_puzzles(found, args.check_seed, args.processes, False)
            _print_checked(checked, args.out)
            found = checked.kept
        mining.write_puzzles(found, Path(args.out))
        print(f"{len(found)} puzzles -> {args.out}")
        return 0
    _need_server("puzzles mine")
    settings = _settings(args)
    from .store import Database, Store

    database = Database(settings.database_url)
    database.migrate()
    store = Store(database)
    start = time.perf_counter()
    searched, public, own = mining.mine_database(store, args.limit)
    database.dispose()
    print(
        f"searched {searched} finished games in {time.perf_counter() - start:.0f} s: "
        f"{public} public puzzles and {own} players' own added"
    )
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play in the terminal (Textual, the ``tui`` extra); high scores in the user data dir."""
    try:
        import textual  # noqa: F401
    except ImportError:
        print(PLAY_NEEDS, file=sys.stderr)
        return 1
    from .tui.app import run

    return run(args.difficulty, args.seed)


def _at_least(text: str, minimum: int) -> int:
    value = int(text)
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}")
    return value


def _positive(text: str) -> int:
    return _at_least(text, 1)


def _count(text: str) -> int:
    return _at_least(text, 0)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="magdagdon", description="MAGDAGDON, the CUBIRI dice puzzle."
    )
    parser.add_argument("--version", action="version", version=f"magdagdon {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("score", help="print the score breakdown of a board")
    p.add_argument("board", type=_board, help="board notation, e.g. 3456/3456/3456/3456")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("check", help="is a roll MAGDAGDON on a board? print a legal order")
    p.add_argument("board", type=_board, help="board notation, e.g. 12../.3X./..../....")
    p.add_argument("--dice", type=_die, nargs="+", required=True, metavar="N", help="1 to 4 dice")
    p.add_argument(
        "--difficulty", choices=[d.value for d in Difficulty], default=Difficulty.PEACEFUL.value
    )
    p.set_defaults(func=cmd_check)

    def env_file(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--env-file",
            metavar="FILE",
            help="read MAGDAGDON_* settings from this file too (the environment wins)",
        )

    p = sub.add_parser("serve", help="serve the game (SQLite in the user data directory)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=_positive, default=1, help="server processes (default 1)")
    p.add_argument(
        "--log-level", choices=LOG_LEVELS, help="default: MAGDAGDON_LOG_LEVEL, else info"
    )
    env_file(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("migrate", help="bring the database to this version's schema and exit")
    env_file(p)
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser(
        "backup", help="copy the SQLite database to PATH while the server runs (not PostgreSQL)"
    )
    p.add_argument("path", metavar="PATH", help="the backup file (replaced if it exists)")
    env_file(p)
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser(
        "rotate-secret",
        help="replace the daily games' secret key from tomorrow (UTC) on, after a leak",
    )
    env_file(p)
    p.set_defaults(func=cmd_rotate_secret)

    p = sub.add_parser("puzzles", help="find puzzles in a server's games or the coach's own")
    p.add_argument(
        "action",
        choices=["mine", "check"],
        help="mine: find new puzzles; check: a file's puzzles under the puzzle check",
    )
    p.add_argument(
        "--self-play", type=_positive, metavar="N", help="in N coach's games per difficulty"
    )
    p.add_argument("--seed", type=int, default=0, help="with --self-play: the games' seed")
    p.add_argument(
        "--difficulty",
        action="append",
        choices=[d.value for d in Difficulty],
        help="with --self-play: only this difficulty (repeatable; default all)",
    )
    p.add_argument(
        "--out", help="with --self-play or check: the file to write (.jsonl or .jsonl.gz)"
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="with --self-play: keep one puzzle per position, each checked by play-outs",
    )
    p.add_argument("--in", dest="input", help="with check: the puzzles to check (a file)")
    p.add_argument("--check-seed", type=int, default=0, help="the seed of the check's play-outs")
    p.add_argument("--processes", type=_positive, default=1, help="worker processes (e.g. 2)")
    p.add_argument(
        "--limit",
        type=_positive,
        default=200,
        help="without --self-play: search at most this many of the server's new games",
    )
    env_file(p)
    p.set_defaults(func=cmd_puzzles)

    p = sub.add_parser("play", help="play in the terminal (needs the tui extra)")
    p.add_argument("--difficulty", choices=[d.value for d in Difficulty], default="peaceful")
    p.add_argument("--seed", type=int, help="the dice's seed (default: a random one)")
    p.set_defaults(func=cmd_play)

    from .ai.registry import PLAYERS

    p = sub.add_parser("simulate", help="play many seeded games with a bot and print statistics")
    bots = f"{', '.join(PLAYERS)}, or package.module:Class (a bot of your own)"
    p.add_argument("--bot", type=_bot, default="greedy", help=bots)
    p.add_argument("--difficulty", choices=[d.value for d in Difficulty], default="peaceful")
    p.add_argument("--games", type=_positive, default=100)
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (games use seed, index)")
    p.add_argument("--vs", type=_bot, help="also play this bot on the same seeds")
    p.add_argument("--plot", metavar="FILE.svg", help="write the score histogram(s) as SVG")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--processes", type=_positive, default=1, help="worker processes (e.g. 2)")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "train",
        help="fit the strong player's weights from self-play (reproducible from a seed)",
        description="Fit the strong player's weights from self-play, in two stages per "
        "difficulty: --rounds rounds of --games games of its one-move policy (0.02-0.06 CPU s "
        "a game), then a round of --search-games games of the searching player itself "
        "(0.07-0.22 CPU s a game; twice --games by default), whose games alone give the final "
        "weights. The defaults (1,000 games, 3 rounds, 2,000 searching games, three "
        "difficulties) take about 22 CPU minutes and fit the shipped weights; --games 20 "
        "--rounds 1 about 20 CPU seconds, 3 with --search-games 0. --processes shares each "
        "stage's games among processes. (--network and --calibrate: see their options.)",
    )
    p.add_argument(
        "--games",
        type=_positive,
        help="games per round and difficulty (default 1000; 0.02-0.06 CPU s each); with "
        "--network, self-play games (default 2,000,000)",
    )
    p.add_argument(
        "--network",
        action="store_true",
        help="train one difficulty's n-tuple network (the coach's) in C, resumable from its "
        "checkpoint; --output is then a folder (default src/magdagdon/ai/networks)",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="fit what the hints' expected scores are corrected by, from --games games of the "
        "coach a difficulty (default 1,000) on calibration seeds; --output is a folder as "
        "with --network",
    )
    p.add_argument(
        "--learning",
        choices=["td", "tc"],
        default="td",
        help="with --network: plain TD(0) steps (default) or temporal coherence",
    )
    p.add_argument(
        "--masked",
        action="store_true",
        help="with --network: also read the rows with the values each empty square allows",
    )
    p.add_argument(
        "--powers",
        action="store_true",
        help="with --network: self-play with the Majda Powers, a network per number of powers "
        "left (written as <difficulty>-powers.nt)",
    )
    p.add_argument(
        "--curve",
        help="with --network: where to write the learning curve (SVG; default "
        "<difficulty>-network-curve.svg)",
    )
    p.add_argument("--rounds", type=_positive, default=3, help="rounds of self-play")
    p.add_argument(
        "--search-games",
        type=_count,
        default=None,
        help="games of the last round per difficulty, played by the searching player "
        "(0.07-0.22 CPU s each, 3-5 times a self-play game; default twice --games, 2,000 for "
        "the default 1,000; 0: no such round)",
    )
    p.add_argument("--seed", type=int, default=0, help="training seed (never an evaluation one)")
    p.add_argument(
        "--difficulty",
        action="append",
        choices=[d.value for d in Difficulty],
        help="only this difficulty (repeatable; default all)",
    )
    p.add_argument("--processes", type=_positive, default=1, help="worker processes (e.g. 2)")
    p.add_argument(
        "--output",
        default="weights.json",
        help="file to write (the shipped one is src/magdagdon/ai/weights.json)",
    )
    p.set_defaults(func=cmd_train)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "check" and len(args.dice) > 4:
        parser.error("--dice takes at most 4 dice")
    func: Command = args.func
    try:
        return func(args)
    except CommandError as exc:
        print(f"magdagdon: {exc}", file=sys.stderr)
        return 1
    except ExtraMissing as exc:
        print(exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
