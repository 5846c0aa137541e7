"""The one contract of a check: it reads a `CheckInput` and returns `Findings`.

A check is a plain function (`Check`); `registry.CHECKS` lists every one, in the order the
scorer runs them. A check never prints, never raises for a finding, and reads git only through
`trees` (the repository's own answers: `inspection.git.Repository` is one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..model import CommitMessage, Inspection, Justification, Violation
from ..records import NamedTuple
from .job import Job

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Trees(Protocol):
        """The files of a commit's tree (`rev`), or of the working tree where `rev` may be None."""

        def read_file(self, rev: str | None, path: str) -> bytes | None: ...

        def read_files(self, rev: str | None, paths: Sequence[str]) -> Mapping[str, bytes | None]: ...

        def names_under(self, rev: str, directory: str) -> list[str]: ...

        def files_at(self, rev: str) -> list[str]: ...

    class Store(Protocol):
        """JSON values by key, each entry checked before it is used (testrun.cache_store.Store)."""

        def get(self, key: Mapping[str, str]) -> Any | None: ...

        def put(self, key: Mapping[str, str], value: Any) -> bool: ...

    Kept = Callable[[str], Store]  # the store of one kind, under the scored repository's git directory


class CheckInput(NamedTuple):
    """Everything a check may read about one scoring."""

    ins: Inspection  # what git says changed (a manifest never committed already taken out)
    job: Job  # the manifest, its matchers and token patterns, and where the manifest lives
    messages: tuple[CommitMessage, ...]  # commit messages and message files, oldest first
    streamed: tuple[Violation, ...]  # what CONTENT_CHECKS found while git streamed the added lines
    trees: Trees  # file readers: the scored tree is `scored_rev`, the base is the check's to choose
    defer_justifications: bool = False  # the pre-commit stage: the commit-msg stage judges the trailers
    flipped: tuple[str, ...] = ()  # node ids that failed at the base and pass now: known after the test only
    kept: Kept | None = None  # one kind of result kept across scorings (results_cache.py); None: none kept

    @property
    def scored_rev(self) -> str | None:
        """The scored tree: the head commit in --base mode, the working tree (None) otherwise."""
        return self.ins.head if self.ins.mode == "range" else None


class Findings(NamedTuple):
    """What a check found: violations, warnings for the report, and justifications it accepted."""

    violations: tuple[Violation, ...] = ()
    notes: tuple[str, ...] = ()
    accepted: tuple[Justification, ...] = ()


Check = Callable[[CheckInput], Findings]
ChangeCheck = Callable[[Inspection, Job], Sequence[Violation]]


def of_change(check: ChangeCheck) -> Check:
    """A check that needs only the change and the job, under the one contract."""

    def run(given: CheckInput) -> Findings:
        return Findings(tuple(check(given.ins, given.job)))

    run.__name__ = run.__qualname__ = check.__name__
    run.__doc__ = check.__doc__
    return run
