"""The actions of a game, defined once: their JSON shape as typed dicts, and a constructor each.

An action is what a player sends: a small JSON object with a ``type`` and the fields that type
needs. :meth:`Game.apply <magdagdon.engine.Game.apply>` applies one; the game's log is a list
of them; the HTTP API takes them as they are (its schema is made from :data:`ACTION_TYPES`).

>>> stage(0, 5)
{'type': 'stage', 'die': 0, 'cell': 5}
>>> reroll([3, 1])
{'type': 'reroll', 'dice': [1, 3]}
>>> [name for name, _ in fields("adjust")]
['die', 'delta']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, TypedDict, get_type_hints


class RollAction(TypedDict):
    """ROLL four new dice (the turn then is in PLACE, or in MAGDAGDON when they fit nowhere)."""

    type: Literal["roll"]


class StageAction(TypedDict):
    """Stage a die of the tray (0-3) on an empty square (0-15, 4 * row + column)."""

    type: Literal["stage"]
    die: int
    cell: int


class UnstageAction(TypedDict):
    """Take a staged die back to the tray; dice staged after it that lose their support
    follow (R6)."""

    type: Literal["unstage"]
    die: int


class UnstageAllAction(TypedDict):
    """TAKE BACK ALL: every staged die returns to the tray."""

    type: Literal["unstage_all"]


class ConfirmAction(TypedDict):
    """CONFIRM: the staged dice (at least the turn's minimum) become permanent; the turn
    ends (R10)."""

    type: Literal["confirm"]


class AdjustAction(TypedDict):
    """Majda Power DECREASE (``delta`` -1) or INCREASE (``delta`` 1) of a die in the tray."""

    type: Literal["adjust"]
    die: int
    delta: int


class RerollAction(TypedDict):
    """Majda Power REROLL of the chosen dice of the tray (one use however many)."""

    type: Literal["reroll"]
    dice: list[int]


class AcceptMagdagdonAction(TypedDict):
    """Accept MAGDAGDON: the chosen empty square becomes a RUIN and the turn ends (R9)."""

    type: Literal["accept_magdagdon"]
    cell: int


Action = (
    RollAction
    | StageAction
    | UnstageAction
    | UnstageAllAction
    | ConfirmAction
    | AdjustAction
    | RerollAction
    | AcceptMagdagdonAction
)
"""Any action."""

ActionType = Literal[
    "roll", "stage", "unstage", "unstage_all", "confirm", "adjust", "reroll", "accept_magdagdon"
]

ACTION_TYPES: Final[dict[str, type]] = {
    "roll": RollAction,
    "stage": StageAction,
    "unstage": UnstageAction,
    "unstage_all": UnstageAllAction,
    "confirm": ConfirmAction,
    "adjust": AdjustAction,
    "reroll": RerollAction,
    "accept_magdagdon": AcceptMagdagdonAction,
}
"""Every action type by its ``type``, in the order of a turn."""

TURN_ENDING: Final = frozenset({"confirm", "accept_magdagdon"})
"""The actions that end a turn."""
POWERS: Final = frozenset({"adjust", "reroll"})
"""The actions that use a Majda Power."""


def fields(kind: str) -> list[tuple[str, type]]:
    """The fields of an action type besides ``type``, in order, with their Python types."""
    hints = get_type_hints(ACTION_TYPES[kind])
    return [(name, hint) for name, hint in hints.items() if name != "type"]


def roll() -> RollAction:
    """ROLL."""
    return {"type": "roll"}


def stage(die: int, cell: int) -> StageAction:
    """Stage ``die`` on ``cell``."""
    return {"type": "stage", "die": die, "cell": cell}


def unstage(die: int) -> UnstageAction:
    """Take ``die`` back."""
    return {"type": "unstage", "die": die}


def unstage_all() -> UnstageAllAction:
    """TAKE BACK ALL."""
    return {"type": "unstage_all"}


def confirm() -> ConfirmAction:
    """CONFIRM."""
    return {"type": "confirm"}


def adjust(die: int, delta: int) -> AdjustAction:
    """DECREASE (``delta`` -1) or INCREASE (``delta`` 1) ``die``."""
    return {"type": "adjust", "die": die, "delta": delta}


def reroll(dice: Iterable[int]) -> RerollAction:
    """REROLL the ``dice`` (as the log writes them: sorted)."""
    return {"type": "reroll", "dice": sorted(dice)}


def accept_magdagdon(cell: int) -> AcceptMagdagdonAction:
    """Accept MAGDAGDON with a RUIN on ``cell``."""
    return {"type": "accept_magdagdon", "cell": cell}
