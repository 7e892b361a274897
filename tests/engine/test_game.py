"""The game state machine: turn flow and every ruling R1–R16 that concerns it."""

from __future__ import annotations

import pytest

from magdagdon.engine import (
    Board,
    DiceStream,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
    actions,
)

from ..positions import game_at, seed_for


def values(game: Game) -> list[int]:
    return [d.value for d in game.dice]


def test_a_new_game_waits_for_roll() -> None:
    game = Game.new(Difficulty.PEACEFUL, seed=1)
    assert game.phase is Phase.ROLL and game.dice == () and game.turns == 0
    assert game.powers_left == 3 and game.powers_used == 0 and game.required == 0
    assert str(game.board) == "..../..../..../...."


def test_roll_gives_four_tray_dice() -> None:
    game = Game.new("survival", seed=1)
    game.roll()
    assert len(game.dice) == 4 and all(d.in_tray for d in game.dice)
    assert game.phase in (Phase.PLACE, Phase.MAGDAGDON)


def test_stage_then_confirm_makes_numbers_permanent() -> None:
    game = game_at("..../..../..../....", (3, 4, 6, 1))
    game.stage(0, 5)
    assert not game.can_confirm
    game.stage(1, 6)
    assert game.can_confirm
    assert str(game.staged_board) == "..../.34./..../...."
    assert str(game.board) == "..../..../..../...."  # staged dice are not permanent yet
    game.confirm()
    assert str(game.board) == "..../.34./..../...."
    assert game.phase is Phase.ROLL and game.dice == () and game.turns == 1


def test_unused_dice_are_discarded_on_confirm() -> None:
    game = game_at("..../..../..../....", (3, 4, 6, 1))
    game.stage(0, 5)
    game.stage(1, 6)
    game.confirm()
    assert game.board.numbers.bit_count() == 2


def test_more_than_the_minimum_may_be_staged() -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 3))
    for die, sq in enumerate((0, 1, 2, 3)):
        game.stage(die, sq)
    game.confirm()
    assert str(game.board) == "3443/..../..../...."


def test_r1_staged_dice_do_not_change_the_required_count() -> None:
    game = game_at("1111/1111/1111/1...", (1, 1, 1, 1), "nightmare")
    assert game.required == 3
    game.stage(0, 13)
    assert game.required == 3 and not game.can_confirm
    game.stage(1, 14)
    game.stage(2, 15)
    assert game.can_confirm


@pytest.mark.parametrize(
    ("board", "difficulty", "required"),
    [
        ("..../..../..../....", "peaceful", 2),
        ("..../..../..../....", "survival", 2),
        ("..../..../..../....", "nightmare", 3),
        ("1111/1111/1111/11..", "nightmare", 2),
        ("1111/1111/1111/1X1.", "nightmare", 1),
        ("1111/1111/1111/111.", "peaceful", 1),
    ],
)
def test_r2_required_minimum(board: str, difficulty: str, required: int) -> None:
    assert game_at(board, (1, 1, 1, 1), difficulty).required == required


def test_r3_first_die_anywhere_also_after_ruins_on_an_empty_board() -> None:
    game = game_at("X.../..../..../...X", (5, 5, 2, 2))
    assert game.legal_cells(0) == frozenset(range(1, 15))
    game.stage(0, 10)
    assert game.legal_cells(1) == frozenset({6, 9, 11, 14})
    assert game.legal_cells(2) == frozenset()


def test_r4_staged_dice_count_and_order_matters() -> None:
    game = game_at("3.../..../..../....", (5, 4, 1, 1))
    assert 2 not in game.legal_cells(0)  # the 5 cannot go next to nothing
    assert game.legal_cells(0) == frozenset()  # nor next to the 3
    game.stage(1, 1)  # the 4 next to the 3
    assert 2 in game.legal_cells(0)  # now the 5 fits next to the 4
    with pytest.raises(RuleViolation) as exc:
        game.stage(0, 4)  # touches the 3 only
    assert exc.value.code == "value_too_far"


