"""The learned coach's value: an n-tuple network over afterstates (Szubert & Jaśkowski 2014).

A square is in one of 8 states (0 empty, 1–6, 7 RUIN: the engine's codes). Seven tuples of
squares (:data:`SHAPES`: an outer and an inner row, a corner, an edge and a centre 2×2
square, an edge and a middle 2×3 rectangle) are each read under the 8 symmetries of the
square; a tuple's states, as base-8 digits, index its table, shared by the 8 readings. A
bias by the number of empty squares is added. The 57 weights read sum to the network's value
of an afterstate: the expected change of the board's score still to come (0 on a full board).
A *masked* network (:data:`SIZE_MASKED` weights) also reads the outer and the inner row with
24 codes a square, an empty square coded by the values it may still take, before the bias:
at the same number of self-play games it learned about five times as fast on NIGHTMARE.
The learned value of an afterstate (:class:`NTupleValue`) is its score plus that, plus what
the powers held are worth.

This module is the exact reference of the C code (``magdagdon.ai._fast``, ``nt_*``): the
weights are float32, the sum a double accumulated in the same order, so both give the same
bits (the tests compare them on random boards). The networks are trained by self-play in C
(:mod:`magdagdon.ai.ntrain`) and shipped quantised to int16, compressed
(:func:`encode_network`).

>>> cells = (0,) * 16
>>> network_value(cells, new_weights())
0.0
>>> len(READS), SIZE
(57, 544785)
"""

from __future__ import annotations

import json
import lzma
import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Final

from ..engine import EMPTY, RUIN, Difficulty
from ..engine.board import NEIGHBOURS, bits
from .features import NAMES, quick_score
from .model import shipped_model

SHAPES: Final = (
    (0, 1, 2, 3),
    (4, 5, 6, 7),
    (0, 1, 4, 5),
    (1, 2, 5, 6),
    (5, 6, 9, 10),
    (0, 1, 2, 4, 5, 6),
    (4, 5, 6, 8, 9, 10),
)
"""The tuples, squares numbered 0–15 row by row, as read under the identity."""


def symmetry(square: int, s: int) -> int:
    """``square`` under the symmetry ``s`` (0–7): a mirror if ``s & 4``, then ``s & 3`` quarter
    turns.

    >>> [symmetry(0, s) for s in range(8)]
    [0, 3, 15, 12, 3, 15, 12, 0]
    """
    r, c = divmod(square, 4)
    if s & 4:
        c = 3 - c
    for _ in range(s & 3):
        r, c = c, 3 - r
    return 4 * r + c


def _offsets() -> tuple[int, ...]:
    out, at = [], 0
    for shape in SHAPES:
        out.append(at)
        at += 8 ** len(shape)
    return (*out, at)


_OFFSETS: Final = _offsets()
BIAS: Final = _OFFSETS[-1]
"""Where the bias by the number of empty squares (0–16) starts (in a plain network)."""
SIZE: Final = BIAS + 17
"""The number of weights of a plain network."""
MASKED_TABLE: Final = 24**4
MASKED_BIAS: Final = BIAS + 2 * MASKED_TABLE
SIZE_MASKED: Final = MASKED_BIAS + 17
"""The number of weights of a masked network: it also reads the outer and the inner row (8
readings each) with 24 codes a square, an empty square coded by the values it may take
(within 1 of every number beside it), in a table of 24**4 each, before the bias."""


def _mask_codes() -> dict[int, int]:
    codes = {0: 7, 63: 8}
    for a in range(1, 7):
        for b in range(a, min(a + 2, 6) + 1):
            codes[((1 << (b - a + 1)) - 1) << (a - 1)] = len(codes) + 7
    return codes


_MASK_CODE: Final = _mask_codes()
_NEAR: Final = tuple(
    0 if v == 0 else sum(1 << (w - 1) for w in (v - 1, v, v + 1) if 1 <= w <= 6) for v in range(7)
)
_NEIGHBOURS: Final = tuple(tuple(bits(NEIGHBOURS[sq])) for sq in range(16))

