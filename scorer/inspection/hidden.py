"""What git would not show: index flags, staged-only versions, self-ignoring .gitignore
files, clean filters. Facts only; `scorer.checks.hidden` turns them into violations."""

from __future__ import annotations

import os
import posixpath
import stat

from ..model import Hidden
from . import files, gitparse
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
    actual = _on_disk(repo, paths, index)
    problems = []
    for tag, path in flagged:
        flag = "skip-worktree" if tag == "S" else "assume-unchanged"
        if path not in actual and flag == "skip-worktree":
            continue  # sparse checkout: absent on purpose
        if actual.get(path) != index.get(path):
            problems.append(Hidden("index-flag", path, flag))
    return problems


def _on_disk(
    repo: Repository, paths: list[str], index: dict[str, tuple[str, str]]
) -> dict[str, tuple[str, str | None]]:
    """(mode, blob id) of each path present on disk, as git would record it, never following a symlink."""
    modes = {p: st.st_mode for p in paths if (st := files.lstat(os.path.join(repo.work_tree, p))) is not None}
    # Hash only regular files: git would follow a symlink (to /dev/zero, and hang) or block on a FIFO.
    regular = [p for p, mode in modes.items() if stat.S_ISREG(mode)]
    found: dict[str, tuple[str, str | None]] = {
        p: ("100755" if modes[p] & stat.S_IXUSR else "100644", sha)
        for p, sha in zip(regular, repo.hash_files(regular), strict=True)
    }
    for p, mode in modes.items():
        if stat.S_ISLNK(mode):
            target = os.readlink(os.fsencode(os.path.join(repo.work_tree, p)))
            found[p] = (gitparse.SYMLINK_MODE, blob_id(target, index.get(p, ("", ""))[1]))
        found.setdefault(p, (oct(mode), None))  # a directory, FIFO or device is never the indexed blob
    return found


# Tools that keep a cache beside the code write a `.gitignore` of `*` into it, so the cache
# ignores itself: that is not a hidden change, and flagging it would fail the first commit
# after every test run. Only these directory names, and only a file that ignores everything
# it sits beside and nothing else (comments aside), are the tools' own.
TOOL_CACHES = frozenset({".pytest_cache", ".mypy_cache", ".ruff_cache"})


def ignored_gitignores(root: str, ignored: list[str]) -> list[Hidden]:
    """An untracked .gitignore that ignores itself hides the files it lists."""
    return [Hidden("ignored-gitignore", path) for path in ignored
            if posixpath.basename(path.rstrip("/")) == ".gitignore" and not _tool_cache(root, path)]


def _tool_cache(root: str, path: str) -> bool:
    if posixpath.basename(posixpath.dirname(path)) not in TOOL_CACHES:
        return False
    data = files.read_worktree_file(root, path)
    if data is None or len(data) > 4096:
        return False
    rules = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    return [r for r in rules if r and not r.startswith("#")] == ["*"]


def staged_only(both: list[str], unmerged: set[str]) -> list[Hidden]:
    """Paths whose staged version differs from the working tree: the commit would not be what was scored."""
    return [Hidden("staged-only", path) for path in sorted(set(both) - unmerged)]


def filter_drivers(out: bytes) -> list[Hidden]:
    """Clean filters rewrite content before git compares it; only git-lfs is trusted."""
    problems = []
    for record in out.split(b"\0"):
        key, _, value = record.decode("utf-8", "replace").partition("\n")
        if key and not value.strip().startswith("git-lfs "):
            problems.append(Hidden("filter-driver", None, f"{key}={value!r}"))
    return problems