def test_r5_roll_that_cannot_place_the_minimum_is_magdagdon() -> None:
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    assert game.phase is Phase.MAGDAGDON
    assert game.legal_cells(0) == frozenset()
    with pytest.raises(RuleViolation) as exc:
        game.stage(0, 1)
    assert exc.value.code == "wrong_phase"


def test_r5_a_power_can_rescue_the_roll() -> None:
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    game.adjust(0, +1)  # 1 -> 2: 2 next to the 3, then the other 1 next to the 2
    assert game.phase is Phase.PLACE and game.powers_used == 1


def test_r5_a_power_can_also_make_magdagdon() -> None:
    game = game_at("3.../..../..../....", (4, 5, 6, 6))
    assert game.phase is Phase.PLACE  # 4 next to the 3, 5 next to the 4
    game.adjust(0, +1)  # 5, 5, 6, 6: none can touch the 3
    assert game.phase is Phase.MAGDAGDON


def test_r5_poor_staging_never_causes_magdagdon() -> None:
    game = game_at("3.../..../..../....", (4, 5, 1, 1))
    game.stage(0, 4)  # the 4 below the 3: the 5 can still go next to it
    game.unstage(0)
    game.stage(0, 1)
    assert game.phase is Phase.PLACE


def test_r6_take_back_returns_later_dice_that_lose_their_support() -> None:
    game = game_at("3.../..../..../....", (4, 5, 6, 2))
    game.stage(0, 1)  # 4 next to the 3
    game.stage(1, 2)  # 5 next to the 4
    game.stage(2, 3)  # 6 next to the 5
    game.stage(3, 4)  # 2 below the 3: does not depend on the others
    game.unstage(0)
    assert [d.cell for d in game.dice] == [None, None, None, 4]
    assert game.staged == (3,)
    assert game.actions[-1] == {"type": "unstage", "die": 0}


def test_r6_take_back_keeps_later_dice_that_are_still_legal() -> None:
    game = game_at("3.../..../..../....", (4, 3, 1, 1))
    game.stage(0, 1)
    game.stage(1, 4)
    game.unstage(0)
    assert game.staged == (1,) and game.dice[1].cell == 4


def test_r6_take_back_all() -> None:
    game = game_at("3.../..../..../....", (4, 3, 1, 1))
    game.stage(0, 1)
    game.stage(1, 4)
    game.unstage_all()
    assert game.staged == () and all(d.in_tray for d in game.dice)
    with pytest.raises(RuleViolation) as exc:
        game.unstage_all()
    assert exc.value.code == "nothing_staged"


def test_r7_dead_end_is_reported_not_magdagdon() -> None:
    # 3 on square 0; dice 2 and 1: the 2 must go next to the 3 and the 1 next to the 2.
    game = game_at("3.../X.../..../....", (2, 1, 6, 6))
    assert game.phase is Phase.PLACE and not game.dead_end
    game.stage(0, 1)  # the 2 on square 1: the 1 can follow on square 2 or 5
    assert not game.dead_end
    game.unstage(0)
    game = game_at("3X../..../..../....", (2, 1, 6, 6))
    game.stage(0, 4)  # the 2 below the 3: the 1 can go on 5 or 8
    assert not game.dead_end


def test_r7_dead_end_when_staging_blocks_the_only_way() -> None:
    # Free squares 1, 2 and 4. A 4 on square 1 then the 5 on square 2 works; the 4 on
    # square 4 leaves the 5 nowhere (square 1 touches the 3, square 2 touches no number).
    game = game_at("3..X/.XXX/XXXX/XXXX", (4, 5, 6, 6))
    assert game.phase is Phase.PLACE
    game.stage(0, 4)
    assert game.dead_end
    assert game.phase is Phase.PLACE  # never MAGDAGDON for it
    game.unstage(0)
    game.stage(0, 1)
    assert not game.dead_end
    game.stage(1, 2)
    assert game.can_confirm and not game.dead_end


