"""The ``magdagdon`` command: ``score``, ``check`` and the commands of the other parts."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .engine import Board, Difficulty, NotationError, find_placement, score_board, square_label
from .engine.scoring import LineScore, ScoreBreakdown

Command = Callable[[argparse.Namespace], int]


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
    required = min(difficulty.minimum, board.empty_count)
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


def cmd_serve(args: argparse.Namespace) -> int:
    """Migrate the database, then serve the game with Uvicorn."""
    import uvicorn
    from sqlalchemy import make_url

    from .settings import get_settings
    from .store import Database

    settings = get_settings()
    database = Database(settings.database_url)
    database.migrate()  # once, before any worker starts
    database.dispose()
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"MAGDAGDON is served at http://{host}:{args.port}/  (database: {shown})", flush=True)
    uvicorn.run(
        "magdagdon.web.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=True,
        log_level=args.log_level,
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

    console = Console(stderr=True)
    levels = tuple(Difficulty(d) for d in args.difficulty) if args.difficulty else tuple(Difficulty)
    data = train(
        args.games,
        args.rounds,
        args.seed,
        processes=args.processes,
        difficulties=levels,
        progress=lambda message: console.print(message),
        search_games=args.search_games,
    )
    Path(args.output).write_text(dumps(data), encoding="utf-8")
    console.print(f"weights written to {args.output}")
    return 0


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

    p = sub.add_parser("serve", help="serve the game (SQLite in the user data directory)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=_positive, default=1, help="server processes (default 1)")
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(func=cmd_serve)

    from .ai.players import PLAYERS

    p = sub.add_parser("simulate", help="play many seeded games with a bot and print statistics")
    p.add_argument("--bot", choices=list(PLAYERS), default="greedy")
    p.add_argument("--difficulty", choices=[d.value for d in Difficulty], default="peaceful")
    p.add_argument("--games", type=_positive, default=100)
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (games use seed, index)")
    p.add_argument("--vs", choices=list(PLAYERS), help="also play this bot on the same seeds")
    p.add_argument("--plot", metavar="FILE.svg", help="write the score histogram(s) as SVG")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--processes", type=_positive, default=1, help="worker processes (e.g. 2)")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "train", help="fit the strong player's weights from self-play (reproducible from a seed)"
    )
    p.add_argument("--games", type=_positive, default=1000, help="games per round and difficulty")
    p.add_argument("--rounds", type=_positive, default=3, help="rounds of self-play")
    p.add_argument(
        "--search-games",
        type=_count,
        default=2000,
        help="games of the last round, played by the searching player (0: no such round)",
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
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
