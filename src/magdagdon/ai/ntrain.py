"""Training the n-tuple networks (:mod:`magdagdon.ai.ntuple`) by self-play: ``magdagdon train
--network``.

The C module plays the games: each turn the greedy player takes the afterstate of the best
score + value (a RUIN when the roll cannot be placed; no power is used), and TD(0) moves the
previous afterstate's value towards the score gained plus the new afterstate's value (0 at
the end of the game). The step falls geometrically from ``alpha0`` to ``alpha1`` over the
run, divided over the 57 weights read. The dice come from the training seed's own generator
(splitmix64), never from the engine's evaluation seeds.

With ``powers`` (issue 36) the self-play uses the Majda Powers as the coach's options do
(a die changed by 1, a REROLL in MAGDAGDON: ``power_choice`` in the C module, against a
Python reference in the tests), and the value is a network per number of powers left, so it
learns what a power in hand is worth on each board; each game's rolls come from a stream of
its own, so two networks meet the same rolls from the same state.

A run goes in chunks: after each, the progress is reported, the learning curve (mean final
score of the chunk's games) grows, and a checkpoint may be written, from which the same run
resumes, giving the same weights, bit for bit, as a run that was never interrupted.
"""

from __future__ import annotations

import json
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import Difficulty
from ..engine.native import native
from .ntuple import SIZE, SIZE_MASKED, new_weights

ALPHA = {"td": (0.1, 0.01), "tc": (1.0, 1.0)}
"""Per way of learning, the step at the start and at the end of a run (before it is divided
over the 57 weights read): plain TD(0) falls from 0.1 to 0.01; with temporal coherence each
weight's step is also scaled by its own |net error| / absolute error, which anneals it."""
LEARNING = ("td", "tc")


@dataclass
class Run:
    """A training run, in progress or done."""

    difficulty: Difficulty
    games: int
    seed: int
    learning: str = "td"
    alpha: tuple[float, float] = ALPHA["td"]
    masked: bool = False
    """A masked network (the rows read with the values an empty square allows, too)."""
    powers: bool = False
    """Self-play with the powers, a network per number of powers left (concatenated)."""
    margin: float = 0.0
    """With powers: what a power on a placeable roll must beat playing it as it is by."""
    done: int = 0
    state: int = 0
    seconds: float = 0.0
    curve: list[tuple[int, float, float]] = field(default_factory=list)
    """(games played, mean final score, ruins per game) of each chunk."""
    powers_used: int = 0
    """With powers: the powers the run's games used."""
    weights: array[float] = field(default_factory=new_weights, repr=False)
    errors: array[float] = field(default_factory=new_weights, repr=False)
    """Temporal coherence: each weight's net error."""
    absolute: array[float] = field(default_factory=new_weights, repr=False)
    """Temporal coherence: each weight's absolute error."""

    def header(self) -> dict[str, Any]:
        """Everything but the weights, as JSON."""
        return {
            "difficulty": self.difficulty.value,
            "games": self.games,
            "seed": self.seed,
            "learning": self.learning,
            "alpha": list(self.alpha),
            "masked": self.masked,
            "powers": self.powers,
            "margin": self.margin,
            "powers_used": self.powers_used,
            "done": self.done,
            "state": self.state,
            "seconds": round(self.seconds, 1),
            "curve": self.curve,
        }

    def save(self, path: Path) -> None:
        """Write a checkpoint (a JSON line, then the float32 weights, net and absolute
        errors)."""
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            f.write(json.dumps(self.header()).encode() + b"\n")
            for part in (self.weights, self.errors, self.absolute):
                f.write(part.tobytes())
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Run:
        """A run from its checkpoint."""
        data = path.read_bytes()
        line, _, raw = data.partition(b"\n")
        h = json.loads(line)
        size = (SIZE_MASKED if h.get("masked") else SIZE) * networks(
            Difficulty(h["difficulty"]), h.get("powers", False)
        )
        if len(raw) != 3 * 4 * size:
            raise ValueError(f"{path}: a checkpoint of other tuples")
        parts = []
        for i in range(3):
            part = array("f")
            part.frombytes(raw[i * 4 * size : (i + 1) * 4 * size])
            parts.append(part)
        return cls(
            Difficulty(h["difficulty"]),
            h["games"],
            h["seed"],
            h["learning"],
            (h["alpha"][0], h["alpha"][1]),
            h.get("masked", False),
            h.get("powers", False),
            h.get("margin", 0.0),
            h["done"],
            h["state"],
            h["seconds"],
            [(int(g), float(m), float(r)) for g, m, r in h["curve"]],
            h.get("powers_used", 0),
            *parts,
        )


def networks(difficulty: Difficulty, powers: bool) -> int:
    """How many networks a run holds: one, or with ``powers`` one per number of powers left."""
    return difficulty.powers + 1 if powers else 1