READS: Final = (
    *(
        (offset, tuple(symmetry(sq, s) for sq in shape))
        for shape, offset in zip(SHAPES, _OFFSETS, strict=False)
        for s in range(8)
    ),
    (BIAS, ()),
)
"""The 57 readings of a plain board, in the order they are summed: (table offset, squares)."""

MASKED_READS: Final = tuple(
    (BIAS + t * MASKED_TABLE, tuple(symmetry(sq, s) for sq in SHAPES[t]))
    for t in range(2)
    for s in range(8)
)
"""The 16 readings a masked network adds (after the plain ones, before the bias)."""


def network_count(size: int) -> tuple[int, int]:
    """How many networks ``size`` weights hold and the size of each: one network, or 2 to 4
    of one layout, one per number of powers left (ValueError for any other size)."""
    for count in range(1, 5):
        for one in (SIZE, SIZE_MASKED):
            if size == count * one:
                return count, one
    raise ValueError(f"{size} weights: 1 to 4 networks of {SIZE} or {SIZE_MASKED} expected")


def new_weights(masked: bool = False) -> array[float]:
    """A network of zeros (float32), plain or masked."""
    return array("f", bytes(4 * (SIZE_MASKED if masked else SIZE)))


def _code(cells: Sequence[int], sq: int) -> int:
    c = cells[sq]
    if c == RUIN:
        return 6
    if c != EMPTY:
        return c - 1
    allowed = 63
    for n in _NEIGHBOURS[sq]:
        v = cells[n]
        if v != EMPTY and v != RUIN:
            allowed &= _NEAR[v]
    return _MASK_CODE[allowed]


def network_value(cells: Sequence[int], weights: Sequence[float]) -> float:
    """The network's value of a board: the expected change of its score still to come (a
    masked network when ``weights`` has :data:`SIZE_MASKED` of them)."""
    empty = sum(1 for c in cells if c == EMPTY)
    if not empty:
        return 0.0
    acc = 0.0
    for offset, squares in READS[:-1]:
        index = 0
        for sq in squares:
            index = index * 8 + cells[sq]
        acc += weights[offset + index]
    bias = BIAS
    if len(weights) == SIZE_MASKED:
        codes = [_code(cells, sq) for sq in range(16)]
        for offset, squares in MASKED_READS:
            index = 0
            for sq in squares:
                index = index * 24 + codes[sq]
            acc += weights[offset + index]
        bias = MASKED_BIAS
    acc += weights[bias + empty]
    return acc


@dataclass(frozen=True)
class NTupleModel:
    """A difficulty's network, and what a power held is worth (``power_a + power_b · empty /
    16`` points, taken from the linear model of that difficulty: the network is trained
    without powers). Or, trained with the powers (``magdagdon train --network --powers``), a
    network per number of powers left, concatenated in ``weights``: each knows what the
    powers held are worth, and ``power_a``/``power_b`` are not used."""

    difficulty: Difficulty
    weights: array[float] = field(repr=False, compare=False)
    power_a: float = 0.0
    power_b: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def power_value(self, empty: int) -> float:
        """What holding one more power is worth on a board with ``empty`` empty squares (one
        network: the linear model's estimate)."""
        return self.power_a + self.power_b * empty / 16

    @property
    def per_power(self) -> bool:
        """Whether the model is a network per number of powers left."""
        return network_count(len(self.weights))[0] > 1


class NTupleValue:
    """The learned value of an afterstate by a network, in Python (the C ``nt_learned``)."""

    def __init__(self, model: NTupleModel) -> None:
        """The value of ``model``."""
        self.model = model
        count, size = network_count(len(model.weights))
        self.networks = [model.weights[k * size : (k + 1) * size] for k in range(count)]

    def __call__(self, cells: Sequence[int], powers_left: int) -> float:
        """Score + the network's value + what the powers held are worth (a network per number
        of powers left: score + that network's value; a full board: its score)."""
        m = self.model
        empty = sum(1 for c in cells if c == EMPTY)
        score = float(quick_score(tuple(cells)))
        if not empty:
            return score
        if len(self.networks) > 1:
            return score + network_value(cells, self.networks[powers_left])
        power = m.power_a + m.power_b * float(empty) / 16.0
        return score + network_value(cells, m.weights) + float(powers_left) * power


