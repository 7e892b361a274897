"""The one table of values (issue 36, item 5): which value each player plays a difficulty
with, read by every player from one place."""

from __future__ import annotations

import doctest

import pytest

from magdagdon.ai import values
from magdagdon.ai.model import Model, shipped_model
from magdagdon.ai.ntuple import NTupleModel, network_file
from magdagdon.ai.registry import make_player
from magdagdon.ai.strong import StrongPlayer
from magdagdon.engine import Difficulty


def test_the_coach_table_names_a_value_for_every_difficulty() -> None:
    table = values.coach_table()
    assert set(table) == set(Difficulty)
    for difficulty, name in table.items():
        model = values.value_model(difficulty)
        if name == values.LINEAR:
            assert model is shipped_model(difficulty)
        else:
            assert isinstance(model, NTupleModel) and model.difficulty is difficulty
            assert model.meta  # its provenance came with it


def _strong(name: str) -> StrongPlayer:
    player = make_player(name)
    assert isinstance(player, StrongPlayer)
    return player


def test_every_player_reads_its_value_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach, simulate's strong, ntuple and linear bots: each difficulty's value is the
    table's; changing the table's line changes what they play with, nothing else does."""
    for difficulty in Difficulty:
        assert isinstance(_strong("linear").model(difficulty), Model)
        network = _strong("ntuple").model(difficulty)
        assert isinstance(network, NTupleModel)
        assert network is values.value_model(difficulty, "network")
        assert _strong("strong").model(difficulty) is values.value_model(difficulty)
    assert network_file(Difficulty.SURVIVAL) == "peaceful.nt"
    everything_linear = dict.fromkeys(Difficulty, values.LINEAR)
    monkeypatch.setattr(values, "coach_table", lambda: everything_linear)
    for difficulty in Difficulty:
        assert StrongPlayer().model(difficulty) is shipped_model(difficulty)


def test_a_table_that_leaves_a_difficulty_out_or_an_unknown_value_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match="unknown value"):
        values.value_model(Difficulty.PEACEFUL, "oracle")
    with pytest.raises(ValueError, match="unknown value"):
        StrongPlayer(value="oracle")
    values.coach_table.cache_clear()
    monkeypatch.setattr(values, "provenance", lambda: {"coach": {"peaceful": "linear"}})
    try:
        with pytest.raises(ValueError, match="no value for"):
            values.coach_table()
        assert values.values_problem() is not None
    finally:
        monkeypatch.undo()
        values.coach_table.cache_clear()
    assert values.values_problem() is None


def test_the_modules_examples_run() -> None:
    assert doctest.testmod(values).failed == 0


def test_a_network_file_that_does_not_unpack_is_a_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check a server makes at start and /api/ready reads the coach's network files
    without building the models: a file cut short or not a network still fails it."""
    from magdagdon.ai import ntuple

    whole = ntuple._network_bytes("peaceful.nt")
    for broken in (b"nonsense", whole[:-100]):
        ntuple.check_network.cache_clear()
        monkeypatch.setattr(ntuple, "_network_bytes", lambda name, data=broken: data)
        problem = values.values_problem()
        assert problem is not None and problem.startswith("the coach's values cannot be loaded")
    monkeypatch.undo()
    ntuple.check_network.cache_clear()
    assert values.values_problem() is None
