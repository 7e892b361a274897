"""Builds the optional C accelerators (everything else is in pyproject.toml): the strong
player's (``magdagdon.ai._fast``) and the engine's fast path for reinforcement learning
(``magdagdon.engine._fastgame``).

The extensions are ``optional``: where no C compiler is found the install goes on without
them and the pure-Python code runs, which plays the same moves (more slowly).
"""

import sys

from setuptools import Extension, setup

# No contraction of a * b + c into one rounding: the C code must give the same doubles as
# the Python code it speeds up.
flags = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off"]

setup(
    ext_modules=[
        Extension(
            "magdagdon.ai._fast",
            ["src/magdagdon/ai/_fast.c"],
            extra_compile_args=flags,
            optional=True,
        ),
        Extension(
            "magdagdon.engine._fastgame",
            ["src/magdagdon/engine/_fastgame.c"],
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
