"""Codex's apply_patch envelope: which files a patch adds, updates, moves and deletes.

The format, as Codex's own apply_patch tool reads it (openai/codex, codex-rs/apply-patch):
`*** Begin Patch`, then sections `*** Add File: PATH` (every line `+text`),
`*** Update File: PATH` (optionally followed by `*** Move to: NEW`, then `@@` hunks of
` `, `-` and `+` lines), `*** Delete File: PATH`, and `*** End Patch`. Paths are relative
to the call's working directory unless absolute. Headers are read after trimming the line,
as Codex reads them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ADD, UPDATE, DELETE = "add", "update", "delete"
_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


class PatchError(ValueError):
    """A patch the guard cannot read: it is refused rather than guessed at."""


class PatchFile(NamedTuple):
    """One file section of a patch; `added` holds the text of its `+` lines."""

    op: str
    path: str
    move_to: str | None = None
    added: str = ""


def looks_like_patch(text: str) -> bool:
    return "*** Begin Patch" in text


def parse_patch(text: str) -> list[PatchFile]:
    """Every file section of an apply_patch envelope; PatchError if there is none or it is malformed."""
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "*** Begin Patch")
    except StopIteration:
        raise PatchError("no '*** Begin Patch' line") from None
    sections: list[tuple[str, str, list[str], list[str]]] = []  # op, path, [move_to], added lines
    for line in lines[start + 1 :]:
        if line.strip() == "*** End Patch":
            break
        # Codex trims a line before it reads it as a header (codex-rs/apply-patch/src/parser.rs,
        # `parse_one_hunk`): ` *** Delete File: x` deletes x, so it is read as one here too.
        header, move = _HEADER.match(line.strip()), _MOVE.match(line.strip())
        if header:
            sections.append((header.group(1).lower(), header.group(2).strip(), [], []))
        elif move and sections and sections[-1][0] == UPDATE and not sections[-1][2]:
            sections[-1][2].append(move.group(1).strip())
        elif line.startswith("+") and sections and sections[-1][0] in (ADD, UPDATE):
            sections[-1][3].append(line[1:] + "\n")
        elif line.strip().startswith("***") and line.strip() != "*** End of File":
            raise PatchError(f"unknown patch line {line[:80]!r}")
    if not sections:
        raise PatchError("the patch names no file")
    return [PatchFile(op, path, move[0] if move else None, "".join(added)) for op, path, move, added in sections]
