"""A bot of someone else's, as ``magdagdon simulate --bot tests.ai.example_bot:FirstPlanBot``
loads it: only the public engine API."""

from __future__ import annotations

from magdagdon.engine import Action, Game, Phase, actions


class FirstPlanBot:
    """ROLL; the first way to CONFIRM the engine lists; the first RUIN square."""

    name = "first-plan"

    def turn(self, game: Game) -> list[Action]:
        """The actions to apply now."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
        if game.phase is Phase.MAGDAGDON:
            return [actions.accept_magdagdon(game.ruin_choices[0])]
        return game.turn_plans()[0]


class Nameless:
    """A player without a name (it gets its spec's)."""

    def turn(self, game: Game) -> list[Action]:
        """Delegates to :class:`FirstPlanBot`."""
        return FirstPlanBot().turn(game)


class NoPlayer:
    """No turn method."""
