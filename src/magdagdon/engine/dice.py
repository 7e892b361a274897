"""The dice stream: every die value is a pure function of (seed, turn, slot).

A value is drawn from SHA-256 of a fixed domain tag, the seed (length
prefixed), the turn, the slot and a block counter (each 4 bytes big-endian).
Each byte of the digest below 252 gives ``byte % 6 + 1`` (rejection sampling:
252 is the largest multiple of 6 that fits a byte, so every face has exactly
42 of the 252 accepted bytes); a byte of 252 or more is skipped, and a digest
with no accepted byte moves on to the next block counter.

The ROLL of turn ``t`` uses slots 0–3; each REROLL in the turn takes the next
fresh slots, so powers never change the dice of later turns.

>>> DiceStream(b"magdagdon").roll(0)
(6, 4, 2, 4)
"""

from __future__ import annotations

import hashlib
import math
import secrets
import struct
from collections import Counter
from functools import cache
from itertools import combinations_with_replacement
from typing import Final

DOMAIN: Final = b"MAGDAGDON dice v1\x00"
_ACCEPT_BELOW: Final = 252
_PACK: Final = struct.Struct(">III")


def seed_bytes(seed: bytes | int | None) -> bytes:
    """A seed as bytes: bytes as they are, a non-negative int as at least 8 big-endian bytes.

    None draws a fresh secret 32-byte seed.
    """
    if seed is None:
        return secrets.token_bytes(32)
    if isinstance(seed, bool):
        raise TypeError("a seed is bytes or an int, not a bool")
    if isinstance(seed, int):
        if seed < 0:
            raise ValueError("an int seed must not be negative")
        return seed.to_bytes(max(8, (seed.bit_length() + 7) // 8), "big")
    if isinstance(seed, bytes | bytearray):
        if len(seed) > 1024:
            raise ValueError("a seed is at most 1024 bytes")
        return bytes(seed)
    raise TypeError(f"a seed is bytes or an int, not {type(seed).__name__}")


class DiceStream:
    """The dice of one game, from its seed."""

    __slots__ = ("_base", "seed")

    def __init__(self, seed: bytes | int) -> None:
        """The stream of ``seed`` (bytes, or an int as :func:`seed_bytes` reads it)."""
        self.seed = seed_bytes(seed)
        self._base = hashlib.sha256(DOMAIN + struct.pack(">I", len(self.seed)) + self.seed)

    def __reduce__(self) -> tuple[type[DiceStream], tuple[bytes]]:
        """Pickled as its seed (the hash state it keeps is made again from it)."""
        return (DiceStream, (self.seed,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DiceStream) and self.seed == other.seed

    def __hash__(self) -> int:
        return hash(self.seed)

    def value(self, turn: int, slot: int) -> int:
        """The die value (1–6) of ``slot`` in ``turn``."""
        if not (0 <= turn < 2**32 and 0 <= slot < 2**32):
            raise ValueError("turn and slot are 0 .. 2**32 - 1")
        counter = 0
        while True:
            h = self._base.copy()
            h.update(_PACK.pack(turn, slot, counter))
            for byte in h.digest():
                if byte < _ACCEPT_BELOW:
                    return byte % 6 + 1
            counter += 1  # pragma: no cover - a digest with no byte below 252: p = 2**-190

    def roll(self, turn: int) -> tuple[int, int, int, int]:
        """The four dice of the ROLL of ``turn`` (slots 0–3)."""
        return (
            self.value(turn, 0),
            self.value(turn, 1),
            self.value(turn, 2),
            self.value(turn, 3),
        )


Roll = tuple[int, ...]
"""Die values, sorted: a distinct result of rolling some dice."""


def _probability(roll: Roll) -> float:
    counts = Counter(roll).values()
    ways = math.factorial(len(roll)) // math.prod(math.factorial(c) for c in counts)
    return ways / float(6 ** len(roll))


@cache
def outcomes(n: int) -> tuple[tuple[Roll, float], ...]:
    """The distinct results of rolling ``n`` fair dice (sorted values) with their
    probabilities, in increasing order: what a chance node of the game can bring.

    >>> len(outcomes(4)), round(sum(p for _, p in outcomes(4)), 12)
    (126, 1.0)
    >>> outcomes(1)[0]
    ((1,), 0.16666666666666666)
    """
    if type(n) is not int or not 0 <= n <= 4:
        raise ValueError(f"a roll is of 0 to 4 dice, not {n!r}")
    return tuple((r, _probability(r)) for r in combinations_with_replacement(range(1, 7), n))


@cache
def chance_probabilities(n: int) -> tuple[tuple[int, float], ...]:
    """:func:`outcomes` of ``n`` dice as a chance node lists them: each outcome's index
    with its probability.

    >>> chance_probabilities(1)[5]
    (5, 0.16666666666666666)
    """
    return tuple((k, p) for k, (_, p) in enumerate(outcomes(n)))
