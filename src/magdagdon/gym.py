"""MAGDAGDON as a Gymnasium environment: ``pip install 'magdagdon[gym]'``, then

>>> import gymnasium
>>> env = gymnasium.make("magdagdon.gym:Magdagdon-v0", difficulty="nightmare")
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(info["action_mask"].sum()), info["score"]
((269,), 48, 0)

(``"magdagdon.gym:Magdagdon-v0"`` imports this module, which registers ``Magdagdon-v0``;
after ``import magdagdon.gym``, ``gymnasium.make("Magdagdon-v0", ...)`` works too.)

One episode is one game. The agent decides; chance is the environment's: every ROLL and
REROLL draws its dice from the game's seed exactly as the server does, so a game reset with
``seed=s`` meets the dice of the server's game of seed ``s``, and its actions replay there.

- Actions: the ids of :mod:`magdagdon.engine.encoding`: die level (``Discrete(158)``: stage a
  die on a square, take back, CONFIRM, the powers, a RUIN), or with ``turn_level=True`` one
  id per legal staged set (a whole turn) besides the powers and the RUINS
  (``Discrete(83679)``). ``action_masks()`` (and ``info["action_mask"]``) gives the legal
  ones. An illegal action changes nothing and gives no reward (``info["illegal"]``); one
  outside the action space is a ValueError, one that is no whole number a TypeError; the
  registered environment truncates an episode at :data:`~magdagdon.engine.MAX_GAME_ACTIONS`
  steps, which no game of legal actions reaches (R17), so every episode ends.
- Observation: :func:`~magdagdon.engine.encoding.observation`, 269 numbers 0-1 (board
  planes, staged dice, the tray, powers left, required dice, phase, turn, difficulty).
- Reward: the change of the engine's score (power and RUIN penalties included), so an
  episode's return is the final score.
- ``render()``: ``"ansi"`` text or an ``"rgb_array"`` picture.

Both levels run on the engine's C fast path (:mod:`magdagdon.engine.fast`) when it is
built, else on the pure-Python engine (the same games, more slowly). At turn level,
``afterstates()`` gives the boards each turn-ending id leaves, for afterstate learning.

For policy gradients with a flat action head (sb3-contrib's ``MaskablePPO``), which cannot
span the turn level's 83,679 ids, :class:`CandidateEnv` (``"MagdagdonCandidates-v0"``) gives
the turn level as a list of at most 64 candidates, each described by its afterstate, the
points it scores and the powers it spends, and a masked index action:

>>> env = gymnasium.make("magdagdon.gym:MagdagdonCandidates-v0", difficulty="nightmare")
>>> obs, info = env.reset(seed=1)
>>> env.action_space, obs.shape, int(info["action_mask"].sum())
(Discrete(64), (1869,), 64)
"""

from __future__ import annotations

import functools
from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from .engine import MAX_GAME_ACTIONS, Difficulty, Game, fast
from .engine import encoding as enc
from .engine.scoring import RUIN_PENALTY, line_bonus

ENV_ID: Final = "Magdagdon-v0"
CANDIDATES_ENV_ID: Final = "MagdagdonCandidates-v0"
"""The turn level as candidates with a masked index action (:class:`CandidateEnv`)."""

Observation = NDArray[np.float32]


