"""HEAD, the index and the working tree, by content, before and after the required test.

The test runs code the job wrote, after the change was scored. Whatever it changes in
the index is what `git commit` records (git re-reads the index after the pre-commit
hook); whatever it changes in the working tree is not the tree that was scored. Facts
only: checks/required_test.py turns differences into `test-side-effect` violations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from . import gitparse, worktree
from .git import Repository


class Snapshot(NamedTuple):
    head: dict[str, bytes]  # git status headers: branch.oid, branch.head
    staged: dict[str, frozenset[bytes]]  # every index record of each path, by content
    listed: dict[str, bytes]  # git status record of each changed or untracked path
    content: dict[str, str]  # what each listed path holds on disk


class SideEffect(NamedTuple):
    path: str | None
    what: str  # "staged", "changed", "created", "deleted", or a sentence about HEAD


def start(repo: Repository) -> Callable[[], Snapshot]:
    """Start both git calls at once; the returned function collects them."""
    index, status = repo.start_index_records(), repo.start_status_all()

    def finish() -> Snapshot:
        headers, listed = gitparse.status_records(repo.finish(status))
        content = {path: worktree.fingerprint(repo.work_tree, path) for path in listed}
        return Snapshot(headers, gitparse.index_records(repo.finish(index)), listed, content)

    return finish


def take(repo: Repository) -> Snapshot:
    return start(repo)()


def differences(before: Snapshot, after: Snapshot, exempt: frozenset[str] = frozenset()) -> list[SideEffect]:
    """Every path (and HEAD) the two snapshots disagree about, except the `exempt` paths."""
    found = [
        SideEffect(
            None,
            f"moved {name} from {before.head.get(key, b'-').decode('utf-8', 'replace')} to "
            f"{after.head.get(key, b'-').decode('utf-8', 'replace')}",
        )
        for key, name in (("branch.oid", "HEAD"), ("branch.head", "the branch"))
        if before.head.get(key) != after.head.get(key)
    ]
    for path in sorted(set(before.staged) | set(after.staged)):
        if path not in exempt and before.staged.get(path) != after.staged.get(path):
            found.append(SideEffect(path, "staged"))
    staged = {e.path for e in found}
    for path in sorted(set(before.listed) | set(after.listed)):
        if path in exempt or path in staged:
            continue
        was, now = _on_disk(before, path), _on_disk(after, path)
        if was != now or before.listed.get(path, b"") != after.listed.get(path, b""):
            found.append(
                SideEffect(path, "created" if was == "absent" else "deleted" if now == "absent" else "changed")
            )
    return found


def _on_disk(snap: Snapshot, path: str) -> str:
    """A path git did not list was as committed: it stands for itself ("clean"), unless it is absent."""
    if path in snap.content:
        return snap.content[path]
    return "absent" if path not in snap.staged else "clean"
