"""Agents to beat (issue 37): per difficulty, on the simulator's public evaluation seeds, the
built-in bots, the guide's TD agent, OpenSpiel's MCTS and MaskablePPO, each with its command,
its budget and its mean ± 95% interval, in one table.

Run: ``python -m benchmarks.agents [--games 1000] [--costly-games 100] [--only AGENT ...]
[--difficulties ...] [--bot package.module:Class ...] [--mcts-simulations 100]
[--mcts-rollouts 1] [--ppo-steps 200000] [--ppo-seconds S] [--ppo-level die|turn|candidates]
[--markdown]`` from the repository root (needs the ``[gym]`` and ``[spiel]``
extras). Prints a line per row as it is played, and with ``--markdown`` (the lines then go to
standard error) one table per difficulty, ready to paste into docs/agents.md; asserts
nothing.

Game ``i`` of every row is the simulator's game ``i`` of seed 0: its dice are those of
:func:`~magdagdon.ai.simulate.game_seed` ``(0, i)``, whichever way the agent plays: through
``magdagdon simulate`` (the engine's ``Game``), through the Gymnasium environment
(``env.reset(seed=game_seed(0, i))``, its first observation checked against the simulator's
game), or through OpenSpiel's state (each chance node given the outcome the seed's stream
brings, from an :class:`~magdagdon.engine.encoding.EncodedGame` of that seed played in step).
Agents that learn train on seeds disjoint from these (``TRAIN_SEED`` on).

The rows (:data:`AGENTS`; ``--only`` keeps some):

- ``random``, ``greedy``, ``heuristic``, ``strong`` (the coach): ``magdagdon simulate --bot``.
- ``td``: the guide's TD agent of afterstates, its code read from docs/rl.md's ``# tdbot.py``
  block at run time (so the row always measures the guide's agent), trained as the guide
  says (``EPISODES`` games, TD(0)) on the row's difficulty.
- ``mcts``: OpenSpiel's Python ``MCTSBot`` (UCT ``--mcts-uct``, ``--mcts-simulations`` a
  decision, each evaluated by ``--mcts-rollouts`` random rollouts) on
  ``python_magdagdon`` at turn level with terminal rewards.
- ``ppo``: sb3-contrib's ``MaskablePPO`` (its defaults, an MLP policy, 8 environments, one
  torch thread) trained for ``--ppo-steps`` environment steps (or ``--ppo-seconds`` CPU
  seconds, looked at before each environment step: an update under way ends first) at die
  level (``--ppo-level turn``: turn level; ``--ppo-level candidates``: the turn level as a
  list of candidates with a masked index action, ``MagdagdonCandidates-v0``), then played
  deterministically. The budget column
  gives the steps, the CPU seconds and the process's peak memory (``ru_maxrss``).
  Needs torch and sb3-contrib, which are no dependency of the project: without them the row
  is skipped with a word. To get them, a virtual environment of its own, e.g.::

      python3 -m venv ~/ppo-venv
      ~/ppo-venv/bin/pip install torch  # a CPU-only build will do, and is much smaller
      ~/ppo-venv/bin/pip install -e '.[gym,spiel]' sb3-contrib
      ~/ppo-venv/bin/python -m benchmarks.agents --only ppo

``--bot package.module:Class`` adds a row for any player ``magdagdon simulate`` takes.
Rows whose games cost much (``mcts``, ``ppo``) play ``--costly-games`` games, the others
``--games``: the table says how many. A decision is one call of the agent: a whole turn for
the simulator's players, TD and MCTS (turn level), one action for PPO at die level; its cost
is in CPU time of this process (``time.process_time``), one core's work even on a shared
machine (for the simulator's players, the whole evaluation over their decisions: the
game's own work is included).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import re
import resource
import statistics
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from magdagdon.ai import values
from magdagdon.ai.ntuple import provenance
from magdagdon.ai.registry import make_player
from magdagdon.ai.simulate import game_seed, run_games
from magdagdon.engine import Difficulty, Game
from magdagdon.engine import encoding as enc

SEED = 0
"""The evaluation seed: game ``i`` of every row has the dice of ``game_seed(SEED, i)``, as
``magdagdon simulate`` and ``benchmarks.ai`` play them by default."""
TRAIN_SEED = 10**9
"""Training games' seeds start here, away from the evaluation seeds (``game_seed(0, i) = i``)."""
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "rl.md"


