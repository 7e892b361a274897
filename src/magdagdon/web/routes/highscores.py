"""High-score tables per difficulty: everybody's and the player's own."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter

from ...engine import Difficulty
from ..deps import KnownPlayer, StoreDep, run_store
from ..schemas import HighScoreRow, HighScoreTable

router = APIRouter(prefix="/api/highscores", tags=["high scores"])


@router.get("/{difficulty}", response_model=HighScoreTable)
async def highscores(
    difficulty: Difficulty,
    store: StoreDep,
    player: KnownPlayer,
    scope: Literal["me", "all"] = "all",
) -> HighScoreTable:
    """The top 10 of a difficulty (ties: the earlier game first); `scope=me`: yours only."""
    me = player
    entries = await run_store(store, lambda: store.highscores(difficulty, scope, me))
    return HighScoreTable(
        difficulty=difficulty,
        scope=scope,
        rows=[
            HighScoreRow(
                place=n,
                name=e.name,
                score=e.score,
                date=e.finished_at,
                turns=e.turns,
                powers_used=e.powers_used,
                hints_used=e.hints_used,
                game_id=e.game_id,
                mine=e.player_id == me,
            )
            for n, e in enumerate(entries, 1)
        ],
    )
