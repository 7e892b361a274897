"""Actions as JSON (docs/design.md): each applies, malformed ones are rejected clearly."""

from __future__ import annotations

from typing import Any

import pytest

from magdagdon.engine import RuleViolation

from ..positions import game_at


def test_every_action_type_applies() -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5))
    game.apply({"type": "stage", "die": 0, "cell": 5})
    game.apply({"type": "unstage", "die": 0})
    game.apply({"type": "stage", "die": 0, "cell": 5})
    game.apply({"type": "unstage_all"})
    game.apply({"type": "adjust", "die": 2, "delta": -1})
    game.apply({"type": "reroll", "dice": [1, 3]})
    assert [a["type"] for a in game.actions] == [
        "roll",
        "stage",
        "unstage",
        "stage",
        "unstage_all",
        "adjust",
        "reroll",
    ]


@pytest.mark.parametrize(
    "action",
    [
        "roll",
        ["roll"],
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "stage", "die": 0},
        {"type": "stage", "cell": 0},
        {"type": "stage", "die": "0", "cell": 5},
        {"type": "stage", "die": 0, "cell": 5.0},
        {"type": "stage", "die": True, "cell": 5},
        {"type": "stage", "die": 0, "cell": 5, "value": 6},
        {"type": "roll", "dice": [1]},
        {"type": "reroll", "dice": "01"},
        {"type": "reroll", "dice": [0, "1"]},
        {"type": "adjust", "die": 0},
        {"type": "accept_magdagdon"},
    ],
)
def test_malformed_actions_are_rejected_and_change_nothing(action: Any) -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5))
    before = game.to_dict()
    with pytest.raises(RuleViolation) as exc:
        game.apply(action)
    assert exc.value.code == "bad_action"
    assert exc.value.message
    assert game.to_dict() == before


def test_rule_violation_is_a_value_error_with_code_and_message() -> None:
    err = RuleViolation("not_adjacent", "A 3 must touch a number.")
    assert isinstance(err, ValueError)
    assert str(err) == "A 3 must touch a number."
    assert repr(err) == "RuleViolation('not_adjacent', 'A 3 must touch a number.')"
