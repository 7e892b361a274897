"""``magdagdon play``: the game in the terminal, with Textual.

The game screen keeps a :class:`~magdagdon.engine.Game` and a little state of its own (the
selected die, the cursor, the dice chosen for a REROLL, the hint). Every key and click becomes
an engine action; what the engine refuses is shown with its message and changes nothing.
Only the engine's public API and the coach's :func:`~magdagdon.ai.coach.hint` are used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Final

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Static

from ..ai.coach import Hint, hint
from ..engine import (
    RUIN_PENALTY,
    Action,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
    ScoreBreakdown,
    actions,
)
from .scores import Entry, ScoreStore
from .widgets import BoardPicture, BoardView, DiceTray, Phrases, TrayPicture
from .words import bonus_text, square_at, t

KEYS: Final = "1-4 die · arrows · Enter place · Backspace take back · Esc cancel · ? keys"
"""The keys line under the side panel of buttons."""
SHORT_KEYS: Final = "? keys · r ROLL · c CONFIRM · h HINT · n NEW GAME · q QUIT"
"""The keys line without the side panel (``?`` shows them all)."""
KEY_HELP: Final = (
    ("1-4", "select a die (choosing for REROLL: tick it)"),
    ("arrows", "move the cursor over the board"),
    ("Enter", "place the selected die under the cursor"),
    ("Backspace", "take back the selected or last placed die"),
    ("a", t("take_back_all")),
    ("c", t("confirm")),
    ("r", t("roll")),
    ("+ -", f"{t('increase')} / {t('decrease')} the selected die"),
    ("x", f"{t('reroll')}: tick dice with 1-4, then x or Enter"),
    ("m", f"{t('accept_magdagdon')}: the cursor's square"),
    ("h", f"{t('hint')}: the coach's plan"),
    ("n", t("new_game")),
    ("q", "QUIT"),
    ("y", "yes, in a question"),
    ("Esc", "cancel a question, or choosing dice"),
    ("?", "these keys"),
)
"""Every key and what it does, for the keys sheet (``?``)."""
WIDE: Final = Size(79, 22)
"""The least terminal with the side panel of buttons beside the board (measured: the board
61 columns with its margin, the panel 18; the panel's 17 lines under a status line of two,
above two lines of messages and the keys line)."""
SMALLEST: Final = Size(60, 20)
"""The least terminal the game is played in, without the side panel (measured: the board 60
columns; a status line of two, the board's 12 lines at most, the dice's 3, two lines of
messages and the keys line)."""
Position = tuple[int, int, int]
"""A game's number on this screen, its turns and its actions so far: changes with every action
and every new game."""
MOVES: Final = {"up": -4, "down": 4, "left": -1, "right": 1}
BUTTONS: Final = (
    ("r", t("roll"), "roll", "roll"),
    ("c", t("confirm"), "confirm", "confirm"),
    ("a", t("take_back_all"), "take-back-all", "take_back_all"),
    ("m", t("accept_magdagdon"), "ruin", "ruin"),
    ("", "", "gap", ""),
    ("-", t("decrease"), "decrease", "adjust(-1)"),
    ("+", t("increase"), "increase", "adjust(1)"),
    ("x", t("reroll"), "reroll", "reroll"),
    ("", "", "gap", ""),
    ("h", t("hint"), "hint-button", "hint"),
    ("n", t("new_game"), "new-game", "new_game"),
    ("q", "QUIT", "quit", "quit"),
)
"""The side buttons: key, label, id, the screen's action (gaps between the groups)."""


