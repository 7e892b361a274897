"""A finished game as the replay viewer shows it: the engine plays its log again, and each
roll, power, placed die and RUIN becomes a frame.

Staging and taking back are a player's thinking, not the game's story: the dice a turn placed
appear one frame each, in the order they were staged when the turn was confirmed.
"""

from __future__ import annotations

from typing import Any

from ..engine import Game, Phase, ScoreBreakdown, score_board
from ..store import GameRow
from .schemas import FrameView


def replay_frames(row: GameRow) -> list[FrameView]:
    """The frames of a finished game (its whole log, as :meth:`Store.finished_game` gives it)."""
    game = Game.new(row.difficulty, seed=row.seed)
    magdagdon = False

    def frame(kind: str, score: ScoreBreakdown | None = None, **fields: Any) -> FrameView:
        if score is None:
            score = game.score()
        values = {
            "kind": kind,
            "turn": game.turns + (0 if game.phase is Phase.ROLL or kind == "end" else 1),
            "board": str(game.board),
            "dice": [d.value for d in game.dice],
            "changed": [],
            "cell": None,
            "value": None,
            "score": score.total,
            "rows": [line.to_dict() for line in score.rows],
            "columns": [line.to_dict() for line in score.columns],
            "powers_used": game.powers_used,
            "phase": game.phase,
            "magdagdon": magdagdon,
        }
        values.update(fields)
        return FrameView.model_validate(values)

    frames = [frame("start", turn=1)]  # as the game screen counts: turn 1 before its ROLL
    for logged in row.game.actions:
        action: dict[str, Any] = dict(logged)
        kind = action["type"]
        if kind == "confirm":
            # the placed dice one by one, in staging order, on the board before the turn
            turn = game.turns + 1
            dice = [d.value for d in game.dice]
            board = game.board
            placed = [(i, game.dice[i].value, game.dice[i].cell) for i in game.staged]
            game.apply(logged)
            for n, (die, value, cell) in enumerate(placed):
                assert cell is not None  # a staged die is on a square
                board = board.with_numbers([(value, cell)])
                last = n == len(placed) - 1
                frames.append(
                    frame(
                        "place",
                        turn=turn,
                        board=str(board),
                        dice=dice,
                        changed=[die],
                        cell=cell,
                        value=value,
                        score=score_board(board).with_power_penalty(game.power_penalty),
                        phase=game.phase if last else Phase.PLACE,
                    )
                )
            magdagdon = False
            continue
        if kind == "accept_magdagdon":
            turn, dice = game.turns + 1, [d.value for d in game.dice]
            game.apply(logged)
            frames.append(frame("ruin", turn=turn, dice=dice, cell=action["cell"]))
            magdagdon = False
            continue
        game.apply(logged)
        if kind == "roll":
            magdagdon = game.phase is Phase.MAGDAGDON
            frames.append(frame("roll", changed=[0, 1, 2, 3]))
        elif kind == "adjust":
            frames.append(frame("adjust", changed=[action["die"]]))
        elif kind == "reroll":
            frames.append(frame("reroll", changed=sorted(action["dice"])))
        # stage, unstage, unstage_all: not shown
    frames.append(frame("end", dice=[]))
    return frames
