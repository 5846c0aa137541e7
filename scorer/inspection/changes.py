"""Everything that changed, as git reports it: the worktree against HEAD, or a commit range.

Facts only: changed paths, hunks, added lines and what git would hide (`hidden`);
the checks turn them into violations.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from .. import model
from ..model import AddedText, ChangedPath, Hidden, Hunk, Inspection
from ..records import NamedTuple
from . import evidence, gitparse, hidden, worktree
from .git import Repository, WorktreeCalls

Watch = Callable[[AddedText], object]  # sees each batch of added lines as it is parsed


TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Finish(Protocol):
        def __call__(self, watch: Watch | None = None, reads: Mapping[str, bytes] | None = None) -> Inspection: ...


def inspect_worktree(repo: Repository, watch: Watch | None = None) -> Inspection:
    """Everything that differs from HEAD: staged, unstaged and untracked."""
    return start_worktree(repo, repo.head())(watch)


def start_worktree(
    repo: Repository,
    head: str | None,
    fence: Sequence[str] = (),
    since: str | None = None,
    started: WorktreeCalls | None = None,
) -> Finish:
    """Start the git calls now; the returned function collects them into an Inspection.

    git works while the caller imports and validates the manifest. `watch`, if given,
    sees every added line exactly once, a batch at a time, while git is still writing.
    `fence` names the files the caller will read from the working tree to judge the change
    (the manifest and its pin); `reads` hands finish() the bytes it read, which must be
    what git records for them. `since` (a commit: the merge-base with the branch's base) is what
    the working tree is compared with instead of HEAD: the branch's commits and the uncommitted
    change together, as CI will score them. `head` is HEAD's commit as the caller read it (None
    before the first commit): the one commit the diff, the fence and the report name. `started`
    is `repo.start_worktree_calls(since or head or the empty tree)` if the caller started them.
    """
    root = repo.work_tree  # a bare repository has no working tree to score
    fence_index = repo.start_index_entries(fence) if fence else None
    old, diff, index_state, listing, ignored, filters = started or repo.start_worktree_calls(
        since or head or repo.empty_tree()
    )

    def finish(watch: Watch | None = None, reads: Mapping[str, bytes] | None = None) -> Inspection:
        # The attributes of what the listing and status name are looked up while the diff streams.
        early = _Background(partial(_listed, repo, listing, index_state))
        pieces, digest = gitparse.Pieces(), hashlib.sha256()
        try:
            found, _, sectionless = _changes(repo, diff, old, None, pieces, digest, watch)
        except BaseException:
            early.settle()  # its git calls end before the caller's cleanup stops the rest
            raise
        listed = early.result()
        unreadable: list[Hidden] = []
        with worktree.Walker(root) as walk:  # one walk shares its directory descriptors
            changes = [_with_worktree_facts(walk, c) for c in found]
            changes += [_untracked(walk, p, pieces, digest, unreadable) for p in listed.untracked]
        anomalies = hidden.by_index_flags(repo, listed.flagged) + unreadable
        unmerged = {path for tag, path in listed.flagged if tag == "M"}
        drivers = evidence.filter_drivers(repo.finish(filters, ok=(0, 1)))
        staged = listed.staged
        proof = evidence.gather(repo, staged, _content_paths(changes), drivers, listed.attrs, listed.on_disk)
        partly = set(gitparse.partially_staged(listed.status)) - unmerged - set(proof.restage)
        anomalies += hidden.staged_only(sorted(partly), unmerged) + proof.anomalies
        anomalies += [Hidden("sectionless", p) for p in sectionless if p not in proof.restage]
        anomalies += hidden.ignored_gitignores(root, gitparse.split_z(repo.finish(ignored)))
        anomalies += evidence.untrusted_drivers(drivers)
        if fence_index is not None:
            shown = {p for c in changes for p in c.paths}
            anomalies += evidence.fence_reads(repo, reads or {}, repo.finish_index_entries(fence_index), shown)
        # What `git commit` records for those: the staged version, scored as well.
        restage = [s for s in staged if s.path in (partly | set(proof.restage)) - unmerged]
        if restage:
            known = {c.path for c in changes}
            changes += [c for c in _staged_versions(repo, old, restage, pieces, digest) if c.path not in known]
        if watch is not None:
            watch(pieces.take_new())  # the untracked files and the staged versions
        return Inspection(
            mode="worktree",
            repo_root=root,
            head=head,
            base=since,
            branch=_branch(repo, listed.status),
            changed=tuple(_opaque(changes, proof.filters)),
            added=pieces.build(),
            anomalies=tuple(anomalies),
            change_digest=digest.hexdigest(),
        )

    return finish


def _branch(repo: Repository, status: bytes) -> str | None:
    """The branch as status named it, or as `git symbolic-ref` does where status cannot say."""
    known, name = gitparse.status_branch(status)
    return name if known else repo.branch()


class _Listed(NamedTuple):
    untracked: list[str]
    flagged: list[tuple[str, str]]
    status: bytes
    staged: list[gitparse.Staged]
    attrs: evidence.Attributes  # of the paths status and the listing name
    on_disk: evidence.OnDisk  # what the working tree holds at each staged path


def _listed(repo: Repository, listing: Any, index_state: Any) -> _Listed:
    """The listing and status, and the evidence they call for, while Python waits for the diff."""
    untracked, flagged = gitparse.parse_ls_files_v(repo.finish(listing))
    status = repo.finish(index_state)
    named = sorted(set(gitparse.status_paths(status)) | {p for p in untracked if not p.endswith("/")})
    staged = gitparse.staged(status)
    attrs = evidence.Attributes.of(repo, named)
    return _Listed(untracked, flagged, status, staged, attrs, evidence.on_disk(repo, staged))


class _Background:
    """`work` run in a thread (its git calls release the GIL), so it overlaps the diff's parsing."""

    def __init__(self, work: Callable[[], _Listed]) -> None:
        self._box: list[tuple[bool, Any]] = []
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[], _Listed]) -> None:
        try:
            self._box.append((True, work()))
        except BaseException as exc:  # handed to whoever asks for the result
            self._box.append((False, exc))

    def settle(self) -> None:
        self._thread.join()

    def result(self) -> _Listed:
        self._thread.join()
        ok, value = self._box[0]
        if not ok:
            raise value
        return value