def train_network(
    difficulty: Difficulty,
    games: int,
    seed: int,
    *,
    learning: str = "td",
    masked: bool = False,
    powers: bool = False,
    margin: float = 0.0,
    chunk: int = 20_000,
    checkpoint: Path | None = None,
    progress: Callable[[Run], None] | None = None,
) -> Run:
    """Train (or resume from ``checkpoint``, when it holds the same run) a network of
    ``difficulty`` for ``games`` self-play games from ``seed``, ``learning`` by temporal
    coherence (``tc``) or plain TD(0) (``td``); ``masked``: a masked network (see
    :data:`~.ntuple.SIZE_MASKED`); ``powers``: self-play with the powers, a network per
    number of powers left (TD(0) only), a power on a placeable roll taken when it beats
    playing the roll as it is by ``margin``."""
    module = native("magdagdon.ai._fast")
    if module is None:
        raise RuntimeError("training needs the C accelerator (magdagdon.ai._fast)")
    if learning not in ALPHA:
        raise ValueError(f"unknown learning {learning!r}: {', '.join(LEARNING)}")
    if powers and learning != "td":
        raise ValueError("self-play with the powers learns by TD(0): --learning td")
    zeros = new_weights(masked) * networks(difficulty, powers)
    run = Run(
        difficulty,
        games,
        seed,
        learning,
        ALPHA[learning],
        masked,
        powers,
        margin,
        state=seed & (2**64 - 1),
        weights=zeros,
        errors=array("f", zeros),
        absolute=array("f", zeros),
    )
    if checkpoint is not None and checkpoint.exists():
        found = Run.load(checkpoint)
        same = (
            found.difficulty,
            found.games,
            found.seed,
            found.learning,
            found.alpha,
            found.masked,
            found.powers,
            found.margin,
        )
        if same != (difficulty, games, seed, learning, ALPHA[learning], masked, powers, margin):
            raise ValueError(f"{checkpoint} holds another run: {found.header()}")
        run = found
    buffer = bytearray(run.weights.tobytes())
    errors = bytearray(run.errors.tobytes())
    absolute = bytearray(run.absolute.tobytes())
    extra: tuple[bool, bytearray, bytearray] | tuple[()] = (
        (True, errors, absolute) if learning == "tc" else ()
    )
    while run.done < games:
        n = min(chunk, games - run.done)
        start = time.perf_counter()
        if powers:
            state, total, ruins, used = module.nt_train_powers(
                buffer,
                difficulty.minimum,
                difficulty.powers,
                difficulty.penalties,
                n,
                run.state,
                *run.alpha,
                run.done,
                games,
                margin,
            )
            run.powers_used += used
        else:
            state, total, ruins = module.nt_train(
                buffer, difficulty.minimum, n, run.state, *run.alpha, run.done, games, *extra
            )
        run.seconds += time.perf_counter() - start
        run.state = state
        run.done += n
        run.curve.append((run.done, round(total / n, 2), round(ruins / n, 3)))
        for name, raw in (("weights", buffer), ("errors", errors), ("absolute", absolute)):
            part = array("f")
            part.frombytes(bytes(raw))
            setattr(run, name, part)
        if checkpoint is not None:
            run.save(checkpoint)
        if progress is not None:
            progress(run)
    return run


def curve_svg(run: Run, width: int = 480, height: int = 240) -> str:
    """The learning curve as an SVG: the mean final score of each chunk of self-play games."""
    points = [(g, m) for g, m, _ in run.curve]
    if not points:
        return ""
    low = min(m for _, m in points)
    high = max(m for _, m in points)
    span = (high - low) or 1.0
    pad = 40

    def xy(g: int, m: float) -> str:
        x = pad + (width - 2 * pad) * g / run.games
        y = height - pad - (height - 2 * pad) * (m - low) / span
        return f"{x:.1f},{y:.1f}"

    line = " ".join(xy(g, m) for g, m in points)
    title = (
        f"{run.difficulty.value}: mean final score of the self-play games, "
        f"{run.games:,} games, seed {run.seed}, {run.learning}"
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">\n'
        f"<title>{title}</title>\n"
        f'<rect width="{width}" height="{height}" fill="white"/>\n'
        f'<text x="{pad}" y="20">{title}</text>\n'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
        f'stroke="black"/>\n'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>\n'
        f'<text x="{pad - 4}" y="{pad + 4}" text-anchor="end">{high:.0f}</text>\n'
        f'<text x="{pad - 4}" y="{height - pad}" text-anchor="end">{low:.0f}</text>\n'
        f'<text x="{width - pad}" y="{height - pad + 16}" text-anchor="end">'
        f"{run.games:,} games</text>\n"
        f'<polyline points="{line}" fill="none" stroke="#c33" stroke-width="1.5"/>\n'
        "</svg>\n"
    )


__all__ = ["ALPHA", "LEARNING", "Run", "curve_svg", "networks", "train_network"]
