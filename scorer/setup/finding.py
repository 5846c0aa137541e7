"""One piece of the gate as `score-diff doctor` found it: shared by doctor and the hook probe."""

from __future__ import annotations

from typing import NamedTuple

OK, MISSING, NOTE = "ok", "MISSING", "note"


class Finding(NamedTuple):
    state: str  # OK, MISSING, or NOTE (not a failure: nothing to check)
    what: str
    fix: str = ""  # the command that fixes a MISSING piece