def describe_plan(advice: Hint, game: Game) -> str:
    """A plan in words, as the browser client says it: ``place 5 → row 1, column 2; …``."""
    board = (advice.board or "").replace("/", "")
    parts: list[str] = []
    staged: list[str] = []
    for action in advice.plan:
        if action["type"] == "stage":
            cell, die = action["cell"], action["die"]
            value = board[cell] if board else str(game.dice[die].value)
            staged.append(f"{value} → {square_at(cell)}")
            continue
        if staged:
            parts.append(t("hint_place", what="; ".join(staged)))
            staged = []
        if action["type"] == "roll":
            parts.append(t("roll"))
        elif action["type"] == "confirm":
            parts.append(t("confirm"))
        elif action["type"] == "unstage_all":
            parts.append(t("take_back_all"))
        elif action["type"] == "adjust":
            key = "hint_increase" if action["delta"] > 0 else "hint_decrease"
            parts.append(t(key, n=action["die"] + 1))
        elif action["type"] == "reroll":
            parts.append(t("reroll_dice", dice=", ".join(str(d + 1) for d in action["dice"])))
        elif action["type"] == "accept_magdagdon":
            parts.append(t("hint_ruin", where=square_at(action["cell"])))
    if staged:
        parts.append(t("hint_place", what="; ".join(staged)))
    return " → ".join(parts)


def ghosts(advice: Hint) -> dict[int, str]:
    """The squares a hint fills: the value it places there, or ``X`` for its RUIN."""
    board = (advice.board or "").replace("/", "")
    marks: dict[int, str] = {}
    for action in advice.plan:
        if action["type"] == "stage" and board:
            marks[action["cell"]] = board[action["cell"]]
        elif action["type"] == "accept_magdagdon":
            marks[action["cell"]] = "X"
    return marks


_DIE = re.compile(r"\bDie ([0-3])\b")
"""A die named in an engine message."""


class KeylessButton(Button, can_focus=False):
    """A button that never takes the keyboard: keys belong to the screen's bindings."""


class Question(ModalScreen[bool]):
    """A yes/no question: y says yes, Escape cancels. The keys that ask questions (n, q,
    Enter, m, x, + and -) answer none, so one pressed twice leaves its question asked."""

    DEFAULT_CSS = """
    Question { align: center middle; }
    Question > Vertical {
        width: 60; height: auto; max-width: 100%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    Question Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    Question Button { margin-left: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("escape", "answer(False)", "cancel"),
    ]

    def __init__(self, question: str, yes: str) -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Phrases(self.question, id="question")
            with Horizontal():
                yield KeylessButton(f"{t('cancel')} (Esc)", id="no", compact=True)
                yield KeylessButton(f"{self.yes} (y)", id="yes", variant="warning", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def breakdown_lines(score: ScoreBreakdown, powers_used: int, powers: int) -> list[str]:
    """The final score as the browser's game-over sheet lists it."""
    width = 30
    lines = [f"{t('base'):<{width}}{score.base:>6}"]
    named = [(t("row_sum", n=i + 1), line) for i, line in enumerate(score.rows)]
    named += [(t("column_sum", n=i + 1), line) for i, line in enumerate(score.columns)]
    for name, line in named:
        if line.bonus:
            label = f"{name}: {bonus_text(line.bonus)}"
            lines.append(f"{label:<{width}}{'+' + str(line.bonus_points):>6}")
    lines.append(f"{t('ruins_n', n=score.ruins):<{width}}{'−' + str(score.ruin_penalty):>6}")
    if powers:
        label = t("powers_used_n", n=powers_used)
        lines.append(f"{label:<{width}}{'−' + str(score.power_penalty):>6}")
    lines.append(f"{t('total'):<{width}}{score.total:>6}")
    return lines


def layout_for(size: Size) -> str:
    """The game screen's layout in a terminal of ``size``: ``wide`` (the side panel of
    buttons beside the board), ``compact`` (no side panel: the keys in one line, ``?`` for
    all) or ``too-small`` (a message saying the size needed; only q works).

    >>> layout_for(Size(80, 24)), layout_for(Size(60, 20)), layout_for(Size(59, 40))
    ('wide', 'compact', 'too-small')
    """
    if size.width < SMALLEST.width or size.height < SMALLEST.height:
        return "too-small"
    if size.width < WIDE.width or size.height < WIDE.height:
        return "compact"
    return "wide"


