"""What git would not show: index flags, staged-only versions, self-ignoring .gitignore
files. Facts only; `scorer.checks.hidden` turns them into violations."""

from __future__ import annotations

import errno
import os
import posixpath
import stat

from ..errors import UnreadableFile
from ..model import Hidden
from . import gitparse, worktree
from .git import Repository, blob_id


def by_index_flags(repo: Repository, flagged: list[tuple[str, str]]) -> list[Hidden]:
    """Unmerged paths, and paths whose assume-unchanged / skip-worktree flag hides a change."""
    found: dict[str, Hidden] = {}
    quiet = []
    for tag, path in flagged:
        if tag == "M":
            found[path] = Hidden("unmerged", path)
        elif tag == "S" or tag.islower():
            quiet.append((tag, path))
    found.update({h.path or "": h for h in _hidden_by_flags(repo, quiet)})
    return list(found.values())


def _hidden_by_flags(repo: Repository, flagged: list[tuple[str, str]]) -> list[Hidden]:
    """assume-unchanged / skip-worktree tell git not to look; look anyway."""
    if not flagged:
        return []
    paths = [p for _, p in flagged]
    index = repo.index_entries(paths)
    actual = on_disk(repo, paths, index)
    problems = []
    for tag, path in flagged:
        flag = "skip-worktree" if tag == "S" else "assume-unchanged"
        if path not in actual and flag == "skip-worktree":
            continue  # sparse checkout: absent on purpose
        if actual.get(path) != index.get(path):
            problems.append(Hidden("index-flag", path, flag))
    return problems


def on_disk(repo: Repository, paths: list[str], index: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str | None]]:
    """(mode, blob id) of each path present on disk, as git would record it, never following a symlink.

    Ids are of the bytes as they are (`hash-object --no-filters`), computed here: one walk over the
    sorted paths shares its directory descriptors, where a git call would cost a process and its quoting.
    A file that cannot be read raises UnreadableFile: its content is not established.
    """
    found: dict[str, tuple[str, str | None]] = {}
    root = repo.work_tree
    with worktree.Walker(root) as walk:
        for p in sorted(paths):
            st = worktree.lstat(root, p, walk, quick=True)
            if st is None:
                continue
            like = index.get(p, ("", ""))[1]
            if stat.S_ISREG(st.st_mode):  # never a FIFO or device: reading one could block or never end
                found[p] = ("100755" if st.st_mode & stat.S_IXUSR else "100644", _blob_of_file(walk, p, like))
            elif stat.S_ISLNK(st.st_mode) and (target := worktree.readlink(root, p, walk)) is not None:
                found[p] = (gitparse.SYMLINK_MODE, blob_id(os.fsencode(target), like))
            else:
                found[p] = (oct(st.st_mode), None)  # a directory, FIFO or device is never the indexed blob
    return found


def _blob_of_file(walk: worktree.Walker, path: str, like: str) -> str | None:
    try:
        return walk.blob_id(path, sha256=len(like) == 64)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return None  # gone since the lstat: not the indexed blob
        raise UnreadableFile(f"cannot read {path} in the working tree: {exc.strerror or exc}") from exc


# Tools that keep a cache beside the code write a `.gitignore` of `*` into it, so the cache
# ignores itself: that is not a hidden change, and flagging it would fail the first commit
# after every test run. Only these directory names, and only a file that ignores everything
# it sits beside and nothing else (comments aside), are the tools' own.
TOOL_CACHES = frozenset({".pytest_cache", ".mypy_cache", ".ruff_cache"})


def ignored_gitignores(root: str, ignored: list[str]) -> list[Hidden]:
    """An untracked .gitignore that ignores itself hides the files it lists."""
    return [
        Hidden("ignored-gitignore", path)
        for path in ignored
        if posixpath.basename(path.rstrip("/")) == ".gitignore" and not _tool_cache(root, path)
    ]


def _tool_cache(root: str, path: str) -> bool:
    if posixpath.basename(posixpath.dirname(path)) not in TOOL_CACHES:
        return False
    data = worktree.read_worktree_file(root, path)
    if data is None or len(data) > 4096:
        return False
    rules = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    return [r for r in rules if r and not r.startswith("#")] == ["*"]


def staged_only(both: list[str], unmerged: set[str]) -> list[Hidden]:
    """Paths whose staged version differs from the working tree: the commit would not be what was scored."""
    return [Hidden("staged-only", path) for path in sorted(set(both) - unmerged)]
