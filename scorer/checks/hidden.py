"""What the inspector found git would not show, as violations: unmerged paths and hidden changes."""

from __future__ import annotations

from ..model import Hidden, Inspection, Violation
from .job import Job


def _message(h: Hidden) -> str:
    if h.kind == "index-flag":
        return (f"the index flag {h.detail} hides a change to this file "
                f"(clear it: git update-index --no-{h.detail} -- <path>)")
    return {
        "unmerged": "unresolved merge conflict in the index",
        "unreadable": f"cannot read this untracked file ({h.detail}), so its content could not be checked; "
                      "make it readable or remove it",
        "staged-only": "the index holds a staged version that differs from the working tree, so git commit would "
                       "record content that was not scored; stage it (git add) or unstage it (git restore --staged)",
        "ignored-gitignore": "an untracked .gitignore that ignores itself hides the files it lists; "
                             "remove it or commit the ignore rule",
        "filter-driver": f"git config sets {h.detail}: a clean filter can rewrite file content before git "
                         "compares it; remove it",
    }.get(h.kind, f"git would not show this change ({h.kind})")


def check_inspection(ins: Inspection, job: Job) -> list[Violation]:
    """Unmerged paths and hidden changes the inspector found."""
    return [Violation("unmerged" if h.kind == "unmerged" else "hidden-change", _message(h), h.path)
            for h in ins.anomalies]