class Sheet(ModalScreen[str]):
    """A text in a box over the game, with buttons below it; the text scrolls (arrows, page
    keys, the mouse wheel) when the terminal is too short for it."""

    DEFAULT_CSS = """
    Sheet { align: center middle; }
    Sheet > Vertical {
        width: 64; height: auto; max-width: 100%; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    Sheet VerticalScroll { height: auto; }
    Sheet Horizontal { height: auto; margin-top: 1; }
    Sheet Button { margin-right: 2; }
    """
    FRAME: ClassVar[int] = 4
    """Lines of the box that are not its text: the borders and the buttons' row."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def buttons(self) -> ComposeResult:
        """The buttons below the text."""
        yield from ()

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll():
                yield Static(self.text, id="text", markup=False)
            with Horizontal():
                yield from self.buttons()

    def on_mount(self) -> None:
        self.fit(self.app.size)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Let the text take the lines the terminal has besides the box's frame."""
        self.query_one(VerticalScroll).styles.max_height = max(1, size.height - self.FRAME)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "close")

    def action_finish(self, what: str) -> None:
        self.dismiss(what)


class KeysSheet(Sheet):
    """Every key of the game: Escape or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "finish('close')", "close"),
    ]

    def __init__(self) -> None:
        lines = [f"{key:<10} {meaning}" for key, meaning in KEY_HELP]
        lines += ["", "The mouse: click a die, then a square; click a placed die to take it back."]
        super().__init__("\n".join(lines))

    def buttons(self) -> ComposeResult:
        yield KeylessButton(f"{t('close')} (Esc)", id="close", compact=True)


class GameOver(Sheet):
    """The final score, its place and the difficulty's high scores: n starts a new game,
    q quits, Escape closes the sheet (to look at the board)."""

    DEFAULT_CSS = """
    GameOver #text { text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "finish('new')", "new game"),
        Binding("q", "finish('quit')", "quit"),
        Binding("escape", "finish('close')", "close"),
    ]

    def buttons(self) -> ComposeResult:
        yield KeylessButton(f"{t('new_game')} (n)", id="new", variant="primary", compact=True)
        yield KeylessButton(f"{t('close')} (Esc)", id="close", compact=True)


