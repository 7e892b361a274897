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

NT_SIZE: int
"""The number of weights of a plain n-tuple network (see :mod:`magdagdon.ai.ntuple`)."""
NT_SIZE_MASKED: int
"""The number of weights of a masked n-tuple network."""

def nt_value(cells: bytes, network: bytes) -> float:
    """An n-tuple network's value of a board (the expected change of its score to come)."""

def nt_learned(cells: bytes, powers: int, network: bytes, power_a: float, power_b: float) -> float:
    """Score + the network's value + what the powers held are worth."""

def nt_best_rolls(
    cells: bytes,
    powers: int,
    required: int,
    network: bytes,
    power_a: float,
    power_b: float,
    table: bytes,
    params: bytes,
    minimum: int = 0,
    exact_empty: int = 0,
) -> tuple[tuple[float, ...], int]:
    """best_rolls with the network's learned value."""

def nt_best(
    cells: bytes, dice: tuple[int, int, int, int], required: int, network: bytes
) -> tuple[float, bytes]:
    """The greedy afterstate of a roll (by score + value; a RUIN when it cannot be placed)."""

def nt_train(
    network: bytearray,
    minimum: int,
    games: int,
    state: int,
    alpha0: float,
    alpha1: float,
    start: int,
    total: int,
    learn: bool = True,
    e: bytearray = ...,
    a: bytearray = ...,
) -> tuple[int, int, int]:
    """Self-play games by TD(0) (the network changed in place): the generator's state after
    them, the sum of their final scores and their ruins; with ``e`` and ``a`` (as large as
    the network), temporal coherence scales each weight's step."""

def nt_power_choice(
    cells: bytes,
    dice: tuple[int, int, int, int],
    required: int,
    left: int,
    networks: bytes,
    powers: int,
    penalties: tuple[int, ...],
    margin: float,
) -> tuple[int, float, bytes, int, int]:
    """The self-play's choice of a roll with ``left`` powers left, a network per number of
    powers left: (kind, value, board, a, delta); kind 0 the roll as it is (a: 1 placed, 0 a
    RUIN), 1 a die changed by ``delta`` (a: its index), 2 a REROLL (a: the dice's bit set;
    no board)."""

def nt_train_powers(
    networks: bytearray,
    minimum: int,
    powers: int,
    penalties: tuple[int, ...],
    games: int,
    state: int,
    alpha0: float,
    alpha1: float,
    start: int,
    total: int,
    margin: float,
    learn: bool = True,
) -> tuple[int, int, int, int]:
    """Self-play games with the powers by TD(0), the networks (one per number of powers
    left) changed in place: the generator's state after them, the sum of their final scores
    (penalties paid), their ruins and the powers used."""
