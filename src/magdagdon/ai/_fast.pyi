"""Type information of the C accelerator (see ``_fast.c`` and :mod:`magdagdon.ai.fast`)."""

PARAMS: str
"""The params' names in their packed order, space-separated."""
LINE_WEIGHTS: str
"""The line weights' names in their packed order, space-separated."""
NPARAMS: int
NLINE_WEIGHTS: int
NROLLS: int
EMPTY: int
RUIN: int

def line_table(line_weights: bytes, straight: int, four: int, two_pairs: int) -> bytes:
    """Every line's value, as 24**4 doubles indexed by the line's square codes."""

def value(cells: bytes, powers: int, table: bytes, params: bytes) -> float:
    """The learned value of a board."""

def best_rolls(
    cells: bytes,
    powers: int,
    required: int,
    table: bytes,
    params: bytes,
    minimum: int = 0,
    exact_empty: int = 0,
) -> tuple[tuple[float, ...], int]:
    """Per roll, the value of its best next afterstate (-inf if it cannot be placed), and the
    number of staged sets looked at."""

def exact(cells: bytes, minimum: int, table: bytes, params: bytes) -> float:
    """The expected final score of a board with no power left, played exactly to the end."""
