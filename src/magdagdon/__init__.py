"""MAGDAGDON: the CUBIRI dice puzzle, its rules engine, AI and web game."""

__version__ = "0.1.0"
