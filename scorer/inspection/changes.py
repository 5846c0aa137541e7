"""Everything that changed, as git reports it: the worktree against HEAD, or a commit range.

Facts only: changed paths, hunks, added lines and what git would hide (`hidden`);
the checks turn them into violations.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from .. import model
from ..model import AddedText, ChangedPath, Hidden, Hunk, Inspection
from . import files, gitparse, hidden
from .git import Repository

Watch = Callable[[AddedText], object]  # sees each batch of added lines as it is parsed


def inspect_worktree(repo: Repository, watch: Watch | None = None) -> Inspection:
    """Everything that differs from HEAD: staged, unstaged and untracked."""
    return start_worktree(repo)(watch)


def start_worktree(repo: Repository) -> Callable[[Watch | None], Inspection]:
    """Start the git calls now; the returned function collects them into an Inspection.

    git works while the caller imports and validates the manifest. `watch`, if given,
    sees every added line exactly once, a batch at a time, while git is still writing.
    """
    root = repo.work_tree  # a bare repository has no working tree to score
    head = repo.head()
    old = head or repo.empty_tree()
    diff = repo.start_diff(old)
    # What `git commit` records is the index: a staged version that differs from the
    # working tree (staged, then reverted on disk) would be committed unscored.
    index_state = repo.start_index_state()
    listing = repo.start_listing()
    ignored = repo.start_ignored()
    filters = repo.start_filter_config()
    branch = repo.branch()

    def finish(watch: Watch | None = None) -> Inspection:
        pieces, digest = gitparse.Pieces(), hashlib.sha256()
        found, _ = _changes(repo, diff, old, None, pieces, digest, watch)
        changes = [_with_worktree_facts(root, c) for c in found]
        untracked, flagged = gitparse.parse_ls_files_v(repo.finish(listing))
        unreadable: list[Hidden] = []
        changes += [_untracked(root, p, pieces, digest, unreadable) for p in untracked]
        anomalies = hidden.by_index_flags(repo, flagged) + unreadable
        unmerged = {path for tag, path in flagged if tag == "M"}
        anomalies += hidden.staged_only(gitparse.partially_staged(repo.finish(index_state)), unmerged)
        anomalies += hidden.ignored_gitignores(root, gitparse.split_z(repo.finish(ignored)))
        anomalies += hidden.filter_drivers(repo.finish(filters, ok=(0, 1)))
        if watch is not None:
            watch(pieces.take_new())  # the untracked files
        return Inspection(
            mode="worktree", repo_root=root, head=head, branch=branch,
            changed=tuple(changes), added=pieces.build(), anomalies=tuple(anomalies),
            change_digest=digest.hexdigest(),
        )

    return finish


def inspect_range(
    repo: Repository, base: str, head: str | None, need_sizes: bool = False, watch: Watch | None = None
) -> Inspection:
    """The commits from the merge-base of base and head to head."""
    head_sha = repo.resolve(head or "HEAD")
    base_sha = repo.merge_base(repo.resolve(base), head_sha)
    pieces, digest = gitparse.Pieces(), hashlib.sha256()
    changes, entries = _changes(repo, repo.start_diff(base_sha, head_sha), base_sha, head_sha, pieces, digest, watch)
    changes = _with_link_targets(repo, changes, entries)
    if need_sizes:
        changes = _with_blob_sizes(repo, changes, entries)
    return Inspection(
        mode="range", repo_root=repo.root, head=head_sha, base=base_sha, branch=repo.branch(),
        changed=tuple(changes), added=pieces.build(), change_digest=digest.hexdigest(),
    )


def _changes(
    repo: Repository, diff: Any, old: str, new: str | None, pieces: gitparse.Pieces, digest: Any,
    watch: Watch | None = None,
) -> tuple[list[ChangedPath], list[gitparse.RawEntry]]:
    """Parse the started diff as it streams; then look again at what git called binary."""
    changes: list[ChangedPath] = []
    entries: list[gitparse.RawEntry] = []
    for part in gitparse.stream_diff(repo.stream(diff, digest.update)):
        changes += gitparse.to_changes(part, pieces)
        entries += part.entries
        if watch is not None:
            watch(pieces.take_new())
    suspect = [i for i, (e, c) in enumerate(zip(entries, changes, strict=False)) if c.binary and _plain_file(e)]
    if suspect:
        # git said "binary": maybe it is, maybe .gitattributes says `-diff` to hide the lines.
        subset = [entries[i] for i in suspect]
        paths = sorted({p for e in subset for p in (e.path, e.old_path) if p})
        text = gitparse.parse_diff(repo.diff_as_text(old, new, paths))
        binary_only = gitparse.DiffOutput(subset, "", [(0, 0)] * len(subset), [True] * len(subset))
        for i, change in zip(suspect, gitparse.to_changes(binary_only, pieces, text), strict=False):
            changes[i] = change
        if watch is not None:
            watch(pieces.take_new())
    return changes, entries


def _plain_file(entry: gitparse.RawEntry) -> bool:
    modes = (entry.old_mode, entry.new_mode)
    return gitparse.SYMLINK_MODE not in modes and gitparse.GITLINK_MODE not in modes


def _with_worktree_facts(root: str, change: ChangedPath) -> ChangedPath:
    if change.status == model.DELETED:
        return change
    st = files.lstat(os.path.join(root, change.path))
    if st is None:
        return change
    target = files.readlink(root, change.path) if change.symlink else None
    return change._replace(size=st.st_size, symlink_target=target)


def _with_link_targets(
    repo: Repository, changes: list[ChangedPath], entries: list[gitparse.RawEntry]
) -> list[ChangedPath]:
    """A symlink's target is its whole blob: -U0 shows only the lines of it that changed."""
    return [
        c._replace(symlink_target=os.fsdecode(repo.blob(e.new_sha)))
        if c.symlink and e.new_mode == gitparse.SYMLINK_MODE else c
        for c, e in zip(changes, entries, strict=True)
    ]


def _with_blob_sizes(
    repo: Repository, changes: list[ChangedPath], entries: list[gitparse.RawEntry]
) -> list[ChangedPath]:
    shas = [e.new_sha for e in entries]
    wanted = [s for s in shas if set(s) != {"0"}]
    if not wanted:
        return changes
    sizes = repo.blob_sizes(wanted)
    return [c._replace(size=sizes.get(s)) for c, s in zip(changes, shas, strict=False)]


def _untracked(root: str, path: str, pieces: gitparse.Pieces, digest: Any, problems: list[Hidden]) -> ChangedPath:
    if path.endswith("/"):  # an untracked nested repository: git lists only its directory
        return ChangedPath(path=path.rstrip("/"), status=model.ADDED, untracked=True, submodule=True)
    content = files.read_untracked(root, path)
    if content.error:
        problems.append(Hidden("unreadable", path, content.error))
    digest.update(os.fsencode(path) + b"\0" + hashlib.sha256(content.data).digest())
    if content.link is not None:
        pieces.add(path, 1, content.link)
        return ChangedPath(path=path, status=model.ADDED, untracked=True, symlink=True, added=1,
                           hunks=(Hunk(0, 0, 1, 1),), size=content.size, symlink_target=content.link,
                           new_mode=gitparse.SYMLINK_MODE)
    if content.binary:
        return ChangedPath(path=path, status=model.ADDED, untracked=True, binary=True, size=content.size)
    text = content.data.decode("utf-8", errors="replace")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    pieces.add(path, 1, text)
    return ChangedPath(path=path, status=model.ADDED, untracked=True, added=lines,
                       hunks=(Hunk(0, 0, 1, lines),) if lines else (), size=content.size)