class MagdagdonEnv(gymnasium.Env[Observation, np.int64]):
    """One game of MAGDAGDON per episode (see the module's documentation)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        difficulty: Difficulty | str = "peaceful",
        turn_level: bool = False,
        render_mode: str | None = None,
        use_fast: bool | None = None,
    ) -> None:
        """An environment of ``difficulty``, die level or ``turn_level``; ``use_fast``
        None: the C fast path at die level when it is built (True: insist, False: never)."""
        self.difficulty = Difficulty(difficulty)
        self.turn_level = turn_level
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if use_fast and not fast.AVAILABLE:
            raise ValueError("the C fast path is not built (see magdagdon.engine.fast)")
        self.use_fast = fast.AVAILABLE if use_fast is None else use_fast
        size = enc.NUM_TURN_ACTIONS if turn_level else enc.NUM_ACTIONS
        self.action_space = spaces.Discrete(size)
        self.observation_space = spaces.Box(0.0, 1.0, (enc.OBS_SIZE,), np.float32)
        self._mask = np.zeros(size, dtype=np.bool_)
        self._obs = np.zeros(enc.OBS_SIZE, dtype=np.float32)
        self._score = 0
        self.game_seed = 0
        """The seed of the current game's dice (the server's ``seed``)."""
        self.history: list[int] = []
        """The ids played in the current game."""
        self._fast: fast.FastGame | None = None
        self._play: enc.EncodedGame | None = None

    # --- the game --------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The engine's game (Python backend only; its log replays on the server)."""
        if self._play is None:
            raise RuntimeError("the fast path keeps no engine game: use replay()")
        return self._play.game

    def replay(self) -> enc.EncodedGame:
        """The current game replayed on the pure-Python engine from its seed and ids."""
        play = enc.EncodedGame(self.difficulty, self.game_seed, turn_level=self.turn_level)
        self._resolve(play)
        for action_id in self.history:
            play.apply_action(action_id)
            self._resolve(play)
        return play

    @staticmethod
    def _resolve(play: enc.EncodedGame | fast.FastGame) -> None:
        while play.is_chance_node():
            play.apply_action(play.stream_outcome())

    def _roll(self) -> None:
        if self._fast is not None:
            while self._fast.is_chance_node():
                self._fast.roll_stream()
        else:
            assert self._play is not None
            self._resolve(self._play)

    def _now(self) -> tuple[int, bool]:
        """The score, and whether the game is over."""
        if self._fast is not None:
            return self._fast.score(), self._fast.is_terminal()
        assert self._play is not None
        return self._play.score(), self._play.is_terminal()

    def _refresh(self) -> None:
        if self._fast is not None:
            self._fast.observe(self._obs)
            if not self.turn_level:
                self._fast.legal_mask(self._mask)
                return
            legal = self._fast.legal_actions()
        else:
            assert self._play is not None
            self._obs[:] = self._play.observation()
            legal = self._play.legal_actions()
        self._mask[:] = False
        self._mask[legal] = True

    def legal_ids(self) -> list[int]:
        """The legal ids now, increasing (none once the game is over)."""
        if self._fast is not None:
            return self._fast.legal_actions()
        assert self._play is not None
        return self._play.legal_actions()

    def board(self) -> NDArray[np.uint8]:
        """The board now: 16 squares as the engine's :class:`~magdagdon.engine.Board` holds
        them (0 empty, 1-6, 7 RUIN)."""
        if self._fast is not None:
            return np.frombuffer(self._fast.state()[0], np.uint8).copy()
        assert self._play is not None
        return np.array(self._play.game.board.cells, dtype=np.uint8)

    def powers_used(self) -> int:
        """The Majda Powers used so far in this game."""
        if self._fast is not None:
            return int(self._fast.state()[4])
        assert self._play is not None
        return self._play.game.powers_used

    def afterstates(self) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
        """The ids that end the turn now, each with the board it leaves (16 squares as the
        engine's :class:`~magdagdon.engine.Board` holds them: 0 empty, 1-6, 7 RUIN): at turn
        level the plans in PLACE, and the RUINS in MAGDAGDON; the powers are not among them.
        An afterstate agent (TD learning, as for 2048) values these boards."""
        if not self.turn_level:
            raise ValueError("afterstates() is for the turn level (turn_level=True)")
        if self._fast is not None:
            return _afterstates(self._fast, np.frombuffer(self._fast.state()[0], np.uint8))
        assert self._play is not None
        return afterstates(self._play.game)

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "score": self._score}
        if illegal:
            info["illegal"] = True
        return info

    # --- Gymnasium -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game: with ``seed``, the dice of the server's game of that seed; without,
        a seed drawn from the environment's generator."""
        super().reset(seed=seed)
        self.game_seed = seed if seed is not None else int(self.np_random.integers(2**62))
        self.history = []
        if self.use_fast:
            self._fast = fast.FastGame(self.difficulty, self.game_seed, turn_level=self.turn_level)
            self._play = None
        else:
            self._fast = None
            self._play = enc.EncodedGame(
                self.difficulty, self.game_seed, turn_level=self.turn_level
            )
        self._roll()
        self._score, _ = self._now()
        self._refresh()
        return self._obs.copy(), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play an id; the dice of any chance node after it come from the game's seed. The id is
        a whole number (an int, a NumPy integer, or an integer array of one element, as
        Gymnasium's wrappers may pass), as the Discrete action space holds: anything else
        (``"3"``, ``1.7``, ``True``) is a TypeError, and a number outside the action space
        (``-1``, ``10**9``) a ValueError. An id of the space that is not legal now changes
        nothing (``info["illegal"]``)."""
        action_id = _action_id(action, self._mask.size)
        if not self._mask[action_id]:
            return self._obs.copy(), 0.0, False, False, self._info(illegal=True)
        if self._fast is not None:
            self._fast.apply_action(action_id)
        else:
            assert self._play is not None
            self._play.apply_action(action_id)
        self.history.append(action_id)
        self._roll()
        score, over = self._now()
        reward, self._score = score - self._score, score
        self._refresh()
        return self._obs.copy(), float(reward), over, False, self._info()

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal ids now, as a mask over the action space (sb3-contrib's name)."""
        return self._mask.copy()

    def render(self) -> Any:
        """``"ansi"``: the position as text; ``"rgb_array"``: as a picture (H, W, 3)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make(..., render_mode=...)")
            return None
        if self._play is not None:
            game, pending = self._play.game, self._play.pending
        else:
            assert self._fast is not None
            game, pending = self._fast.to_game()  # the position alone: no replay
        if self.render_mode == "ansi":
            return enc.text(game, pending)
        return picture(game, pending)


def afterstates(game: Game) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    """:meth:`MagdagdonEnv.afterstates` of an engine game in PLACE or MAGDAGDON (its staged
    dice, if any, are taken back first, as plans do): the turn-level ids that end the turn,
    and the boards they leave. On the C fast path when it is built."""
    board = np.array(game.board.cells, dtype=np.uint8)
    if fast.AVAILABLE:
        quick = fast.FastGame.from_game(game.search_copy(), turn_level=True)
        return _afterstates(quick, board)
    legal = enc.turn_legal_ids(game)
    ids = [i for i in legal if i >= enc.PLAN]
    boards = [list(game.board.with_numbers(enc.plan_placements(game, i)).cells) for i in ids]
    ruins = [i for i in legal if enc.RUIN <= i < enc.PLAN]
    return _with_ruins(ids, np.array(boards, dtype=np.uint8).reshape(-1, 16), ruins, board)


def _afterstates(
    quick: fast.FastGame, board: NDArray[np.uint8]
) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    codes, cells = quick.plans()
    ids = [enc.PLAN + code for code in codes]
    boards = np.frombuffer(cells, dtype=np.uint8).reshape(-1, 16)
    ruins = [i for i in quick.legal_actions() if enc.RUIN <= i < enc.PLAN]
    return _with_ruins(ids, boards, ruins, board)


def _with_ruins(
    ids: list[int], boards: NDArray[np.uint8], ruins: list[int], board: NDArray[np.uint8]
) -> tuple[NDArray[np.int64], NDArray[np.uint8]]:
    if ruins:
        ruined = np.repeat(board[None, :], len(ruins), axis=0)
        ruined[np.arange(len(ruins)), np.array(ruins) - enc.RUIN] = 7
        boards = np.concatenate([boards, ruined])
    return np.array(ids + ruins, dtype=np.int64), boards


# --- the turn level as a list of candidates, for policy gradients ---------------------------


CANDIDATES: Final = 64
""":class:`CandidateEnv`'s bound on the candidates of a decision (its ``Discrete`` size) by
default."""
CANDIDATE_FEATURES: Final = 25
"""The numbers that describe one candidate (see :class:`CandidateEnv`)."""
CAND_AFTERSTATE: Final = 0
"""Offset of a candidate's afterstate: 16 squares, 0 empty, ``v / 6`` a number, -1 a RUIN."""
CAND_POINTS: Final = 16
"""Offset of the points the candidate scores now (the change of the score), / 100."""
CAND_POWERS: Final = 17
"""Offset of the Majda Powers it spends (1 for a power, else 0)."""
CAND_KIND: Final = 18
"""Offset of its kind, one-hot: a plan (a whole turn), a RUIN, DECREASE, INCREASE, REROLL."""
CAND_DICE: Final = 23
"""Offset of the dice a power changes: ``v / 6`` of DECREASE's or INCREASE's die, the number
of dice / 4 of a REROLL; 0 for a plan or a RUIN."""
CAND_PRESENT: Final = 24
"""Offset of 1 for a candidate, 0 for an empty slot."""
_SQUARE_FEATURE: Final = np.array([0, *(v / 6 for v in range(1, 7)), -1], dtype=np.float32)
_LINE_SQUARES: Final = np.array(
    [[4 * r + c for c in range(4)] for r in range(4)]
    + [[4 * r + c for r in range(4)] for c in range(4)]
)
_LINE_PLACES: Final = np.array([1, 8, 64, 512])


@functools.cache
def _line_points() -> NDArray[np.float64]:
    """What each of the 8**4 lines (4 squares of 0-7) adds to a board's score: its numbers,
    its bonus, and half the penalty of each RUIN on it (a RUIN lies on two lines)."""
    table = np.zeros(8**4)
    for code in range(8**4):
        line = [code // 8**k % 8 for k in range(4)]
        bonus = line_bonus(line)
        table[code] = (
            sum(v for v in line if 1 <= v <= 6)
            + (bonus.points if bonus else 0)
            - RUIN_PENALTY / 2 * line.count(7)
        )
    return table


def board_scores(boards: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The engine's score of each board of ``boards`` (n, 16), without power penalties: the
    sum of its lines' points (:func:`~magdagdon.engine.score_board`, vectorised)."""
    lines = boards[:, _LINE_SQUARES].astype(np.int64) @ _LINE_PLACES
    scores: NDArray[np.float64] = _line_points()[lines].sum(axis=1)
    return scores


class CandidateEnv(gymnasium.Env[Observation, np.int64]):
    """The turn level as a short list of candidates with a masked index action, for policy
    gradients (``MaskablePPO`` and the like), whose flat action head cannot span the turn
    level's 83,679 ids: ``gymnasium.make("magdagdon.gym:MagdagdonCandidates-v0", ...)``.

    A decision's candidates are its legal turn-level ids (:class:`MagdagdonEnv` with
    ``turn_level=True``: the turn's distinct staged sets, the powers, the RUINS), at most
    ``candidates`` of them: every power and RUIN, and the plans that score the most now, ties
    drawn by the environment's generator (seeded by ``reset(seed=...)``), when there are more
    than the bound (in random play about one decision in six, mostly early turns). They are in
    slots ``0 .. n-1``, the most points first; the action is a slot
    (``Discrete(candidates)``), ``action_masks()`` and ``info["action_mask"]`` say which
    slots hold one, and ``info["candidates"]`` (``candidate_ids()``) their turn-level ids (-1
    for an empty slot).

    The observation is :func:`~magdagdon.engine.encoding.observation` (269 numbers), then for
    each slot :data:`CANDIDATE_FEATURES` numbers (the ``CAND_*`` offsets): the afterstate (the
    board the candidate leaves: a power leaves it as it is), the points it scores now (/ 100),
    the powers it spends, its kind, the dice a power changes, and whether the slot holds one.
    The reward is the change of the score, as in :class:`MagdagdonEnv`; chance and seeds are
    its (``reset(seed=s)`` plays the server's game of seed ``s``; ``replay()`` replays it).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        difficulty: Difficulty | str = "peaceful",
        candidates: int = CANDIDATES,
        render_mode: str | None = None,
        use_fast: bool | None = None,
    ) -> None:
        """An environment of ``difficulty`` whose decisions list at most ``candidates``
        candidates (at least 24: room for every power and a plan)."""
        if not isinstance(candidates, int) or candidates < 24:
            raise ValueError(f"candidates is a whole number of at least 24, not {candidates!r}")
        self.inner = MagdagdonEnv(difficulty, True, render_mode, use_fast)
        """The turn-level environment the candidates are played on."""
        self.difficulty = self.inner.difficulty
        self.render_mode = render_mode
        self.candidates = candidates
        self.action_space = spaces.Discrete(candidates)
        size = enc.OBS_SIZE + candidates * CANDIDATE_FEATURES
        self.observation_space = spaces.Box(-1.0, 6.0, (size,), np.float32)
        self._obs = np.zeros(size, dtype=np.float32)
        self._features = self._obs[enc.OBS_SIZE :].reshape(candidates, CANDIDATE_FEATURES)
        self._ids = np.full(candidates, -1, dtype=np.int64)
        self._mask = np.zeros(candidates, dtype=np.bool_)

    @property
    def game_seed(self) -> int:
        """The seed of the current game's dice (the server's ``seed``)."""
        return self.inner.game_seed

    @property
    def history(self) -> list[int]:
        """The turn-level ids played in the current game."""
        return self.inner.history

    def replay(self) -> enc.EncodedGame:
        """The current game replayed on the pure-Python engine from its seed and ids."""
        return self.inner.replay()

    def _list(self, observation: Observation) -> None:
        """Fill the candidates of the position ``observation`` shows."""
        self._obs[: enc.OBS_SIZE] = observation
        self._features[:] = 0.0
        self._ids[:] = -1
        self._mask[:] = False
        legal = self.inner.legal_ids()
        if not legal:
            return
        powers = [i for i in legal if enc.DECREASE <= i < enc.RUIN]
        board = self.inner.board()
        now = float(board_scores(board[None, :])[0])
        ids, boards = self.inner.afterstates() if len(legal) > len(powers) else _NO_AFTERSTATE
        points = board_scores(boards) - now if len(ids) else np.zeros(0)
        room = self.candidates - len(powers)
        ties = self.np_random.random(len(ids))
        if len(ids) > room:  # the plans that score the most, ties drawn at random
            keep = np.lexsort((ties, -points))[:room]
            ids, boards, points, ties = ids[keep], boards[keep], points[keep], ties[keep]
        if powers:
            cost = -self.difficulty.penalties[self.inner.powers_used()]
            ids = np.concatenate([ids, np.array(powers, dtype=np.int64)])
            boards = np.concatenate([boards, np.repeat(board[None, :], len(powers), axis=0)])
            points = np.concatenate([points, np.full(len(powers), float(cost))])
            ties = np.concatenate([ties, self.np_random.random(len(powers))])
        order = np.lexsort((ties, -points))
        ids, boards, points = ids[order], boards[order], points[order]
        n = len(ids)
        features = self._features[:n]
        features[:, CAND_AFTERSTATE : CAND_AFTERSTATE + 16] = _SQUARE_FEATURE[boards]
        features[:, CAND_POINTS] = points / 100
        power = (ids >= enc.DECREASE) & (ids < enc.RUIN)
        features[:, CAND_POWERS] = power
        kind = np.select(
            [ids >= enc.PLAN, ids >= enc.RUIN, ids >= enc.REROLL, ids >= enc.INCREASE],
            [0, 1, 4, 3],
            default=2,
        )
        features[np.arange(n), CAND_KIND + kind] = 1.0
        value = np.where(ids >= enc.INCREASE, ids - enc.INCREASE, ids - enc.DECREASE) + 1
        rerolled = np.array([bin(int(m)).count("1") for m in ids - enc.REROLL]) / 4
        features[:, CAND_DICE] = np.select(
            [kind == 4, (kind == 2) | (kind == 3)], [rerolled, value / 6], default=0.0
        )
        features[:, CAND_PRESENT] = 1.0
        self._ids[:n] = ids
        self._mask[:n] = True

    def candidate_ids(self) -> NDArray[np.int64]:
        """The turn-level id of each slot (-1 for an empty one)."""
        return self._ids.copy()

    def action_masks(self) -> NDArray[np.bool_]:
        """The slots that hold a candidate (sb3-contrib's name)."""
        return self._mask.copy()

    def _info(self, inner: dict[str, Any]) -> dict[str, Any]:
        info = {"action_mask": self._mask.copy(), "score": inner["score"]}
        info["candidates"] = self._ids.copy()
        if inner.get("illegal"):
            info["illegal"] = True
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game (see :meth:`MagdagdonEnv.reset`)."""
        super().reset(seed=seed)
        inner_seed = seed if seed is not None else int(self.np_random.integers(2**62))
        observation, info = self.inner.reset(seed=inner_seed)
        self._list(observation)
        return self._obs.copy(), self._info(info)

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the candidate of slot ``action`` (a whole number of the action space, as
        :meth:`MagdagdonEnv.step` takes; an empty slot changes nothing,
        ``info["illegal"]``)."""
        slot = _action_id(action, self.candidates)
        if not self._mask[slot]:
            return (
                self._obs.copy(),
                0.0,
                False,
                False,
                self._info({"score": self.inner._score, "illegal": True}),
            )
        observation, reward, terminated, truncated, info = self.inner.step(int(self._ids[slot]))
        self._list(observation)
        return self._obs.copy(), reward, terminated, truncated, self._info(info)

    def render(self) -> Any:
        """As :meth:`MagdagdonEnv.render`."""
        return self.inner.render()


_NO_AFTERSTATE: Final = (np.zeros(0, dtype=np.int64), np.zeros((0, 16), dtype=np.uint8))


# --- drawing ---------------------------------------------------------------------------------


_CELL: Final = 32
_PIPS: Final = {
    1: [(2, 2)],
    2: [(1, 1), (3, 3)],
    3: [(1, 1), (2, 2), (3, 3)],
    4: [(1, 1), (1, 3), (3, 1), (3, 3)],
    5: [(1, 1), (1, 3), (2, 2), (3, 1), (3, 3)],
    6: [(1, 1), (2, 1), (3, 1), (1, 3), (2, 3), (3, 3)],
}
_COLOURS: Final = {
    "empty": (200, 200, 200),
    "number": (250, 250, 245),
    "staged": (255, 225, 120),
    "ruin": (110, 60, 40),
    "tray": (235, 235, 255),
    "pending": (255, 170, 170),
    "pip": (20, 20, 20),
}


def _face(image: NDArray[np.uint8], top: int, left: int, value: int, colour: str) -> None:
    image[top + 1 : top + _CELL - 1, left + 1 : left + _CELL - 1] = _COLOURS[colour]
    step = _CELL // 4
    for row, col in _PIPS.get(value, []):
        y, x = top + row * step, left + col * step
        image[y - 2 : y + 2, x - 2 : x + 2] = _COLOURS["pip"]


def picture(game: Game, pending: list[int] | None = None) -> NDArray[np.uint8]:
    """The position as an RGB picture: the board, then the tray's dice below it."""
    image = np.full((5 * _CELL + 4, 4 * _CELL, 3), 60, dtype=np.uint8)
    staged = {d.cell: d.value for d in game.dice if d.cell is not None}
    for sq, value in enumerate(game.board):
        top, left = (sq // 4) * _CELL, (sq % 4) * _CELL
        if sq in staged:
            _face(image, top, left, staged[sq], "staged")
        elif value == 7:
            _face(image, top, left, 0, "ruin")
        else:
            _face(image, top, left, value, "number" if value else "empty")
    for k, die in enumerate(d for d in game.dice if d.in_tray):
        colour = "pending" if pending and die.index in pending else "tray"
        _face(image, 4 * _CELL + 4, k * _CELL, die.value, colour)
    return image


# --- registration and vectors ----------------------------------------------------------------


def make_vec(num_envs: int, **kwargs: Any) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """``num_envs`` environments stepped together (Gymnasium's synchronous vector env; each
    one's mask is in ``infos["action_mask"]``), made with ``kwargs``."""
    return gymnasium.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="sync", **kwargs)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="magdagdon.gym:MagdagdonEnv",
        max_episode_steps=MAX_GAME_ACTIONS,
        order_enforce=True,
    )
if CANDIDATES_ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=CANDIDATES_ENV_ID,
        entry_point="magdagdon.gym:CandidateEnv",
        max_episode_steps=MAX_GAME_ACTIONS,
        order_enforce=True,
    )


def _action_id(action: object, size: int) -> int:
    """An action of the Discrete space of ``size`` ids as an int: a TypeError for anything
    but a whole number (an int, a NumPy integer, an integer array of one element), a
    ValueError for a number outside ``0 .. size - 1``."""
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(())[()]
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise TypeError(f"an action is a whole number of the action space, not {action!r}")
    if not 0 <= action < size:
        raise ValueError(f"an action is an id of the action space, 0 to {size - 1}, not {action}")
    return int(action)


__all__ = [
    "CANDIDATES",
    "CANDIDATES_ENV_ID",
    "CANDIDATE_FEATURES",
    "ENV_ID",
    "CandidateEnv",
    "MagdagdonEnv",
    "afterstates",
    "board_scores",
    "make_vec",
    "picture",
]
