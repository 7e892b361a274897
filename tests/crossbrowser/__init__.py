"""The game in Firefox and WebKit (the main browser tests, tests/browser, use Chromium)."""

from __future__ import annotations

import os

import pytest


def without(reason: str | None) -> None:
    """Skip for what is missing, if anything; where ``MAGDAGDON_REQUIRE_BROWSERS`` is set
    (``.ci/run`` sets it once it installed them) a missing browser fails the test instead."""
    if reason is None:
        return
    if os.environ.get("MAGDAGDON_REQUIRE_BROWSERS"):
        pytest.fail(f"MAGDAGDON_REQUIRE_BROWSERS is set but {reason}")
    pytest.skip(reason)


# the journeys' and pages' asserts say what they compared, as a test module's do
pytest.register_assert_rewrite(f"{__name__}.journeys", f"{__name__}.pages")