def test_r8_powers_act_on_tray_dice_only_and_leave_staged_dice() -> None:
    game = game_at("..../..../..../....", (3, 4, 2, 6))
    game.stage(0, 5)
    with pytest.raises(RuleViolation) as exc:
        game.adjust(0, +1)
    assert exc.value.code == "die_staged"
    with pytest.raises(RuleViolation) as exc:
        game.reroll([0, 3])
    assert exc.value.code == "die_staged"
    game.adjust(3, -1)
    assert values(game) == [3, 4, 2, 5] and game.dice[0].cell == 5
    game.reroll([1, 2])
    assert game.dice[0].cell == 5 and game.dice[0].value == 3
    assert game.powers_used == 2


def test_r9_accept_magdagdon_makes_a_ruin_on_any_empty_square() -> None:
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    assert game.phase is Phase.MAGDAGDON
    game.accept_magdagdon(15)  # far from every number: still allowed
    assert str(game.board) == "3.../..../..../...X"
    assert game.turns == 1 and game.phase is Phase.ROLL and game.dice == ()


def test_r9_accepting_takes_back_staged_dice() -> None:
    game = game_at("3.../..../..../....", (4, 5, 6, 6))
    game.stage(0, 1)
    game.adjust(1, +1)  # 4, 6, 6, 6: only the 4 fits, the staged 4 stays (R8)
    assert game.phase is Phase.MAGDAGDON and game.dice[0].cell == 1
    game.accept_magdagdon(15)
    assert str(game.board) == "3.../..../..../...X"


def test_r9_accept_only_in_magdagdon_and_only_on_empty_squares() -> None:
    game = game_at("3.../..../..../....", (4, 5, 2, 2))
    with pytest.raises(RuleViolation) as exc:
        game.accept_magdagdon(5)
    assert exc.value.code == "wrong_phase"
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    with pytest.raises(RuleViolation) as exc:
        game.accept_magdagdon(0)
    assert exc.value.code == "cell_occupied"
    with pytest.raises(RuleViolation) as exc:
        game.accept_magdagdon(16)
    assert exc.value.code == "no_such_cell"


def test_r10_confirm_needs_the_minimum() -> None:
    game = game_at("..../..../..../....", (3, 4, 5, 1), "nightmare")
    assert game.phase is Phase.PLACE
    game.stage(0, 5)
    game.stage(1, 6)
    with pytest.raises(RuleViolation) as exc:
        game.confirm()
    assert exc.value.code == "below_minimum"
    assert "at least 3" in exc.value.message


def test_r11_turns_count_confirms_and_accepted_magdagdons() -> None:
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    game.accept_magdagdon(15)
    assert game.turns == 1
    game.roll()
    assert game.turns == 1  # a roll does not end a turn


def test_r13_power_penalties_in_order_of_use() -> None:
    game = game_at("..../..../..../....", (3, 3, 3, 3))
    costs = []
    for _ in range(3):
        costs.append(game.next_power_cost)
        game.adjust(0, +1 if game.dice[0].value < 6 else -1)
    assert costs == [10, 20, 40]
    assert game.power_penalty == 70 and game.next_power_cost is None
    assert game.score().power_penalty == 70 and game.score().total == -70
    with pytest.raises(RuleViolation) as exc:
        game.adjust(1, +1)
    assert exc.value.code == "no_powers_left"


def test_r13_survival_has_one_power_of_70_and_nightmare_none() -> None:
    game = game_at("..../..../..../....", (3, 3, 3, 3), "survival")
    assert game.next_power_cost == 70
    game.reroll([0, 1, 2, 3])
    assert game.power_penalty == 70 and game.powers_left == 0
    night = game_at("..../..../..../....", (3, 3, 3, 3), "nightmare")
    assert night.powers_left == 0 and night.next_power_cost is None
    with pytest.raises(RuleViolation) as exc:
        night.reroll([0])
    assert exc.value.code == "no_powers_left"


def test_adjust_stays_within_one_to_six() -> None:
    game = game_at("..../..../..../....", (1, 6, 3, 3))
    with pytest.raises(RuleViolation) as exc:
        game.adjust(0, -1)
    assert exc.value.code == "value_out_of_range"
    with pytest.raises(RuleViolation) as exc:
        game.adjust(1, +1)
    assert exc.value.code == "value_out_of_range"
    with pytest.raises(RuleViolation) as exc:
        game.adjust(2, 2)
    assert exc.value.code == "bad_delta"
    assert game.powers_used == 0


