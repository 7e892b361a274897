"""The coach's candidates against every legal plan of a turn (issue 44, item 1).

Run: ``python -m benchmarks.plans [--positions 300] [--seed 0]`` enumerates every legal plan
of that many decisions with a power held per difficulty (PEACEFUL and SURVIVAL; NIGHTMARE
has no powers), through the engine alone (``tests/ai/test_strong_plans.py``'s walk), and
counts the plans the strong player's candidates miss up to equivalence: today's, and the
candidates of the coach before this change (:class:`BeforePlans`), with what kind of plan
each missed one is. ``--time N`` instead times a decision of a fresh coach (as a hint's)
today's and before, in turn on each of N decisions per difficulty (one run, side by side).
Prints figures; asserts nothing.

:class:`BeforePlans` is that coach, for paired strength runs beside today's:
``python -m benchmarks.ai --bots strong benchmarks.plans:BeforePlans --vs strong``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from magdagdon.ai.evaluator import Evaluator
from magdagdon.ai.strong import Option, StrongPlayer
from magdagdon.engine import EMPTY, RUIN, Action, Difficulty, Game, Phase, actions
from tests.ai.test_strong_plans import Plan, candidate_plans, every_plan, positions


class BeforePlans(StrongPlayer):
    """The strong player with the candidates of before issue 44: a REROLL only on a roll that
    cannot be placed, and at most one ±1 change a turn."""

    name = "strong-before"

    def candidates(self, game: Game, margin: float | None = None) -> list[Option]:
        """The plans the coach saw before: placements (or RUINs), one ±1 change followed by a
        placement, and in MAGDAGDON every REROLL of the roll as it is (``margin``: unused,
        the list was short)."""
        if game.phase not in (Phase.PLACE, Phase.MAGDAGDON):
            return []
        ev = self.evaluator(game.difficulty)
        paid = game.power_penalty
        p = game.powers_left
        cells = game.board.cells
        found: list[Option] = []
        if game.phase is Phase.PLACE:
            found += self._placements(game, ev, [], p, paid)
        else:
            for sq in range(16):
                if cells[sq] == EMPTY:
                    after = (*cells[:sq], RUIN, *cells[sq + 1 :])
                    found.append(
                        Option(
                            [actions.accept_magdagdon(sq)], ev.learned(after, p) - paid, after, p
                        )
                    )
        if p > 0:
            found += self._one_change(game, ev, p, paid)
            if game.phase is Phase.MAGDAGDON:
                found += self._rerolls(game, ev, [], 0, set())
        return found

    def _one_change(self, game: Game, ev: Evaluator, p: int, paid: int) -> list[Option]:
        cost = ev.power_cost(p)
        out: list[Option] = []
        seen: set[tuple[int, int]] = set()
        for die in game.dice:
            for delta in (-1, 1):
                if (die.value, delta) in seen or die.cell is not None:
                    continue
                trial = game.copy()
                before: list[Action] = []
                if trial.staged:
                    trial.unstage_all()
                    before.append(actions.unstage_all())
                if not trial.can_adjust(die.index, delta):
                    continue
                seen.add((die.value, delta))
                trial.adjust(die.index, delta)
                if trial.phase is not Phase.PLACE:
                    continue
                before.append(actions.adjust(die.index, delta))
                for option in self._placements(trial, ev, before, p - 1, paid + cost):
                    option.cost = cost
                    out.append(option)
        return out


def kind(game: Game, plan: Plan) -> str:
    """What kind of plan a missed one is."""
    if plan[0] == "reroll":
        changes = game.powers_left - 1 - plan[3]
        where = "a roll to place" if game.phase is Phase.PLACE else "MAGDAGDON"
        return f"REROLL of {where}" + (f" after {changes} ±1" if changes else "")
    changes = game.powers_left - plan[2]
    ruined = plan[1].count(RUIN) > game.board.cells.count(RUIN)
    return f"{changes} ±1 changes, then {'a RUIN' if ruined else 'a placement'}"


def timing(decisions: int, seed: int) -> None:
    """A fresh coach's decision (the search included) today and before, in turn."""
    print(f"ms a decision of a fresh coach, {decisions} decisions with a power held, seed {seed}")
    for difficulty in (Difficulty.PEACEFUL, Difficulty.SURVIVAL):
        taken: dict[str, list[float]] = {"today": [], "before": []}
        for i, game in enumerate(positions(difficulty, decisions, seed=seed)):
            pair = [("today", StrongPlayer), ("before", BeforePlans)]
            for name, make in pair if i % 2 == 0 else pair[::-1]:
                player = make()
                start = time.perf_counter()
                player.options(game)
                taken[name].append(1000 * (time.perf_counter() - start))
        for name, ms in taken.items():
            ms.sort()
            p50, p95 = ms[len(ms) // 2], ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print(
                f"{difficulty.value:10} {name:7} p50 {p50:6.0f}  p95 {p95:6.0f}  max {ms[-1]:6.0f}"
            )


def main() -> None:
    """Print, per difficulty, the plans enumerated and those each coach's candidates miss."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time", type=int, default=0, help="decisions to time (0: count plans)")
    args = parser.parse_args()
    if args.time:
        return timing(args.time, args.seed)
    print(f"{args.positions} decisions with a power held per difficulty, seed {args.seed}")
    for difficulty in (Difficulty.PEACEFUL, Difficulty.SURVIVAL):
        now, before = StrongPlayer(search=False), BeforePlans(search=False)
        plans = missed_now = 0
        missed_before: Counter[str] = Counter()
        positions_missed = 0
        start = time.perf_counter()
        for game in positions(difficulty, args.positions, seed=args.seed):
            every = every_plan(game)
            plans += len(every)
            missed_now += len(every - candidate_plans(now, game))
            old = every - candidate_plans(before, game)
            positions_missed += bool(old)
            missed_before.update(kind(game, plan) for plan in old)
        took = time.perf_counter() - start
        print(
            f"{difficulty.value:10} {plans:7} plans; missed by today's candidates: {missed_now}; "
            f"by the coach before: {sum(missed_before.values())} "
            f"(in {positions_missed} of {args.positions} decisions)  [{took:.0f} s]"
        )
        for what, n in missed_before.most_common():
            print(f"           {n:7}  {what}")


if __name__ == "__main__":
    main()
