"""The board and the dice, each drawn as text by one widget that also maps mouse clicks;
and :class:`Phrases`, text that never breaks a line inside a name such as "column 3"
(:func:`~magdagdon.tui.words.wrap_phrases`).

What they show comes from the game screen as a picture (:class:`BoardPicture`,
:class:`TrayPicture`): the widgets know nothing of the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ..engine import EMPTY, RUIN, LineScore, ScoreBreakdown
from .words import bonus_text, wrap_phrases

INNER: Final = 9
"""The width of a square inside its borders ("TWO PAIRS" fits under a column)."""
PITCH: Final = INNER + 1
SUMS: Final = 19
"""The width of the row sums at the right of the board (" 18  TWO PAIRS +20")."""
WIDTH: Final = 4 * PITCH + 1 + SUMS

STYLE: Final = {
    "grid": "grey50",
    "number": "bold",
    "staged": "bold cyan",
    "lit": "on #21452a",
    "lit_ruin": "on #4a2020",
    "cursor": "bold yellow",
    "cursor_bg": "on grey30",
    "ghost": "italic magenta",
    "ruin": "bold red",
    "sum": "",
    "bonus": "bold green",
    "die": "bold",
    "die_selected": "bold yellow",
    "die_staged": "grey50",
    "die_chosen": "bold magenta",
}


@dataclass(frozen=True)
class BoardPicture:
    """What the board shows: the squares (staged dice on them), which of them hold staged
    dice, the lit squares, the cursor, the hint's marks and the live score."""

    cells: tuple[int, ...]
    score: ScoreBreakdown
    staged: frozenset[int] = frozenset()
    lit: frozenset[int] = frozenset()
    cursor: int | None = None
    ghosts: Mapping[int, str] = field(default_factory=dict)
    """Squares the hint fills: the value it places, or ``X`` for its RUIN."""
    ruin_mode: bool = False
    """The lit squares are RUIN choices (MAGDAGDON)."""


def _square(picture: BoardPicture, sq: int, middle: bool) -> Text:
    value = picture.cells[sq]
    lit = sq in picture.lit
    back = ""
    if lit:
        back = STYLE["lit_ruin"] if picture.ruin_mode else STYLE["lit"]
    elif sq == picture.cursor:
        back = STYLE["cursor_bg"]
    cursor = sq == picture.cursor
    if not middle:
        word, style = "", ""
    elif value == RUIN:
        word, style = "RUIN", STYLE["ruin"]
    elif value != EMPTY and sq in picture.staged:
        word, style = f"[{value}]", STYLE["staged"]
    elif value != EMPTY:
        word, style = str(value), STYLE["number"]
    elif sq in picture.ghosts:
        word, style = f"({picture.ghosts[sq]})", STYLE["ghost"]
    elif lit:
        word, style = "·", ""
    else:
        word, style = "", ""
    text = Text()
    inner = INNER - 2
    left = (inner - len(word)) // 2
    text.append("▶" if cursor and middle else " ", f"{STYLE['cursor']} {back}")
    text.append(" " * left + word + " " * (inner - left - len(word)), f"{style} {back}".strip())
    text.append("◀" if cursor and middle else " ", f"{STYLE['cursor']} {back}")
    return text


def _sum(line: LineScore, width: int, *, centred: bool) -> Text:
    number = str(line.total)
    return Text(number.center(width) if centred else f" {number:>3}", STYLE["sum"])


def board_text(picture: BoardPicture, height: int = 1) -> Text:
    """The board with its borders, row sums at the right and column sums (with their
    combinations) below; each square ``height`` lines tall."""
    grid = STYLE["grid"]
    out = Text(no_wrap=True, overflow="crop")

    def rule(left: str, mid: str, right: str) -> None:
        out.append(left + mid.join("─" * INNER for _ in range(4)) + right + "\n", grid)

    rule("┌", "┬", "┐")
    for r in range(4):
        for y in range(height):
            middle = y == height // 2
            out.append("│", grid)
            for c in range(4):
                out.append_text(_square(picture, 4 * r + c, middle))
                out.append("│", grid)
            if middle:
                line = picture.score.rows[r]
                out.append_text(_sum(line, 0, centred=False))
                if line.bonus:
                    out.append("  " + bonus_text(line.bonus), STYLE["bonus"])
            out.append("\n")
        if r < 3:
            rule("├", "┼", "┤")
    rule("└", "┴", "┘")
    columns = picture.score.columns
    out.append(" ")
    for line in columns:
        out.append_text(_sum(line, PITCH, centred=True))
    out.append("\n ")
    for line in columns:
        name = bonus_text(line.bonus).rpartition(" ")[0] if line.bonus else ""
        out.append(name.center(PITCH), STYLE["bonus"])
    out.append("\n ")
    for line in columns:
        points = f"+{line.bonus_points}" if line.bonus else ""
        out.append(points.center(PITCH), STYLE["bonus"])
    out.rstrip()
    return out


