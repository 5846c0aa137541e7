"""What the inspector found git would not show, as violations: unmerged paths and hidden changes."""

from __future__ import annotations

from ..model import Hidden, Inspection, Violation
from .job import Job


def _message(h: Hidden) -> str:
    if h.kind == "index-flag":
        return (
            f"the index flag {h.detail} hides a change to this file "
            f"(clear it: git update-index --no-{h.detail} -- <path>)"
        )
    return {
        "unmerged": "unresolved merge conflict in the index",
        "unreadable": f"cannot read this untracked file ({h.detail}), so its content could not be checked; "
        "make it readable or remove it",
        "staged-only": "the index holds a staged version that differs from the working tree, so git commit would "
        "record content that was not scored; stage it (git add) or unstage it (git restore --staged)",
        "stat-cache": "score-diff read this file from the working tree to judge the change, but its bytes are not "
        "the blob git's index holds for it, though git's stat cache says they are: the fence is not "
        "what git records; restore it (git checkout -- <path>) or stage it"
        if h.detail == "read"
        else "git's stat cache (.git/index) vouches that the working-tree file is the staged blob, but "
        "their bytes differ: git diff shows the file, git commit records the blob; stage the file "
        "again (git add) or unstage it (git restore --staged)",
        "sectionless": "git lists a change to this file but shows no content for it: the working-tree file is not "
        "the blob its index entry claims to be; stage it again (git add) or restore it",
        "attribute": f"the {h.detail} attribute rewrites this file on its way into the index, so git would record "
        "other bytes than the ones on disk (which the test runs); remove the attribute",
        "ignored-gitignore": "an untracked .gitignore that ignores itself hides the files it lists; "
        "remove it or commit the ignore rule",
        "filter-driver": f"git config sets {h.detail}: a clean filter can rewrite file content before git "
        "compares it; remove it",
        "merge-conflict": "merging this branch into the base conflicts here, so what the merge would change "
        "cannot be scored; the branch's own commits were scored instead",
    }.get(h.kind, f"git would not show this change ({h.kind})")


def check_inspection(ins: Inspection, job: Job) -> list[Violation]:
    """Unmerged paths and hidden changes the inspector found."""
    return [Violation(_CODES.get(h.kind, "hidden-change"), _message(h), h.path) for h in ins.anomalies]


_CODES = {"unmerged": "unmerged", "merge-conflict": "merge-conflict"}