def test_reroll_needs_a_selection_of_distinct_dice() -> None:
    game = game_at("..../..../..../....", (1, 6, 3, 3))
    for dice, code in (([], "empty_selection"), ([1, 1], "duplicate_die"), ([4], "no_such_die")):
        with pytest.raises(RuleViolation) as exc:
            game.reroll(dice)
        assert exc.value.code == code
    assert game.powers_used == 0


def test_r15_a_finished_game_accepts_nothing() -> None:
    game = game_at("1111/1111/1111/111.", (1, 1, 1, 1), "nightmare")
    assert game.required == 1
    game.stage(0, 15)
    game.confirm()
    assert game.phase is Phase.OVER and game.is_over
    for action in (
        actions.roll(),
        actions.confirm(),
        actions.stage(0, 0),
        actions.accept_magdagdon(0),
    ):
        with pytest.raises(RuleViolation) as exc:
            game.apply(action)
        assert exc.value.code == "game_over"


def test_r15_game_over_after_a_ruin_fills_the_last_square() -> None:
    game = game_at("1111/1111/1111/111.", (6, 6, 6, 6), "nightmare")
    assert game.phase is Phase.MAGDAGDON
    game.accept_magdagdon(15)
    assert game.phase is Phase.OVER
    assert game.score().total == reference_total("1111/1111/1111/111X")


def reference_total(board: str) -> int:
    from .. import reference

    return reference.score(reference.grid(board))


def test_r16_a_game_keeps_its_difficulty_and_a_new_game_starts_empty() -> None:
    game = game_at("3.../..../..../....", (4, 5, 2, 2), "peaceful")
    before = game.to_dict()
    other = Game.new(Difficulty.NIGHTMARE, seed=5)
    assert other.difficulty is Difficulty.NIGHTMARE and other.turns == 0
    assert str(other.board) == "..../..../..../...."
    assert game.to_dict() == before  # the abandoned game is untouched; storing it is the server's


def test_stage_errors_name_the_problem() -> None:
    game = game_at("3.../..../..../....", (4, 6, 2, 1))
    cases = [
        ((0, 0), "cell_occupied"),
        ((0, 10), "not_adjacent"),
        ((1, 1), "value_too_far"),
        ((9, 1), "no_such_die"),
        ((0, 16), "no_such_cell"),
        ((0, -1), "no_such_cell"),
    ]
    for (die, cell), code in cases:
        with pytest.raises(RuleViolation) as exc:
            game.stage(die, cell)
        assert exc.value.code == code, (die, cell)
        assert exc.value.message
    game.stage(0, 1)
    with pytest.raises(RuleViolation) as exc:
        game.stage(0, 4)
    assert exc.value.code == "die_staged"
    with pytest.raises(RuleViolation) as exc:
        game.stage(2, 1)
    assert exc.value.code == "cell_occupied"


def test_value_too_far_message_names_the_neighbours() -> None:
    game = game_at("3.../..../..../....", (6, 2, 2, 1))
    with pytest.raises(RuleViolation, match="would touch 3"):
        game.stage(0, 1)


def test_wrong_phase_before_roll() -> None:
    game = Game.new("peaceful", seed=1)
    for action, code in (
        (actions.confirm(), "wrong_phase"),
        (actions.stage(0, 0), "wrong_phase"),
        (actions.unstage_all(), "wrong_phase"),
        (actions.reroll([0]), "wrong_phase"),
    ):
        with pytest.raises(RuleViolation) as exc:
            game.apply(action)
        assert exc.value.code == code
    game.roll()
    with pytest.raises(RuleViolation) as exc:
        game.roll()
    assert exc.value.code == "wrong_phase"


def test_legal_cells_of_a_staged_die_is_empty() -> None:
    game = game_at("..../..../..../....", (3, 4, 6, 1))
    game.stage(0, 0)
    assert game.legal_cells(0) == frozenset()
    assert game.legal_cells(game.dice[1]) == frozenset({1, 4})