def inspect_range(
    repo: Repository, base: str, head: str | None, need_sizes: bool = False, watch: Watch | None = None
) -> Inspection:
    """What merging head into base would change: the commits from the merge-base to head when
    base's tip is that merge-base, otherwise the merge's own result against base's tip."""
    head_sha = repo.resolve(head or "HEAD")
    tip = repo.resolve(base)
    base_sha = repo.merge_base(tip, head_sha)
    old, new, conflicts = _what_the_merge_changes(repo, tip, base_sha, head_sha)
    pieces, digest = gitparse.Pieces(), hashlib.sha256()
    changes, entries, sectionless = _changes(repo, repo.start_diff(old, new), old, new, pieces, digest, watch)
    changes = _with_link_targets(repo, changes, entries)
    if need_sizes:
        changes = _with_blob_sizes(repo, changes, entries)
    # The head's own .gitattributes decide what a checkout of it makes of each blob.
    paths = _content_paths(changes)
    filters = evidence.lfs_tracked(repo.check_attr(paths, ("filter",), tree=new), {})
    return Inspection(
        mode="range",
        repo_root=repo.root,
        head=head_sha,
        base=base_sha,
        branch=repo.branch(),
        changed=tuple(_opaque(changes, filters)),
        added=pieces.build(),
        change_digest=digest.hexdigest(),
        anomalies=(*conflicts, *(Hidden("sectionless", p) for p in sectionless)),
    )


def _what_the_merge_changes(repo: Repository, tip: str, merge_base: str, head: str) -> tuple[str, str, list[Hidden]]:
    """(old, new, conflicts): the two sides of the diff that is scored.

    `git merge-base` names one merge-base; a criss-cross history has several, and the diff from
    any one of them can miss what the merge itself does to base (a fix on base reverted). So
    when base's tip is not that merge-base, the merge is made (`merge-tree`) and what it changes
    on base's tip is scored. A conflict is a finding: the branch's own commits are scored then,
    and every conflicted path fails."""
    if tip == merge_base:  # head contains base: merging it is a fast-forward to head
        return merge_base, head, []
    tree, conflicted = repo.merge_tree(tip, head)
    if conflicted:
        return merge_base, head, [Hidden("merge-conflict", p) for p in conflicted]
    return tip, tree, []


def _changes(
    repo: Repository,
    diff: Any,
    old: str,
    new: str | None,
    pieces: gitparse.Pieces,
    digest: Any,
    watch: Watch | None = None,
    index: str | None = None,
) -> tuple[list[ChangedPath], list[gitparse.RawEntry], list[str]]:
    """Parse the started diff as it streams; then look again at what git called binary.

    Also returns the paths git listed without a patch section (both sides read the same).
    """
    changes: list[ChangedPath] = []
    entries: list[gitparse.RawEntry] = []
    sectionless: list[str] = []
    for part in gitparse.stream_diff(repo.stream(diff, digest.update)):
        changes += gitparse.to_changes(part, pieces)
        entries += part.entries
        sectionless += gitparse.sectionless(part)
        if watch is not None:
            watch(pieces.take_new())
    suspect = [i for i, (e, c) in enumerate(zip(entries, changes, strict=False)) if c.binary and _plain_file(e)]
    if suspect:
        # git said "binary": maybe it is, maybe .gitattributes says `-diff` to hide the lines.
        subset = [entries[i] for i in suspect]
        paths = sorted({p for e in subset for p in (e.path, e.old_path) if p})
        text = gitparse.parse_diff(repo.diff_as_text(old, new, paths, index=index))
        binary_only = gitparse.DiffOutput(subset, "", [(0, 0)] * len(subset), [True] * len(subset))
        for i, change in zip(suspect, gitparse.to_changes(binary_only, pieces, text), strict=False):
            changes[i] = change
        if watch is not None:
            watch(pieces.take_new())
    return changes, entries, sectionless