_MAGIC: Final = b"MAGDNT1\n"


def encode_network(weights: Sequence[float]) -> bytes:
    """The weights quantised to int16 (one scale: the largest weight is ±32767) and
    compressed: the shipped form. :func:`decode_network` gives back float32 weights."""
    top = max((abs(w) for w in weights), default=0.0) or 1.0
    scale = top / 32767
    q = array("h", (round(w / scale) for w in weights))
    return _MAGIC + struct.pack("<dI", scale, len(q)) + lzma.compress(q.tobytes(), preset=9)


def _quantised(data: bytes) -> tuple[float, array[int]]:
    """The scale and the int16 weights of :func:`encode_network`'s bytes (ValueError, or
    lzma's and struct's errors, if they are not)."""
    if not data.startswith(_MAGIC):
        raise ValueError("not an n-tuple network file")
    scale, n = struct.unpack_from("<dI", data, len(_MAGIC))
    network_count(n)
    q = array("h")
    q.frombytes(lzma.decompress(data[len(_MAGIC) + 12 :]))
    if len(q) != n:
        raise ValueError("a truncated network file")
    return float(scale), q


def decode_network(data: bytes) -> array[float]:
    """Float32 weights from :func:`encode_network`'s bytes (ValueError if they are not): one
    network, or the networks of a run with the powers, concatenated."""
    scale, q = _quantised(data)
    return array("f", map(scale.__mul__, q))  # (as ``v * scale``; a third faster)


def _network_bytes(name: str) -> bytes:
    return resources.files(__package__).joinpath(NETWORKS, name).read_bytes()


@cache
def check_network(name: str) -> None:
    """Raise what :func:`load_network` would raise reading the shipped network file ``name``
    (its bytes read and unpacked, not turned into a model: a server checks its files at start
    in a tenth of the time), once it passed, nothing."""
    _quantised(_network_bytes(name))


NETWORKS: Final = "networks"
"""The package folder of the shipped networks and their provenance (``networks.json``)."""


def network_file(difficulty: Difficulty) -> str:
    """The shipped network's file name of a difficulty (SURVIVAL uses PEACEFUL's: the networks
    are trained without powers, and both place at least 2 dice)."""
    name = Difficulty.PEACEFUL if difficulty is Difficulty.SURVIVAL else difficulty
    return f"{name.value}.nt"


def powers_file(difficulty: Difficulty) -> str:
    """The file name of a difficulty's networks trained with the powers, one per number of
    powers left (``magdagdon train --network --powers``)."""
    return f"{difficulty.value}-powers.nt"


def provenance() -> dict[str, Any]:
    """The shipped networks' provenance: per network file, its command, games, time, figures."""
    text = resources.files(__package__).joinpath(NETWORKS, "networks.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def load_network(name: str, difficulty: Difficulty) -> NTupleModel:
    """The shipped network file ``name`` (of :data:`NETWORKS`) as ``difficulty``'s value,
    what a power held is worth taken from that difficulty's linear model. Which difficulty
    plays with which network is :mod:`.values`'s table."""
    meta = provenance()
    data = _network_bytes(name)
    linear = shipped_model(difficulty)
    a = linear.weights[NAMES.index("powers_left")]
    b = linear.weights[NAMES.index("powers_left_x_empty")]
    return NTupleModel(
        difficulty, decode_network(data), a, b, dict(meta.get("networks", {}).get(name, {}))
    )


__all__ = [
    "BIAS",
    "NETWORKS",
    "READS",
    "SHAPES",
    "SIZE",
    "SIZE_MASKED",
    "NTupleModel",
    "NTupleValue",
    "check_network",
    "decode_network",
    "encode_network",
    "load_network",
    "network_count",
    "network_file",
    "network_value",
    "new_weights",
    "powers_file",
    "provenance",
    "symmetry",
]
