"""Build the rules screens' texts (static/rules/{en,et,sv}.txt) from the repository's docs.

Estonian and Swedish are the game's original rules texts (docs/rules/rules-et.txt and
rules-sv.txt) from their first section on (EESMÄRK, MÅL): the Estonian text opens with two
promotional sentences that do not describe this game. English is docs/rules.md from "Goal"
up to its rulings, in the same plain format: headings in capitals, bullets starting with
"•", other lines paragraphs; its quoted lines (">", the pointers to the rulings) are left out.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OUT = ROOT / "src" / "magdagdon" / "web" / "static" / "rules"


def original_text(name: str, first_heading: str) -> str:
    """An original rules text's rules from ``first_heading`` on, bullets normalised to "•"."""
    text = (DOCS / "rules" / name).read_text(encoding="utf-8")
    start = text.index(first_heading)
    lines = [re.sub(r"^\s*•\s*", "• ", line).rstrip() for line in text[start:].splitlines()]
    return "\n".join(lines).strip() + "\n"


def _difficulty_line(cells: list[str]) -> str:
    level, powers, dice, penalties = cells
    count = f"{powers} Majda Power" + ("" if powers == "1" else "s")
    if penalties in ("—", "-", ""):
        return f"• {level}: {count}; place {dice} dice a turn."
    return (
        f"• {level}: {count}; place {dice} dice a turn; "
        f"power penalties in order of use: {penalties}."
    )


def english_text() -> str:
    """docs/rules.md's rules (not its rulings or glossary) in the rules screen's format."""
    md = (DOCS / "rules.md").read_text(encoding="utf-8")
    body = md[md.index("## Goal") : md.index("## Rulings")]
    out: list[str] = []
    joinable = False  # the last line is a bullet or paragraph that a wrapped line continues
    for raw in body.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if line.startswith("## "):
            out += ["", line[3:].upper()]
            joinable = False
        elif line.startswith(("---", ">")):
            joinable = False
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] != "level" and not set("".join(cells)) <= set("-: "):
                out.append(_difficulty_line(cells))
            joinable = False
        elif line.startswith("- "):
            out.append("• " + line[2:].strip())
            joinable = True
        elif not stripped:
            out.append("")
            joinable = False
        elif joinable:
            out[-1] += " " + stripped
        else:
            out.append(stripped)
            joinable = True
    text = "\n".join(out)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"\*(\w+)\*", r"\1", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text + "\n"


def texts() -> dict[str, str]:
    """The three texts, by language."""
    return {
        "en": english_text(),
        "et": original_text("rules-et.txt", "EESMÄRK"),
        "sv": original_text("rules-sv.txt", "MÅL"),
    }


def main() -> None:
    """Write the files."""
    OUT.mkdir(parents=True, exist_ok=True)
    for language, text in texts().items():
        (OUT / f"{language}.txt").write_text(text, encoding="utf-8")
        print(OUT / f"{language}.txt", len(text))


if __name__ == "__main__":
    main()