class GameScreen(Screen[None]):
    """The board, the dice, the powers, the messages and the keys of one game after another.

    Its layout follows the terminal's size (:func:`layout_for`): the side panel of buttons
    beside the board from :data:`WIDE` on, else one line of keys; below :data:`SMALLEST` only
    a message saying the size needed, and q. The messages scroll when they do not fit."""

    DEFAULT_CSS = """
    GameScreen { layout: vertical; }
    #status { height: auto; background: $primary-background; padding: 0 1; }
    #main { height: auto; }
    #left { width: auto; height: auto; padding: 0 0 0 1; }
    #side { width: 1fr; min-width: 18; max-width: 32; height: auto; }
    #powers { height: auto; margin-bottom: 1; color: $text-muted; }
    #side Button {
        width: 100%; margin: 0; padding: 0; line-pad: 1; content-align: left middle;
        text-align: left;
    }
    #side .gap { height: 1; }
    DiceTray { margin-top: 1; }
    #notes { height: 1fr; min-height: 2; overflow-y: auto; }
    #message { height: auto; min-height: 1; padding: 0 1; }
    #message.error { color: $error; text-style: bold; }
    #message.magdagdon { color: $warning; text-style: bold; }
    #hint { height: auto; padding: 0 1; color: $accent; }
    #keys { height: auto; padding: 0 1; color: $text-muted; }
    #too-small { display: none; height: 1fr; padding: 1 2; }
    GameScreen.-compact #side { display: none; }
    GameScreen.-compact #left { padding: 0; }
    GameScreen.-compact DiceTray { margin-top: 0; }
    GameScreen.-too-small #status, GameScreen.-too-small #main, GameScreen.-too-small #notes,
    GameScreen.-too-small #keys { display: none; }
    GameScreen.-too-small #too-small { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "select(0)", "die 1", show=False),
        Binding("2", "select(1)", "die 2", show=False),
        Binding("3", "select(2)", "die 3", show=False),
        Binding("4", "select(3)", "die 4", show=False),
        Binding("up", "move('up')", "up", show=False),
        Binding("down", "move('down')", "down", show=False),
        Binding("left", "move('left')", "left", show=False),
        Binding("right", "move('right')", "right", show=False),
        Binding("enter,space", "enter", "place"),
        Binding("backspace,delete", "take_back", "take back"),
        Binding("a", "take_back_all", "take back all"),
        Binding("c", "confirm", "confirm"),
        Binding("r", "roll", "roll"),
        Binding("plus,equals_sign", "adjust(1)", "increase"),
        Binding("minus,underscore", "adjust(-1)", "decrease"),
        Binding("x", "reroll", "reroll"),
        Binding("m", "ruin", "RUIN"),
        Binding("h", "hint", "hint"),
        Binding("n", "new_game", "new game"),
        Binding("q", "quit", "quit"),
        Binding("escape", "cancel", "cancel", show=False),
        Binding("question_mark", "keys", "keys"),
    ]

    def __init__(
        self, difficulty: Difficulty, seed: int | None = None, store: ScoreStore | None = None
    ) -> None:
        super().__init__()
        self.difficulty = difficulty
        self.store = store if store is not None else ScoreStore()
        self.game = Game.new(difficulty, seed)
        self.games = 1
        """Games started on this screen."""
        self.seed = seed
        self.selected: int | None = None
        self.cursor = 5
        self.chosen: set[int] | None = None
        """The dice chosen for a REROLL while choosing them (None otherwise)."""
        self.message = ""
        self.error = False
        self.advice: Hint | None = None
        self.advice_at: Position | None = None
        self.thinking = False
        self.hinted: set[Position] = set()
        self.place: int | None = None
        """The finished game's place in the high scores (None: not among the best, or not
        recorded)."""
        self.finished = False
        self.layout_name = "wide"
        """The layout shown: ``wide``, ``compact`` or ``too-small`` (:func:`layout_for`)."""

    # --- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Phrases(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView()
                yield DiceTray()
            with Vertical(id="side"):
                yield Static(id="powers", markup=False)
                for key, label, name, action in BUTTONS:
                    if name == "gap":
                        yield Static(classes="gap")
                    else:
                        yield KeylessButton(
                            f"{key} {label}", id=name, action=f"screen.{action}", compact=True
                        )
        with Vertical(id="notes"):
            yield Phrases(id="message")
            yield Phrases(id="hint")
        yield Phrases(KEYS, id="keys")
        yield Phrases(id="too-small")

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size)

    def fit(self, size: Size) -> None:
        """Lay the screen out for a terminal of ``size``."""
        self.layout_name = layout = layout_for(size)
        self.set_class(layout == "compact", "-compact")
        self.set_class(layout == "too-small", "-too-small")
        self.query_one("#keys", Phrases).update(KEYS if layout == "wide" else SHORT_KEYS)
        self.query_one("#too-small", Phrases).update(
            f"This terminal is {size.width}×{size.height}: MAGDAGDON needs at least "
            f"{SMALLEST.width}×{SMALLEST.height} ({WIDE.width}×{WIDE.height} with the side "
            "panel of buttons). Make the terminal larger, or press q to quit."
        )
        self.query_one(BoardView).refresh(layout=True)  # the squares' height follows the screen's

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Too small a terminal shows no game: its keys do nothing but q."""
        return action == "quit" or self.layout_name != "too-small"

    def on_mount(self) -> None:
        self.fit(self.app.size)
        if self.store.problem:
            self.say(self.store.problem, error=True)
        elif self.seed is not None:
            self.say(f"The dice of seed {self.seed}: this game will not enter the high scores.")
        self.render_game()

    # --- drawing ----------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """Where the game is: changes with every action and every new game."""
        return (self.games, self.game.turns, len(self.game.actions))

    def say(self, message: str, *, error: bool = False) -> None:
        """Show a message (an error in its colour) until the next action. The engine numbers
        the dice 0-3, as the actions do; on this screen they are 1-4, as their keys."""
        self.message = _DIE.sub(lambda m: f"Die {int(m.group(1)) + 1}", message)
        self.error = error

    def status_text(self) -> str:
        """The status line: difficulty, turn, what the phase asks (dice to place, or the RUIN
        of a MAGDAGDON), powers, live score."""
        game = self.game
        parts = [game.difficulty.name]
        if game.is_over:
            parts.append(f"{t('turns')} {game.turns}")
        else:
            parts.append(f"{t('turn')} {game.turns + 1}")
        if game.phase is Phase.PLACE:
            parts.append(f"{len(game.staged)}/{game.required} dice placed")
        elif game.phase is Phase.MAGDAGDON:
            parts.append("MAGDAGDON: choose a RUIN")
        if game.difficulty.powers:
            cost = game.next_power_cost
            shown = f"{t('powers')} {game.powers_left}"
            parts.append(shown + (f" (next −{cost})" if cost is not None else ""))
        parts.append(f"{t('score')} {game.score(include_staged=True).total}")
        return " · ".join(parts)

    def turn_message(self) -> tuple[str, str]:
        """What the turn asks for, and its class (``magdagdon`` or empty)."""
        game = self.game
        if game.phase is Phase.ROLL:
            return t("press_roll"), ""
        if game.phase is Phase.OVER:
            return t("announce_over", score=game.score().total), ""
        if game.phase is Phase.MAGDAGDON:
            words = [f"MAGDAGDON! {t('magdagdon_why', n=game.required)}"]
            rescues = game.rescuing_adjustments()
            if rescues:
                ways = ", ".join(
                    t("rescue_up" if delta > 0 else "rescue_down", n=die + 1)
                    for die, delta in rescues
                )
                words.append(t("rescue_hint", ways=ways))
            words.append(t("choose_ruin") + " (m)")
            return " ".join(words), "magdagdon"
        if self.chosen is not None:
            return t("choose_reroll") + " (1-4, then x or Enter)", ""
        if game.dead_end:
            return t("dead_end"), "magdagdon"
        if game.can_confirm:
            return t("can_confirm", n=len(game.staged)), ""
        return t("place_at_least", n=game.required), ""

    def render_game(self) -> None:
        """Draw everything from the game and the screen's state."""
        game = self.game
        dice = game.dice
        if self.selected is not None and self.selected >= len(dice):
            self.selected = None
        lit: frozenset[int] = frozenset()
        if game.phase is Phase.MAGDAGDON:
            lit = frozenset(game.ruin_choices)
        elif self.selected is not None and self.chosen is None:
            lit = game.legal_cells(self.selected)
        current = self.advice if self.advice_at == self.position else None
        self.query_one(BoardView).show(
            BoardPicture(
                cells=game.staged_board.cells,
                score=game.score(include_staged=True),
                staged=frozenset(d.cell for d in dice if d.cell is not None),
                lit=lit,
                cursor=None if game.is_over else self.cursor,
                ghosts=ghosts(current) if current else {},
                ruin_mode=game.phase is Phase.MAGDAGDON,
            )
        )
        self.query_one(DiceTray).show(
            TrayPicture(
                values=tuple(d.value for d in dice),
                staged=frozenset(d.index for d in dice if d.cell is not None),
                selected=self.selected,
                chosen=frozenset(self.chosen) if self.chosen is not None else None,
            )
        )
        self.query_one("#status", Static).update(self.status_text())
        powers = self.query_one("#powers", Static)
        if game.difficulty.powers == 0:
            powers.update(f"{game.difficulty.name}: no Majda Powers")
        elif game.next_power_cost is None:
            powers.update(t("powers_none_left"))
        else:
            powers.update(t("powers_left", n=game.powers_left, cost=game.next_power_cost))
        self._enable(game)
        if self.message:
            text, kind = self.message, "error" if self.error else ""
        else:
            text, kind = self.turn_message()
        message = self.query_one("#message", Static)
        message.update(text)
        message.set_classes(kind)
        hint_line = self.query_one("#hint", Static)
        if self.thinking:
            hint_line.update(f"{t('hint')}…")
        elif current is not None:
            hint_line.update(
                f"{t('hint')} · {t('hint_expected', score=round(current.expected_score))}: "
                f"{describe_plan(current, game)}"
            )
        else:
            hint_line.update("")
            self.query_one("#notes").scroll_home(animate=False)  # the message's first line

    def _enable(self, game: Game) -> None:
        playing = game.phase in (Phase.PLACE, Phase.MAGDAGDON)
        sel = self.selected
        can = {
            "roll": game.phase is Phase.ROLL,
            "confirm": game.can_confirm,
            "take-back-all": playing and bool(game.staged),
            "ruin": game.phase is Phase.MAGDAGDON,
            "decrease": sel is not None and game.can_adjust(sel, -1),
            "increase": sel is not None and game.can_adjust(sel, 1),
            "reroll": playing and game.powers_left > 0,
            "hint-button": not game.is_over and not self.thinking,
        }
        for name, enabled in can.items():
            self.query_one(f"#{name}", Button).disabled = not enabled
        for name in ("decrease", "increase", "reroll"):
            self.query_one(f"#{name}", Button).display = game.difficulty.powers > 0

    # --- acting -----------------------------------------------------------------------------

    def act(self, action: Action) -> bool:
        """Apply an action; on a RuleViolation show its message and change nothing."""
        try:
            self.game.apply(action)
        except RuleViolation as exc:
            self.say(exc.message, error=True)
            self.render_game()
            return False
        self.say("")
        game = self.game
        if game.phase is Phase.MAGDAGDON and self.cursor not in game.ruin_choices:
            self.cursor = game.ruin_choices[0]  # onto a square that can become the RUIN
        if game.is_over:
            self.finish()
        return True

    def refused(self, action: Action) -> bool:
        """Whether the engine would refuse the action now (then its message is shown): tried
        on a copy of the game, before a question about it is asked."""
        try:
            self.game.copy().apply(action)
        except RuleViolation as exc:
            self.say(exc.message, error=True)
            self.render_game()
            return True
        return False

    def after_turn(self) -> None:
        self.selected = None
        self.chosen = None

    def first_tray_die(self) -> int | None:
        return next((d.index for d in self.game.dice if d.in_tray), None)

    def action_select(self, die: int) -> None:
        game = self.game
        if not game.dice:
            self.say(t("press_roll") if game.phase is Phase.ROLL else t("game_over"), error=True)
        elif self.chosen is not None:
            if game.dice[die].in_tray:
                self.chosen ^= {die}
                self.say("")
            else:
                self.say(f"Die {die + 1} is on the board: take it back first.", error=True)
        else:
            self.selected = die
            self.say("")
        self.render_game()

    def action_move(self, direction: str) -> None:
        step = MOVES[direction]
        row, col = divmod(self.cursor, 4)
        edge = {"left": col == 0, "right": col == 3, "up": row == 0, "down": row == 3}
        if not edge[direction]:
            self.cursor += step
        self.render_game()

    def action_enter(self) -> None:
        if self.game.phase is Phase.MAGDAGDON:
            self.action_ruin()
        elif self.chosen is not None:
            self.action_reroll()
        else:
            self.place_on(self.cursor)

    def place_on(self, square: int) -> None:
        """Stage the selected die on a square (the engine says why not)."""
        if self.selected is None:
            if self.game.phase is Phase.PLACE:
                self.say(t("select_die_first"), error=True)
                self.render_game()
            else:
                self.act(actions.stage(0, square))
            return
        if self.act(actions.stage(self.selected, square)):
            self.selected = self.first_tray_die()
        self.render_game()

    def action_take_back(self) -> None:
        game = self.game
        sel = self.selected
        if sel is not None and sel < len(game.dice) and not game.dice[sel].in_tray:
            self.act(actions.unstage(sel))
        elif game.staged:
            die = game.staged[-1]
            if self.act(actions.unstage(die)):
                self.selected = die
        else:
            self.act(actions.unstage_all())  # the engine says why there is nothing to take
        self.render_game()

    def action_take_back_all(self) -> None:
        if self.act(actions.unstage_all()):
            self.selected = self.first_tray_die()
        self.render_game()

    def action_confirm(self) -> None:
        if self.act(actions.confirm()):
            self.after_turn()
        self.render_game()

    def action_roll(self) -> None:
        if self.act(actions.roll()):
            self.chosen = None
            self.selected = 0 if self.game.phase is Phase.PLACE else None
        self.render_game()

    def ask(self, question: str, yes: str, then: Callable[[], None]) -> None:
        """Ask a yes/no question; ``then`` runs on yes."""

        def answered(answer: bool | None) -> None:
            if answer:
                then()
            self.render_game()

        self.app.push_screen(Question(question, yes), answered)

    def power_question(self, what: str) -> str:
        return t("power_confirm", what=what, cost=self.game.next_power_cost)

    def action_adjust(self, delta: int) -> None:
        if self.selected is None and self.game.phase in (Phase.PLACE, Phase.MAGDAGDON):
            self.say(t("select_die_first"), error=True)
            self.render_game()
            return
        die = self.selected if self.selected is not None else 0
        action = actions.adjust(die, delta)
        if self.refused(action):
            return
        what = f"{t('increase' if delta > 0 else 'decrease')} (die {die + 1})"

        def adjust() -> None:
            self.act(action)

        self.ask(self.power_question(what), t("use_power"), adjust)

    def action_reroll(self) -> None:
        if self.chosen is None:
            # The engine checks the phase and the powers before the selection: an empty
            # selection is the only refusal that means REROLL is possible now.
            try:
                self.game.copy().reroll([])
            except RuleViolation as exc:
                if exc.code != "empty_selection":
                    self.say(exc.message, error=True)
                    self.render_game()
                    return
            self.chosen = set()
            self.say("")
            self.render_game()
            return
        action = actions.reroll(self.chosen)
        if self.refused(action):
            return
        what = t("reroll_dice", dice=", ".join(str(d + 1) for d in sorted(self.chosen)))

        def reroll() -> None:
            if self.act(action):
                self.chosen = None

        self.ask(self.power_question(what), t("use_power"), reroll)

    def action_ruin(self) -> None:
        square = self.cursor
        action = actions.accept_magdagdon(square)
        if self.refused(action):
            return
        question = (
            f"{t('accept_magdagdon')}? {square_at(square, starts=True)} becomes a RUIN for the "
            f"rest of the game (−{RUIN_PENALTY} points)."
        )

        def accept() -> None:
            if self.act(action):
                self.after_turn()

        self.ask(question, t("accept_magdagdon"), accept)

    def action_keys(self) -> None:
        self.app.push_screen(KeysSheet())

    def action_cancel(self) -> None:
        if self.chosen is not None:
            self.chosen = None
        self.say("")
        self.render_game()

    def on_board_view_clicked(self, event: BoardView.Clicked) -> None:
        self.cursor = event.square
        game = self.game
        if game.phase is Phase.MAGDAGDON:
            self.action_ruin()
            return
        on_square = next((d for d in game.dice if d.cell == event.square), None)
        if on_square is not None and self.chosen is None:
            if self.act(actions.unstage(on_square.index)):
                self.selected = on_square.index
            self.render_game()
        elif self.chosen is None and game.phase is Phase.PLACE:
            self.place_on(event.square)
        else:
            self.render_game()

    def on_dice_tray_clicked(self, event: DiceTray.Clicked) -> None:
        self.action_select(event.die)

    # --- the coach --------------------------------------------------------------------------

    def action_hint(self) -> None:
        if self.game.is_over:
            self.say(t("game_over"), error=True)
        elif self.advice_at == self.position or self.thinking:
            pass  # shown already, or coming
        else:
            self.thinking = True
            self.ask_coach(self.game.copy(), self.position)
        self.render_game()

    @work(thread=True, exclusive=True, group="coach", exit_on_error=False)
    def ask_coach(self, game: Game, position: Position) -> None:
        """The coach's hint for a copy of the game, in a thread (a few hundred ms at most)."""
        try:
            advice = hint(game)
        except Exception as exc:  # the game goes on without the hint
            self.app.call_from_thread(self.hint_failed, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self.show_hint, advice, position)

    def hint_failed(self, why: str) -> None:
        self.thinking = False
        self.say(f"The coach could not give a hint ({why}).", error=True)
        self.render_game()

    def show_hint(self, advice: Hint, position: Position) -> None:
        self.thinking = False
        if position == self.position:
            self.advice, self.advice_at = advice, position
            self.hinted.add(position)
        self.render_game()
        # asked for, it is shown even when the messages above it leave it no room
        self.call_after_refresh(self.query_one("#hint").scroll_visible, animate=False)

    # --- games ------------------------------------------------------------------------------

    def finish(self) -> None:
        """The game is over: record it and show the result. A game whose dice were chosen
        (``--seed``) is not recorded: as on the server, chosen dice never score."""
        if self.finished:
            return
        self.finished = True
        game = self.game
        if self.seed is None:
            entry = Entry(
                date=Entry.now(),
                difficulty=game.difficulty.value,
                score=game.score().total,
                turns=game.turns,
                powers_used=game.powers_used,
                hints_used=len(self.hinted),
            )
            self.place = self.store.add(entry)
        self.after_turn()
        self.call_after_refresh(self.show_result)

    def result_text(self) -> str:
        """The game-over sheet: the final score, its breakdown, the place, the table."""
        game = self.game
        score = game.score()
        name = game.difficulty.name
        lines = [f"{t('game_over')}. {t('score')} {score.total}", ""]
        lines += breakdown_lines(score, game.powers_used, game.difficulty.powers)
        if len(self.hinted):
            lines.append(t("hints_used_n", n=len(self.hinted)))
        lines.append("")
        if self.seed is not None:
            lines.append(f"Not recorded: this game's dice were chosen (--seed {self.seed}).")
            lines.append("Games with chosen dice never enter the high scores.")
        elif self.store.problem:
            lines.append(self.store.problem)
        elif self.place is not None:
            lines.append(f"Place {self.place} among your {name} games.")
        else:
            lines.append(f"Not among your ten best {name} games.")
        lines.append("")
        lines.append(f"{t('high_scores')} · {name}")
        head = f"{'#':>2}  {t('score'):>5}  {t('date'):<16}  {t('turns'):>5}  "
        lines.append(head + f"{t('powers'):>6}  {t('hints'):>5}")
        for n, e in enumerate(self.store.table(game.difficulty), 1):
            mark = "▶" if n == self.place else " "
            lines.append(
                f"{n:>2}{mark} {e.score:>5}  {e.date.replace('T', ' '):<16}  {e.turns:>5}  "
                f"{e.powers_used:>6}  {e.hints_used:>5}"
            )
        return "\n".join(lines)

    def show_result(self) -> None:
        def chosen(what: str | None) -> None:
            if what == "new":
                self.start_new()
            elif what == "quit":
                self.app.exit()

        self.app.push_screen(GameOver(self.result_text()), chosen)

    def in_progress(self) -> bool:
        return bool(self.game.actions) and not self.game.is_over

    def start_new(self) -> None:
        """A new game of the same difficulty (with random dice)."""
        self.game = Game.new(self.difficulty)
        self.games += 1
        self.seed = None
        self.selected = None
        self.chosen = None
        self.advice = self.advice_at = None
        self.hinted = set()
        self.place = None
        self.finished = False
        self.say(t("announce_new_game", name=self.difficulty.name))
        self.render_game()

    def action_new_game(self) -> None:
        if self.in_progress():
            self.ask(t("abandon_confirm"), t("new_game"), self.start_new)
        else:
            self.start_new()

    def action_quit(self) -> None:
        if self.in_progress():
            self.ask("Quit? The game in progress will be lost.", "QUIT", self.app.exit)
        else:
            self.app.exit()


class MagdagdonApp(App[None]):
    """MAGDAGDON in the terminal."""

    TITLE = "MAGDAGDON"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        difficulty: Difficulty | str = Difficulty.PEACEFUL,
        seed: int | None = None,
        store: ScoreStore | None = None,
    ) -> None:
        super().__init__()
        self.game_screen = GameScreen(Difficulty(difficulty), seed, store)

    @property
    def game(self) -> Game:
        """The game being played."""
        return self.game_screen.game

    def get_default_screen(self) -> Screen[Any]:
        return self.game_screen


def run(difficulty: str, seed: int | None, **options: Any) -> int:
    """Play in this terminal until the player quits; the exit status."""
    MagdagdonApp(difficulty, seed, **options).run()
    return 0