def test_live_score_includes_staged_dice() -> None:
    game = game_at("..../..../..../....", (3, 4, 6, 1))
    game.stage(0, 0)
    assert game.score().total == 0
    assert game.score(include_staged=True).total == 6


def test_seed_for_helper_is_exact() -> None:
    game = Game.new("peaceful", seed=seed_for((6, 5, 4, 3)))
    game.roll()
    assert values(game) == [6, 5, 4, 3]
    assert Board.parse(str(game.board)) == game.board


def test_rescuing_adjustments_lists_the_certain_rescues() -> None:
    game = game_at("3.../..../..../....", (1, 6, 6, 1))
    assert game.phase is Phase.MAGDAGDON
    # a 1 raised to 2 fits next to the 3 and the other 1 next to it; nothing else rescues
    assert game.rescuing_adjustments() == [(0, 1), (3, 1)]
    for die, delta in game.rescuing_adjustments():
        trial = game.copy()
        trial.adjust(die, delta)
        assert trial.phase is Phase.PLACE
    assert game.can_adjust(0, 1) and not game.can_adjust(0, -1) and not game.can_adjust(1, 1)
    placing = game_at("3.../..../..../....", (4, 5, 1, 1))
    assert placing.rescuing_adjustments() == []
    night = game_at("3.../..../..../....", (1, 6, 6, 1), "nightmare")
    assert night.rescuing_adjustments() == [] and not night.can_adjust(0, 1)


# --- each of these fails for a mutant of the engine that the other tests let through ---------


def test_r9_a_ruin_may_go_under_a_staged_die() -> None:
    """R1, R9: any permanently empty square may take the RUIN, one under a staged die too."""
    game = game_at(".X../12.3/.343/12X.", (3, 5, 5, 4), "peaceful")
    game.stage(0, 15)
    game.adjust(3, +1)  # 3 5 5 5 with the 3 staged: nothing fits any more
    assert game.phase is Phase.MAGDAGDON and game.staged == (0,)
    game.accept_magdagdon(15)
    assert str(game.board) == ".X../12.3/.343/12XX" and game.turns == 1
    assert game.phase is Phase.ROLL and game.staged == ()


def test_reroll_keeps_the_dice_not_chosen() -> None:
    game = Game.new("peaceful", seed=6)  # 4 3 3 5; slots 4-7 would bring 2 4 6 4
    game.roll()
    before = [d.value for d in game.dice]
    game.reroll([1, 3])
    after = [d.value for d in game.dice]
    assert after[0] == before[0] and after[2] == before[2]
    stream = DiceStream(game.seed)
    assert [after[1], after[3]] == [stream.value(0, 4), stream.value(0, 5)]


def test_r5_staged_dice_count_as_available_after_a_power() -> None:
    """Three dice staged, one in the tray: after a power the four values are judged (R5), so
    the turn stays in PLACE though the tray alone is below the minimum."""
    game = game_at("..../..../..../....", (3, 3, 3, 3), "peaceful")
    game.stage(0, 0)
    game.stage(1, 1)
    game.stage(2, 2)
    game.adjust(3, +1)
    assert game.phase is Phase.PLACE and game.staged == (0, 1, 2)
    assert game.can_confirm


def test_peaceful_penalties_come_in_order_of_use() -> None:
    """R13: the first power costs 10, the second 20, the third 40, in the score as used."""
    game = game_at("..../..../..../....", (3, 3, 3, 3), "peaceful")
    base = game.score(include_staged=True).total
    paid = []
    for die in range(3):
        game.adjust(die, +1)
        paid.append(base - game.score(include_staged=True).total)
    assert paid == [10, 30, 70]
    assert game.next_power_cost is None and game.power_penalty == 70


def test_messages_number_the_dice_as_the_api_does() -> None:
    """Dice are 0-3 in every message, as in every action (one said "Die 1" for index 0)."""
    game = game_at("..../..../..../....", (3, 3, 3, 3), "peaceful")
    with pytest.raises(RuleViolation, match="Die 0 is not on the board"):
        game.unstage(0)
    game.stage(0, 5)
    with pytest.raises(RuleViolation, match="Die 0 is on the board"):
        game.adjust(0, 1)