@dataclass
class Row:
    """One agent's games in one difficulty."""

    agent: str
    difficulty: str
    command: str
    budget: str
    scores: list[int]
    decisions: int
    decision_seconds: float
    """CPU seconds of the agent's decisions (of the whole evaluation, the game's own work
    included, for the simulator's players)."""
    seconds: float = 0.0
    notes: dict[str, float] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores)

    @property
    def ci95(self) -> float:
        """1.96 sd / √n (0 for fewer than two games)."""
        if len(self.scores) < 2:
            return 0.0
        return 1.96 * statistics.stdev(self.scores) / math.sqrt(len(self.scores))

    @property
    def ms_per_decision(self) -> float:
        """CPU milliseconds a decision."""
        return 1000 * self.decision_seconds / max(self.decisions, 1)


Play = Callable[[str, int, argparse.Namespace], Row]
"""An agent's row: (difficulty, games, the options) -> its games on the evaluation seeds."""


@dataclass(frozen=True)
class Agent:
    """A row of the table: how it plays, what it needs, whether its games cost much."""

    name: str
    play: Play
    needs: tuple[str, ...] = ()
    """Modules it imports, with a word on how to get them when one is missing."""
    costly: bool = False


# --- the simulator's players ---------------------------------------------------------------


def coach_budget(difficulty: str) -> str:
    """What the coach plays ``difficulty`` with: the value of the shipped table
    (``ai/networks/networks.json``) and its training, and the search."""
    name = values.coach_table()[Difficulty(difficulty)]
    if name == values.LINEAR:
        return "shipped linear value (ai/weights.json) + search"
    games = provenance()["networks"].get(name, {}).get("games")
    trained = f", {games:,} self-play games" if games else ""
    return f"shipped n-tuple network ({name}{trained}) + search"


def simulator_row(
    bot: str, label: str | None = None, budget: str | Callable[[str], str] = ""
) -> Play:
    """A player ``magdagdon simulate --bot`` takes (a name or ``package.module:Class``);
    ``budget`` a word, or the word of each difficulty."""

    def play(difficulty: str, games: int, args: argparse.Namespace) -> Row:
        start = time.process_time()
        results = run_games(bot, difficulty, games, SEED)
        seconds = time.process_time() - start
        return Row(
            agent=label or bot,
            difficulty=difficulty,
            command=f"magdagdon simulate --bot {bot} --difficulty {difficulty} --games {games}",
            budget=budget if isinstance(budget, str) else budget(difficulty),
            scores=[r.score for r in results],
            decisions=sum(len(r.decision_ms) for r in results),
            decision_seconds=seconds,
            seconds=seconds,
        )

    return play


# --- the guide's TD agent ------------------------------------------------------------------


def guide_tdbot(guide: Path = GUIDE) -> tuple[types.ModuleType, int]:
    """The guide's ``tdbot.py`` as a module (its ``# tdbot.py`` block, run now) and the number
    of training games the guide gives it (``EPISODES = N``)."""
    text = guide.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)
    code = [b for b in blocks if b.startswith("# tdbot.py\n")]
    episodes = re.search(r"^EPISODES = (\d+)$", text, re.M)
    if len(code) != 1 or episodes is None:
        raise RuntimeError(f"{guide}: no single '# tdbot.py' block and 'EPISODES = N' line")
    module = types.ModuleType("tdbot")
    module.__file__ = f"{guide}#tdbot.py"
    exec(compile(code[0], module.__file__, "exec"), module.__dict__)
    return module, int(episodes.group(1))


def td_row(difficulty: str, games: int, args: argparse.Namespace) -> Row:
    """The guide's agent trained on ``difficulty`` as the guide trains it, then played by
    the simulator (its ``TDBot``)."""
    tdbot, episodes = guide_tdbot()
    if args.td_episodes is not None:
        episodes = args.td_episodes
    start = time.process_time()
    value = tdbot.train(tdbot.LineValue(), episodes, difficulty=difficulty, seed=TRAIN_SEED)
    trained = time.process_time() - start
    start = time.process_time()
    results = run_games(tdbot.TDBot(value), difficulty, games, SEED)
    seconds = time.process_time() - start
    return Row(
        agent="td (the guide's)",
        difficulty=difficulty,
        command=f"python -m benchmarks.agents --only td --difficulties {difficulty} "
        f"--games {games}",
        budget=f"{episodes:,} training games, {trained:.0f} CPU s",
        scores=[r.score for r in results],
        decisions=sum(len(r.decision_ms) for r in results),
        decision_seconds=seconds,
        seconds=trained + seconds,
    )


