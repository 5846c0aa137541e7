"""Secrets in what a change records besides file content: path names and commit messages.

A token in a file name (`src/.token-cache/ghp_....json`) or in a `Rollback:` trailer is
committed and pushed like any other line, so the same secret detectors read them. Risky-shell
patterns are not applied: a name or a message does not run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import accumulate

from ..model import DELETED, AddedText, CommitMessage, Inspection, Violation
from .contract import CheckInput, Findings
from .job import Job


def _as_text(items: Sequence[tuple[str, str]]) -> AddedText:
    """`(where, text)` items as one AddedText, each item a block starting at its line 1."""
    texts = [t if t.endswith("\n") else t + "\n" for _, t in items]
    starts = tuple(accumulate((len(t) for t in texts[:-1]), initial=0)) if texts else ()
    return AddedText("".join(texts), starts, tuple((where, 1) for where, _ in items))


def _secrets(items: Sequence[tuple[str, str]], job: Job) -> list[Violation]:
    from ..secrets import detectors

    if not items:
        return []
    m = job.manifest
    risky = {d.id for d in detectors.DETECTORS if d.code != detectors.SECRET}
    return detectors.scan(
        _as_text(items),
        disabled=frozenset(m.disabled_detectors) | risky,
        allowed_fingerprints=frozenset(m.allowed_fingerprints),
    )


def _names(ins: Inspection) -> Iterable[str]:
    """The names the change adds: a deleted file, or a rename's old side, leaves a name; it adds none
    (deleting a file named after a token is the cleanup, not the leak)."""
    seen: set[str] = set()
    for change in ins.changed:
        if change.status != DELETED and change.path not in seen:
            seen.add(change.path)  # a name with a newline is one block of two lines: still its path
            yield change.path


def check_path_secrets(ins: Inspection, job: Job) -> list[Violation]:
    """A changed path whose name holds something shaped like a credential."""
    found = _secrets([(p, p) for p in _names(ins)], job)
    return [Violation(v.code, f"file name holds a secret: {v.message}", v.path) for v in found]


def check_message_secrets(messages: Sequence[CommitMessage], job: Job) -> list[Violation]:
    """A commit message (range mode) or the message being committed (commit-msg stage) holding
    something shaped like a credential. The violation has no path: a message is not a file;
    the message says which commit (full id) or message file, and which line."""
    found = _secrets([(m.source, m.scanned) for m in messages], job)
    return [Violation(v.code, f"{v.path} line {v.line}: {v.message}") for v in found]


def check_messages(given: CheckInput) -> Findings:
    """`check_message_secrets` on the commit messages and message files."""
    return Findings(tuple(check_message_secrets(given.messages, given.job)))