def square_at(x: int, y: int, height: int = 1) -> int | None:
    """The square drawn at ``(x, y)`` of :func:`board_text` (borders belong to the square
    left of or above them), or None outside the squares."""
    if not 1 <= x < 4 * PITCH or not 1 <= y < 4 * (height + 1):
        return None
    return 4 * ((y - 1) // (height + 1)) + (x - 1) // PITCH


class BoardView(Widget):
    """The board. A click on a square posts :class:`BoardView.Clicked`."""

    DEFAULT_CSS = f"""
    BoardView {{ width: {WIDTH}; height: auto; text-wrap: nowrap; text-overflow: clip; }}
    """

    class Clicked(Message):
        """A square was clicked."""

        def __init__(self, square: int) -> None:
            super().__init__()
            self.square = square

    picture: BoardPicture | None = None

    def show(self, picture: BoardPicture) -> None:
        """Draw this picture."""
        self.picture = picture
        self.refresh(layout=True)  # its height changes with the combinations shown

    TALL: ClassVar[int] = 36
    """Terminals of at least this many lines get squares three lines tall."""

    @property
    def square_height(self) -> int:
        """Lines per square: three when the terminal is tall enough, else one."""
        return 3 if self.app.size.height >= self.TALL else 1

    def render(self) -> Text:
        if self.picture is None:
            return Text()
        return board_text(self.picture, self.square_height)

    def on_click(self, event: events.Click) -> None:
        square = square_at(event.x, event.y, self.square_height)
        if square is not None:
            event.stop()
            self.post_message(self.Clicked(square))


@dataclass(frozen=True)
class TrayPicture:
    """The four dice: values (none before ROLL), staged ones, the selected die, the dice
    chosen for a REROLL."""

    values: tuple[int, ...] = ()
    staged: frozenset[int] = frozenset()
    selected: int | None = None
    chosen: frozenset[int] | None = None
    """The dice chosen for a REROLL (None: not choosing)."""


DIE_WIDTH: Final = 7
DIE_GAP: Final = 2


def tray_text(picture: TrayPicture) -> Text:
    """Four dice as boxes with their key (1-4) in the top border; the selected die in a heavy
    box, staged dice dimmed with their value in brackets, REROLL choices ticked."""
    lines = [Text(no_wrap=True), Text(no_wrap=True), Text(no_wrap=True)]
    for i in range(4):
        value = picture.values[i] if i < len(picture.values) else None
        staged = i in picture.staged
        chosen = picture.chosen is not None and i in picture.chosen
        heavy = i == picture.selected and picture.chosen is None
        if chosen:
            style = STYLE["die_chosen"]
        elif heavy:
            style = STYLE["die_selected"]
        elif staged or value is None:
            style = STYLE["die_staged"]
        else:
            style = STYLE["die"]
        h, v, corners = ("━", "┃", "┏┓┗┛") if heavy or chosen else ("─", "│", "┌┐└┘")
        mark = "✓" if chosen else h
        face = "" if value is None else f"[{value}]" if staged else str(value)
        gap = " " * DIE_GAP if i < 3 else ""
        lines[0].append(f"{corners[0]}{h}{i + 1}{h}{mark}{h}{corners[1]}" + gap, style)
        lines[1].append(f"{v}{face.center(DIE_WIDTH - 2)}{v}" + gap, style)
        lines[2].append(f"{corners[2]}{h * (DIE_WIDTH - 2)}{corners[3]}" + gap, style)
    return Text("\n").join(lines)


class DiceTray(Widget):
    """The dice. A click on a die posts :class:`DiceTray.Clicked`."""

    DEFAULT_CSS = f"""
    DiceTray {{ width: {4 * DIE_WIDTH + 3 * DIE_GAP}; height: 3; }}
    """

    class Clicked(Message):
        """A die was clicked."""

        def __init__(self, die: int) -> None:
            super().__init__()
            self.die = die

    picture = TrayPicture()

    def show(self, picture: TrayPicture) -> None:
        """Draw this picture."""
        self.picture = picture
        self.refresh()

    def render(self) -> Text:
        return tray_text(self.picture)

    def on_click(self, event: events.Click) -> None:
        die, within = divmod(event.x, DIE_WIDTH + DIE_GAP)
        if 0 <= die < 4 and within < DIE_WIDTH:
            event.stop()
            self.post_message(self.Clicked(die))


class Phrases(Static):
    """Plain text that wraps between phrases (:func:`wrap_phrases`), never inside a name.
    Its ``content`` is the text as given."""

    def __init__(self, text: str = "", *, id: str | None = None) -> None:
        super().__init__(text, id=id, markup=False)

    def lines(self, width: int) -> list[str]:
        """The text's lines at ``width`` cells (none without text)."""
        text = str(self.content)
        return wrap_phrases(text, width) if text else []

    def render(self) -> Text:
        return Text("\n".join(self.lines(self.size.width)), no_wrap=True, overflow="crop")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max(map(cell_len, self.lines(0)), default=0)