# --- OpenSpiel's MCTS ----------------------------------------------------------------------


def mcts_game(
    difficulty: str, index: int, simulations: int, rollouts: int, uct_c: float
) -> tuple[int, list[float]]:
    """Game ``index`` of the evaluation seeds played by OpenSpiel's Python MCTS bot (its
    random numbers seeded by ``index``): the final score and the CPU seconds of each
    decision."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import magdagdon.spiel  # noqa: F401 - registers python_magdagdon

    params = {"difficulty": difficulty, "turn_level": True, "rewards": "terminal"}
    game = pyspiel.load_game("python_magdagdon", params)
    rng = np.random.RandomState(index)
    evaluator = mcts.RandomRolloutEvaluator(rollouts, rng)
    bot = mcts.MCTSBot(game, uct_c, simulations, evaluator, random_state=rng)
    state = game.new_initial_state()
    dice = enc.EncodedGame(difficulty, seed=game_seed(SEED, index), turn_level=True)
    times: list[float] = []
    while not state.is_terminal():
        if state.is_chance_node():
            action = dice.stream_outcome()  # the outcome the seed's dice bring
        else:
            start = time.process_time()
            action = bot.step(state)
            times.append(time.process_time() - start)
        state.apply_action(action)
        dice.apply_action(action)
    score = round(state.returns()[0])
    if not dice.is_terminal() or dice.score() != score:
        raise RuntimeError(f"game {index}: OpenSpiel's state and the seed's game differ")
    return score, times


def mcts_row(difficulty: str, games: int, args: argparse.Namespace) -> Row:
    """OpenSpiel's Python MCTS at a fixed budget a decision."""
    start = time.process_time()
    played = [
        mcts_game(difficulty, i, args.mcts_simulations, args.mcts_rollouts, args.mcts_uct)
        for i in range(games)
    ]
    rollouts = "rollout" if args.mcts_rollouts == 1 else "rollouts"
    return Row(
        agent="OpenSpiel MCTS",
        difficulty=difficulty,
        command=f"python -m benchmarks.agents --only mcts --difficulties {difficulty} "
        f"--costly-games {games} --mcts-simulations {args.mcts_simulations}",
        budget=f"{args.mcts_simulations} simulations a decision, {args.mcts_rollouts} random "
        f"{rollouts} each, UCT c={args.mcts_uct:g}, turn level",
        scores=[score for score, _ in played],
        decisions=sum(len(times) for _, times in played),
        decision_seconds=sum(sum(times) for _, times in played),
        seconds=time.process_time() - start,
    )


# --- MaskablePPO ---------------------------------------------------------------------------


def same_dice(difficulty: str, index: int, observation: Any) -> bool:
    """Whether a Gymnasium observation just after ``reset(seed=game_seed(0, index))`` is the
    simulator's game ``index`` after its first ROLL (the board, the dice, everything)."""
    import numpy as np

    game = Game.new(Difficulty(difficulty), seed=game_seed(SEED, index))
    game.roll()
    return bool(np.array_equal(observation, np.array(enc.observation(game), np.float32)))