def _staged_versions(
    repo: Repository, old: str, staged: list[gitparse.Staged], pieces: gitparse.Pieces, digest: Any
) -> list[ChangedPath]:
    """The staged blobs of `staged` against `old`, read from the object store.

    `git diff --cached` would read a working-tree file instead of a blob its stat data vouches
    for; entries written with --index-info into a scratch index have no stat data to trust.
    """
    records = b"".join(f"{s.mode} {s.sha}\t".encode() + os.fsencode(s.path) + b"\0" for s in staged)
    paths = [s.path for s in staged]
    import tempfile  # only for a staged entry git must read from the object store (issue 29)

    with tempfile.TemporaryDirectory(prefix="score-diff-staged-") as scratch:
        index = os.path.join(scratch, "index")
        repo.run("update-index", "-z", "--index-info", stdin=records, index=index)
        found, _, _ = _changes(
            repo, repo.start_diff(old, paths=paths, cached=True, index=index), old, None, pieces, digest, index=index
        )
    return found


def _content_paths(changes: list[ChangedPath]) -> list[str]:
    """The changed paths whose content git stores as a blob of file bytes (not links, not submodules)."""
    return [c.path for c in changes if c.status != model.DELETED and not c.symlink and not c.submodule]


def _opaque(changes: list[ChangedPath], filters: dict[str, str]) -> list[ChangedPath]:
    """LFS-tracked content is what a checkout makes of the pointer blob: opaque."""
    if not filters:
        return changes
    return [
        c._replace(binary=True, content_filter=filters[c.path])
        if c.path in filters and c.status != model.DELETED
        else c
        for c in changes
    ]


def _plain_file(entry: gitparse.RawEntry) -> bool:
    modes = (entry.old_mode, entry.new_mode)
    return gitparse.SYMLINK_MODE not in modes and gitparse.GITLINK_MODE not in modes


def _with_worktree_facts(walk: worktree.Walker, change: ChangedPath) -> ChangedPath:
    if change.status == model.DELETED:
        return change
    st = worktree.lstat(walk.root, change.path, walk, quick=True)
    if st is None:
        return change
    target = worktree.readlink(walk.root, change.path, walk) if change.symlink else None
    return change._replace(size=st.st_size, symlink_target=target)


def _with_link_targets(
    repo: Repository, changes: list[ChangedPath], entries: list[gitparse.RawEntry]
) -> list[ChangedPath]:
    """A symlink's target is its whole blob: -U0 shows only the lines of it that changed."""
    return [
        c._replace(symlink_target=os.fsdecode(repo.blob(e.new_sha)))
        if c.symlink and e.new_mode == gitparse.SYMLINK_MODE
        else c
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


def _untracked(
    walk: worktree.Walker, path: str, pieces: gitparse.Pieces, digest: Any, problems: list[Hidden]
) -> ChangedPath:
    if path.endswith("/"):  # an untracked nested repository: git lists only its directory
        return ChangedPath(path=path.rstrip("/"), status=model.ADDED, untracked=True, submodule=True)
    content = worktree.read_untracked(walk.root, path, walk)
    if content.error:
        problems.append(Hidden("unreadable", path, content.error))
    digest.update(os.fsencode(path) + b"\0" + hashlib.sha256(content.data).digest())
    if content.link is not None:
        pieces.add(path, 1, content.link)
        return ChangedPath(
            path=path,
            status=model.ADDED,
            untracked=True,
            symlink=True,
            added=1,
            hunks=(Hunk(0, 0, 1, 1),),
            size=content.size,
            symlink_target=content.link,
            new_mode=gitparse.SYMLINK_MODE,
        )
    if content.binary:
        return ChangedPath(path=path, status=model.ADDED, untracked=True, binary=True, size=content.size)
    text = content.data.decode("utf-8", errors="replace")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    pieces.add(path, 1, text)
    return ChangedPath(
        path=path,
        status=model.ADDED,
        untracked=True,
        added=lines,
        hunks=(Hunk(0, 0, 1, lines),) if lines else (),
        size=content.size,
    )
