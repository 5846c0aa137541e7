"""Immutable records that flow from the inspector through the checks to the renderers.

NamedTuples rather than frozen dataclasses: the same immutability, and a fraction of the
import time on a hook that runs on every commit.
"""

from __future__ import annotations

import bisect

from .records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing or re on every tool call (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

PASS = "PASS"  # noqa: S105 - a verdict, not a password
FAIL = "FAIL"

# Change statuses, as reported for each ChangedPath.
ADDED = "added"
MODIFIED = "modified"
DELETED = "deleted"
RENAMED = "renamed"
COPIED = "copied"
TYPECHANGE = "typechange"
MODE_CHANGE = "mode-change"
UNMERGED = "unmerged"


class Hunk(NamedTuple):
    """One hunk as `git diff -U0` reports it (no context lines)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int

    @property
    def size(self) -> int:
        """Added plus removed lines in this hunk."""
        return self.old_lines + self.new_lines


class ChangedPath(NamedTuple):
    """Everything the inspector learned about one changed path."""

    path: str
    status: str
    old_path: str | None = None
    added: int = 0
    removed: int = 0
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    symlink: bool = False
    submodule: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    size: int | None = None
    untracked: bool = False
    symlink_target: str | None = None
    content_filter: str | None = None  # the `filter` attribute's driver: a checkout replaces this content

    @property
    def paths(self) -> tuple[str, ...]:
        """Both sides of a rename or copy; the path alone otherwise."""
        if self.old_path and self.old_path != self.path:
            return (self.old_path, self.path)
        return (self.path,)

    @property
    def largest_hunk(self) -> int:
        return max((h.size for h in self.hunks), default=0)


CONTEXT = 256  # characters of its line a match keeps on each side: the detectors' judges look back 80


class AddedMatch(NamedTuple):
    """One match in the added lines: where it is, what it matched, and its line around it.

    `context` is the match's line cut to CONTEXT characters on either side of the match, never
    the whole line: 60 KB of `eval(` on one line would otherwise copy the line 12,000 times.
    """

    path: str
    line: int
    match: str
    context: str


class AddedText(NamedTuple):
    """Every added line of the change in one string, so checks scan it at C speed.

    `text` is the added lines joined with newlines (each line ends with "\\n").
    Block i starts at offset `starts[i]` and holds consecutive lines of
    `locations[i] = (path, first_line_number)`.
    """

    text: str = ""
    starts: tuple[int, ...] = ()
    locations: tuple[tuple[str, int], ...] = ()

    def search(self, pattern: re.Pattern[str], view: str | None = None) -> Iterator[AddedMatch]:
        """Yield each match of `pattern` in the added lines, with where it is.

        `view`, if given, is matched instead: a same-length spelling of `text` (line numbers
        still count the newlines of `text`).
        """
        text, starts = self.text, self.starts
        subject = text if view is None else view
        block, pos, line, path = -1, 0, 0, ""
        begin, end = 0, -1  # of the subject line that holds the last match
        for m in pattern.finditer(subject):
            at = m.start()
            i = bisect.bisect_right(starts, at) - 1
            if i != block:  # count newlines only since the last match: linear in the text
                block, pos = i, starts[i]
                path, line = self.locations[i]
                begin = pos  # a block starts a line
            line += text.count("\n", pos, at)
            # The line's bounds are looked for only since the last match and once per line, so
            # many matches on one long line cost no more than the line itself.
            begin = max(begin, subject.rfind("\n", pos, at) + 1)
            if at >= end:
                end = subject.find("\n", at)
                end = len(subject) if end < 0 else end
            pos = at
            context = subject[max(begin, at - CONTEXT) : min(end, m.end() + CONTEXT)]
            yield AddedMatch(path, line, m.group(0), context)


class Hidden(NamedTuple):
    """Something git would not show, found by the inspector: `kind` names what, `detail` adds to it."""

    # unmerged, index-flag, unreadable, staged-only, stat-cache, sectionless, attribute,
    # ignored-gitignore, filter-driver
    kind: str
    path: str | None
    detail: str = ""


class Inspection(NamedTuple):
    """What git says changed: the one input every check reads."""

    mode: str  # "worktree" or "range"
    repo_root: str | None  # None for a bare repository (a server): commits only, no working tree
    head: str | None  # commit id of HEAD (worktree) or of --head (range); None if unborn
    base: str | None = None  # merge-base commit id in range mode
    branch: str | None = None  # None when detached
    changed: tuple[ChangedPath, ...] = ()
    added: AddedText = AddedText()
    # What git would not show (unmerged paths, hidden changes): facts for the checks.
    anomalies: tuple[Hidden, ...] = ()
    # sha256 over the scored changes, so a report binds to exactly this tree state.
    change_digest: str = ""


class Violation(NamedTuple):
    """One reason for a FAIL. `code` is stable and documented in docs/codes.md.

    `hint` tells the agent what to do next (checks leave it empty; pipeline.judge fills it in
    from scorer.feedback.hints); `fix` tells the manifest's author how the fence could change.
    """

    code: str
    message: str
    path: str | None = None
    line: int | None = None
    hint: str = ""
    fix: str = ""


# Test outcome statuses.
TEST_PASSED = "passed"
TEST_FAILED = "failed"
TEST_TIMEOUT = "timeout"
TEST_SKIPPED = "skipped"  # --skip-test
TEST_NOT_RUN = "not-run"  # cheaper checks failed first


class TestEvidence(NamedTuple):
    """What the required test's result report says, beyond its exit status."""

    kind: str  # "junit-xml", or "exit-status" when no report could be asked for
    report: str | None  # the report's path
    tests: int | None = None  # executed (not skipped)
    failures: int | None = None
    errors: int | None = None
    skipped: int | None = None
    problem: str = ""  # "" holds; "empty": no evidence tests ran; "failed": the report shows failures
    note: str = ""  # why, in words


class EnvelopeFacts(NamedTuple):
    """What the envelope around the required test enforced, could not, and what its observer saw."""

    policy: str  # "auto", "required" or "off" (test_envelope)
    enforced: tuple[str, ...] = ()  # "network: user+network namespace", ...
    missing: tuple[str, ...] = ()  # "writes: Landlock unavailable: ..."
    observed: tuple[str, ...] = ()  # attempts outside the envelope, redacted: each fails test-envelope
    log_sha256: str = ""  # sha256 of the observer log (the observed lines, one per line)


class TestOutcome(NamedTuple):
    status: str
    argv: tuple[str, ...] = ()
    exit_code: int | None = None
    duration_s: float = 0.0
    output_tail: str = ""
    reason: str = ""
    notes: tuple[str, ...] = ()  # what the report's reader should know about this run (warnings)
    side_effects: tuple[tuple[str | None, str], ...] = ()  # (path or None for HEAD, what the test did to it)
    evidence: TestEvidence | None = None  # None: the test did not run
    envelope: EnvelopeFacts | None = None  # None: the test did not run, or ran before the envelope existed
    missing: tuple[tuple[str, str], ...] = ()  # (path, why) for each base test that did not run and pass
    # (code, why, path) the run found about its own evidence: tampered, unstable, the base unrunnable
    findings: tuple[tuple[str, str, str | None], ...] = ()
    flipped: tuple[str, ...] = ()  # node ids of the base tests that failed at the base and passed in this run
    tree: str | None = None  # the tree id of what the test ran on (the scored tree), when it ran in a checkout


class CommitMessage(NamedTuple):
    """One commit message that may carry Blast-Radius trailers or leak a secret."""

    source: str  # "commit <id>" or "message file <name>": where a finding points
    stored: str  # as git records it: trailers are read from this
    scanned: str  # what the secret detectors read: every line git might keep


class Justification(NamedTuple):
    """An accepted blast-radius justification for one sensitive path."""

    path: str
    evidence: str  # "file:line"
    reason: str
    rollback: str


class Result(NamedTuple):
    """Every fact of one scoring; renderers only format this."""

    verdict: str
    exit_code: int
    job_id: str | None
    mode: str
    violations: tuple[Violation, ...] = ()
    changed: tuple[ChangedPath, ...] = ()
    test: TestOutcome = TestOutcome(TEST_NOT_RUN)
    base: str | None = None
    head: str | None = None
    branch: str | None = None
    change_digest: str = ""
    manifest_path: str | None = None
    manifest_sha256: str | None = None
    allowed: frozenset[str] = frozenset()  # changed paths the allowlist grants
    justifications: tuple[Justification, ...] = ()
    warnings: tuple[str, ...] = ()
    shadow: bool = False
    duration_s: float = 0.0
    version: str = ""
    started_at: str = ""  # ISO 8601 UTC
    description: str = ""  # the manifest's description of the job