def candidate_scorer_policy(torch: Any, sb3_contrib: Any) -> Any:
    """A MaskablePPO policy for ``MagdagdonCandidates-v0`` whose action head scores each
    candidate with one small network shared by all slots (the position's summary and the
    candidate's features in, a logit out), instead of the MLP policy's flat head, which
    learns each slot's logit apart. The value is the MLP policy's (two layers of 64 over the
    whole observation). Torch and sb3-contrib are given, as the caller imported them."""
    from magdagdon.gym import CANDIDATE_FEATURES

    nn = torch.nn
    module: Any = nn.Module
    base: Any = sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy
    width = 64

    class Extractor(module):  # type: ignore[misc]
        """The position's summary and the candidates' features (the actor's latent), and
        the value's latent."""

        def __init__(self, size: int) -> None:
            super().__init__()
            self.slots = (size - enc.OBS_SIZE) // CANDIDATE_FEATURES
            self.latent_dim_pi = width + self.slots * CANDIDATE_FEATURES
            self.latent_dim_vf = width
            self.summary = nn.Sequential(
                nn.Linear(enc.OBS_SIZE, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh()
            )
            self.value = nn.Sequential(
                nn.Linear(size, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh()
            )

        def forward_actor(self, features: Any) -> Any:
            summary = self.summary(features[:, : enc.OBS_SIZE])
            return torch.cat([summary, features[:, enc.OBS_SIZE :]], dim=1)

        def forward_critic(self, features: Any) -> Any:
            return self.value(features)

        def forward(self, features: Any) -> tuple[Any, Any]:
            return self.forward_actor(features), self.forward_critic(features)

    class Scorer(module):  # type: ignore[misc]
        """A logit per slot from the summary and that slot's features."""

        def __init__(self, slots: int) -> None:
            super().__init__()
            self.slots = slots
            self.net = nn.Sequential(
                nn.Linear(width + CANDIDATE_FEATURES, width), nn.Tanh(), nn.Linear(width, 1)
            )

        def forward(self, latent: Any) -> Any:
            summary = latent[:, :width].unsqueeze(1).expand(-1, self.slots, -1)
            slots = latent[:, width:].reshape(-1, self.slots, CANDIDATE_FEATURES)
            return self.net(torch.cat([summary, slots], dim=2)).squeeze(2)

    class CandidateScorerPolicy(base):  # type: ignore[misc]
        """MaskablePPO's policy with a shared scorer of candidates (see the function)."""

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = Extractor(self.features_dim)

        def _build(self, lr_schedule: Any) -> None:
            super()._build(lr_schedule)
            self.action_net = Scorer(self.mlp_extractor.slots)
            self.optimizer = self.optimizer_class(
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
            )

    return CandidateScorerPolicy


def ppo_row(difficulty: str, games: int, args: argparse.Namespace) -> Row:
    """sb3-contrib's MaskablePPO, trained for a fixed budget, then played deterministically
    through the Gymnasium environment on the evaluation seeds."""
    import gymnasium

    import magdagdon.gym  # noqa: F401 - registers Magdagdon-v0

    torch = importlib.import_module("torch")
    torch.set_num_threads(1)
    sb3_contrib = importlib.import_module("sb3_contrib")
    env_util = importlib.import_module("stable_baselines3.common.env_util")

    turn_level = args.ppo_level == "turn"
    env_id = "Magdagdon-v0"
    kwargs: dict[str, Any] = {"difficulty": difficulty, "turn_level": turn_level}
    if args.ppo_level == "candidates":
        env_id, kwargs = "MagdagdonCandidates-v0", {"difficulty": difficulty}
    envs = 8
    venv = env_util.make_vec_env(env_id, n_envs=envs, seed=TRAIN_SEED, env_kwargs=kwargs)
    policy: Any = "MlpPolicy"
    if args.ppo_policy == "scorer":
        if args.ppo_level != "candidates":
            raise ValueError("--ppo-policy scorer is for --ppo-level candidates")
        policy = candidate_scorer_policy(torch, sb3_contrib)
    model = sb3_contrib.MaskablePPO(
        policy, venv, n_steps=2048 // envs, seed=TRAIN_SEED, device="cpu", verbose=0
    )

    seconds = float(args.ppo_seconds)
    start, wall = time.process_time(), time.perf_counter()

    def within_budget(_locals: dict[str, Any], _globals: dict[str, Any]) -> bool:
        """Whether the training goes on (stable-baselines3 calls it at every step)."""
        return time.process_time() - start < seconds

    if seconds:
        model.learn(10**12, callback=within_budget)
    elif args.ppo_steps:
        model.learn(args.ppo_steps)
    trained, trained_wall = time.process_time() - start, time.perf_counter() - wall
    steps = int(model.num_timesteps)
    episodes = sum(len(r) for r in venv.env_method("get_episode_rewards"))  # Monitor's
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    env = gymnasium.make(env_id, **kwargs)
    scores: list[int] = []
    times: list[float] = []
    start = time.process_time()
    for i in range(games):
        obs, info = env.reset(seed=game_seed(SEED, i))
        if not same_dice(difficulty, i, obs[: enc.OBS_SIZE]):
            raise RuntimeError(f"game {i}: the environment's dice are not the simulator's")
        done = False
        while not done:
            clock = time.process_time()
            action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
            times.append(time.process_time() - clock)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        scores.append(int(info["score"]))
    budget = (
        f"{steps:,} {LEVEL_STEPS[args.ppo_level]} steps ({episodes:,} games), {trained:.0f} CPU s "
        f"({steps / trained:,.0f} steps a CPU second), peak {peak_mb:,.0f} MB"
        if steps
        else f"untrained ({LEVEL_STEPS[args.ppo_level]}), peak {peak_mb:,.0f} MB"
    )
    if args.ppo_seconds:
        command = f"--ppo-seconds {args.ppo_seconds:g}"
    else:
        command = f"--ppo-steps {args.ppo_steps}"
    if args.ppo_level != "die":
        command += f" --ppo-level {args.ppo_level}"
    if args.ppo_policy != "mlp":
        command += f" --ppo-policy {args.ppo_policy}"
    return Row(
        agent="MaskablePPO"
        + LEVEL_NAMES[args.ppo_level]
        + (", shared scorer" if args.ppo_policy == "scorer" else ""),
        difficulty=difficulty,
        command=f"python -m benchmarks.agents --only ppo --difficulties {difficulty} "
        f"--costly-games {games} {command}",
        budget=budget,
        scores=scores,
        decisions=len(times),
        decision_seconds=sum(times),
        seconds=trained + time.process_time() - start,
        notes={
            "steps": steps,
            "episodes": episodes,
            "cpu_s": trained,
            "wall_s": trained_wall,
            "peak_mb": peak_mb,
        },
    )


LEVEL_NAMES: dict[str, str] = {
    "die": "",
    "turn": " (turn level)",
    "candidates": " (turn level, candidates)",
}
"""What a MaskablePPO row's name adds for each ``--ppo-level``."""
LEVEL_STEPS: dict[str, str] = {
    "die": "die-level",
    "turn": "turn-level",
    "candidates": "turn-level (candidates)",
}
"""How a MaskablePPO row's budget names its steps for each ``--ppo-level``."""


# --- the table -----------------------------------------------------------------------------


AGENTS: dict[str, Agent] = {
    "random": Agent("random", simulator_row("random", budget="none: uniform legal actions")),
    "greedy": Agent("greedy", simulator_row("greedy", budget="none: the best score this turn")),
    "heuristic": Agent("heuristic", simulator_row("heuristic", budget="none: hand-written rules")),
    "strong": Agent(
        "strong",
        simulator_row("strong", "coach (strong)", coach_budget),
    ),
    "td": Agent("td", td_row, needs=("gymnasium", "numpy")),
    "mcts": Agent("mcts", mcts_row, needs=("pyspiel", "numpy"), costly=True),
    "ppo": Agent("ppo", ppo_row, needs=("gymnasium", "torch", "sb3_contrib"), costly=True),
}
"""The rows, weakest first (roughly). A researcher's agent is a :data:`Play` added here (or,
for a player of ``magdagdon simulate``, ``--bot package.module:Class``)."""

HOW_TO_GET = {
    "gymnasium": "pip install 'magdagdon[gym]'",
    "numpy": "pip install 'magdagdon[gym]'",
    "pyspiel": "pip install 'magdagdon[spiel]'",
    "torch": "pip install torch (CPU build), in an environment of its own",
    "sb3_contrib": "pip install sb3-contrib, in an environment of its own",
}


def missing(agent: Agent) -> str | None:
    """The first module ``agent`` needs that is not installed, or None."""
    return next((m for m in agent.needs if importlib.util.find_spec(m) is None), None)


def play_table(
    names: list[str], bots: list[str], difficulties: list[str], args: argparse.Namespace
) -> tuple[list[Row], list[str]]:
    """Every row asked for in every difficulty: the rows and the words for those skipped."""
    rows: list[Row] = []
    skipped: list[str] = []
    agents = [AGENTS[n] for n in names] + [
        Agent(b, simulator_row(b, make_player(b).name, "(yours: say what it learned from)"))
        for b in bots
    ]
    for agent in agents:
        absent = missing(agent)
        if absent is not None:
            word = f"{agent.name}: skipped ({absent} is not installed: {HOW_TO_GET[absent]})"
            print(word, flush=True)
            skipped.append(word)
            continue
        for difficulty in difficulties:
            games = args.costly_games if agent.costly else args.games
            row = agent.play(difficulty, games, args)
            rows.append(row)
            print(line(row), file=sys.stderr if args.markdown else sys.stdout, flush=True)
    return rows, skipped


def line(row: Row) -> str:
    """One row as text."""
    return (
        f"{row.agent:<26} {row.difficulty:<11}{row.mean:>8.1f} ± {row.ci95:<6.1f}"
        f"{row.games:>7}{row.ms_per_decision:>13.2f}{row.seconds:>7.0f}  {row.budget}"
    )


def shared(rows: list[Row]) -> str:
    """When the rows played different numbers of games: each one's mean over the games they
    all played (the first seeds), a fair comparison; else nothing."""
    common = min((r.games for r in rows), default=0)
    if common < 1 or all(r.games == common for r in rows):
        return ""
    means = ", ".join(f"{r.agent} {statistics.fmean(r.scores[:common]):.1f}" for r in rows)
    return f"On the first {common} seeds, which every row played: {means}."


def markdown(rows: list[Row], difficulties: list[str]) -> str:
    """The tables, one per difficulty, ready to paste."""
    parts = []
    for difficulty in difficulties:
        these = [r for r in rows if r.difficulty == difficulty]
        parts += [
            f"### {difficulty.upper()}",
            "",
            "| agent | mean ± 95% CI | games | CPU ms/decision | budget | command |",
            "|---|---|---|---|---|---|",
        ]
        parts += [
            f"| {r.agent} | {r.mean:.1f} ± {r.ci95:.1f} | {r.games:,} | "
            f"{r.ms_per_decision:.2f} | {r.budget} | `{r.command}` |"
            for r in these
        ]
        parts.append("")
        if shared(these):
            parts += [shared(these), ""]
    return "\n".join(parts)


def parser() -> argparse.ArgumentParser:
    """The command line (see the module's documentation)."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=int, default=1000, help="games per row (cheap rows)")
    p.add_argument("--costly-games", type=int, default=100, help="games per MCTS and PPO row")
    p.add_argument("--only", nargs="+", choices=list(AGENTS), default=None, help="these rows")
    p.add_argument(
        "--bot", action="append", default=[], help="a row for this simulator player (repeatable)"
    )
    p.add_argument(
        "--difficulties",
        nargs="+",
        choices=[d.value for d in Difficulty],
        default=[d.value for d in Difficulty],
    )
    p.add_argument("--td-episodes", type=int, help="training games (default: the guide's)")
    p.add_argument("--mcts-simulations", type=int, default=100)
    p.add_argument("--mcts-rollouts", type=int, default=1)
    p.add_argument("--mcts-uct", type=float, default=2.0)
    p.add_argument("--ppo-steps", type=int, default=200_000, help="environment steps")
    p.add_argument("--ppo-seconds", type=float, default=0.0, help="CPU seconds of training instead")
    p.add_argument(
        "--ppo-level",
        choices=list(LEVEL_NAMES),
        default="die",
        help="die level (158 ids), turn level (83,679 ids), or the turn level as candidates "
        "(MagdagdonCandidates-v0: at most 64 slots, a masked index)",
    )
    p.add_argument(
        "--ppo-policy",
        choices=["mlp", "scorer"],
        default="mlp",
        help="sb3's MLP policy (default), or with --ppo-level candidates a shared scorer of "
        "candidates (candidate_scorer_policy)",
    )
    p.add_argument("--markdown", action="store_true", help="print Markdown tables")
    return p


def main(argv: list[str] | None = None) -> list[Row]:
    """Play the rows asked for and print the table; the rows."""
    args = parser().parse_args(argv)
    names = args.only if args.only is not None else ([] if args.bot else list(AGENTS))
    for bot in args.bot:
        make_player(bot)  # a ValueError now, with the reason, for a player it cannot make
    print(
        f"evaluation seeds: game i has the dice of game_seed({SEED}, i); "
        f"{args.games} games a row, {args.costly_games} for mcts and ppo; "
        f"Python {sys.version.split()[0]}",
        file=sys.stderr if args.markdown else sys.stdout,
        flush=True,
    )
    head = f"{'agent':<26} {'difficulty':<11}{'mean ± 95% CI':>17}{'games':>7}"
    head += f"{'CPU ms/dec.':>13}{'CPU s':>7}  budget"
    print(head, file=sys.stderr if args.markdown else sys.stdout, flush=True)
    rows, _ = play_table(names, args.bot, args.difficulties, args)
    if args.markdown:
        print(markdown(rows, args.difficulties), flush=True)
    return rows


if __name__ == "__main__":
    main()
