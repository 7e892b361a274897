"""The game view: what the client renders, built from the engine's answers alone."""

from __future__ import annotations

from ..engine import BONUS_POINTS, RUIN, RUIN_PENALTY, Game, Phase, line_prospects
from ..store import GameRow, GameStatus, daily_finish_by, daily_number
from .schemas import (
    Blocked,
    DailyRef,
    DieView,
    GameView,
    PastDailyRef,
    Places,
    Prospect,
    Rescue,
    ScoreView,
)


def _score(data: dict[str, object]) -> ScoreView:
    return ScoreView.model_validate(data)


def game_view(
    row: GameRow,
    places: dict[str, int] | None = None,
    par: int | None = None,
    sent_back: str | None = None,
) -> GameView:
    """The view of a stored game (``places``: a finished game's in the high scores; ``par``:
    a finished daily's or past daily's; ``sent_back``: the challenge a finished REMATCH became)."""
    game = row.game
    phase = game.phase
    acting = row.status is GameStatus.ACTIVE
    power_phase = acting and phase in (Phase.PLACE, Phase.MAGDAGDON) and game.powers_left > 0
    placing = phase is Phase.PLACE
    dice = [
        DieView(
            index=d.index,
            value=d.value,
            cell=d.cell,
            legal_cells=sorted(game.legal_cells(d)) if acting else [],
            can_increase=acting and game.can_adjust(d, 1),
            can_decrease=acting and game.can_adjust(d, -1),
            can_reroll=power_phase and d.in_tray,
            blocked=_blocked(game, d.index) if acting and placing and d.in_tray else [],
        )
        for d in game.dice
    ]
    magdagdon = acting and phase is Phase.MAGDAGDON
    prospects = [
        Prospect(bonus=bonus.value, points=BONUS_POINTS[bonus]) if bonus else None
        for bonus in line_prospects(game.staged_board)
    ]
    over = phase is Phase.OVER
    return GameView(
        id=row.id,
        version=row.version,
        difficulty=row.difficulty,
        phase=phase,
        status=row.status,
        board=str(game.board),
        staged_board=str(game.staged_board),
        dice=dice,
        staged=list(game.staged),
        required=game.required,
        can_roll=acting and phase is Phase.ROLL and row.room is None,  # (a room rolls its own)
        can_confirm=acting and game.can_confirm,
        can_unstage_all=acting and bool(game.staged),
        dead_end=acting and game.dead_end,
        powers_left=game.powers_left,
        powers_used=game.powers_used,
        powers_total=game.difficulty.powers,
        power_penalty=game.power_penalty,
        ruin_penalty=RUIN_PENALTY,
        prospects=prospects if acting else [],
        next_power_cost=game.next_power_cost,
        can_use_power=power_phase,
        rescues=[Rescue(die=i, delta=d) for i, d in game.rescuing_adjustments()]
        if magdagdon
        else [],
        ruin_choices=game.ruin_choices if magdagdon else [],
        turns=game.turns,
        score=_score(game.score(include_staged=True).to_dict()),
        final_score=_score(game.score().to_dict()) if over else None,
        places=Places(**places) if places else None,
        hints_used=row.hints_used,
        created_at=row.created_at,
        finished_at=row.finished_at,
        daily=daily_ref(row),
        past_daily=past_daily_ref(row),
        room=row.room,
        par=par if over else None,
        challenge=row.challenge,
        rematch_of=row.rematch_of,
        sent_back=sent_back if over else None,
    )


def daily_ref(row: GameRow) -> DailyRef | None:
    """Which daily a game is (None: a regular game)."""
    if row.daily is None:
        return None
    return DailyRef(
        date=row.daily, number=daily_number(row.daily), finish_by=daily_finish_by(row.daily)
    )


def past_daily_ref(row: GameRow) -> PastDailyRef | None:
    """Which day's dice a past daily plays again (None: not a past daily)."""
    if row.past_daily is None:
        return None
    return PastDailyRef(date=row.past_daily, number=daily_number(row.past_daily))


def _blocked(game: Game, die: int) -> list[Blocked]:
    """Each square the die may not be staged on now, with the engine's reason (a RUIN named as
    such: the engine calls every square that is not empty taken)."""
    found = []
    for cell, problem in game.blocked(die).items():
        reason = "ruin" if game.board[cell] == RUIN else problem.code
        values = problem.details.get("values", [])
        found.append(Blocked.model_validate({"cell": cell, "code": reason, "values": values}))
    return found
