"""Builds the strong player's optional C accelerator (everything else is in pyproject.toml).

The extension is ``optional``: where no C compiler is found the install goes on without it
and the player runs its pure-Python code, which plays the same moves (more slowly).
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
        )
    ]
)
