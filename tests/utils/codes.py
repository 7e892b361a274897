"""The error codes the server can answer, found in its source (the engine's RuleViolations, the
web layer's ApiErrors and error responses)."""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent.parent / "src" / "magdagdon"


def error_codes() -> set[str]:
    """Every error code written in the source."""
    source = "\n".join(
        p.read_bytes().decode("utf-8", errors="replace") for p in SOURCE.rglob("*.py")
    )
    codes = set(re.findall(r"RuleViolation\(\s*\"([a-z_]+)\"", source))
    codes |= set(re.findall(r"(?:ApiError|error_response)\(\s*\d+,\s*\"([a-z_]+)\"", source))
    codes |= set(re.findall(r"\"code\": \"([a-z_]+)\"", source))
    return codes
