"""Manifest path entries: gitignore globs, always anchored at the repository root.

An entry matches what the same line would match in a root `.gitignore` if it began
with `/`: `setup.py` is only the root file, `**/*.pem` is any depth, and an entry
that matches a directory covers everything under it (git stops at an excluded
directory, so its contents are excluded too).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence

import pathspec

_GLOB_CHARS = re.compile(r"[*?\[\\]")


class GlobError(ValueError):
    """An entry that is not a safe repo-relative path or glob."""


def normalise_entry(entry: str) -> str:
    """Clean one manifest path entry, or raise GlobError saying why it is refused."""
    text = entry.replace("\\", "/")
    if not text.strip():
        raise GlobError("is empty")
    if text.startswith("/") or re.match(r"^[A-Za-z]:/", text):
        raise GlobError("is an absolute path; entries are relative to the repository root")
    if text.startswith("!"):
        raise GlobError("is a negation; allowlists and denylists do not take '!' entries")
    trailing = text.endswith("/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise GlobError("has a '..' segment")
    if not parts:
        raise GlobError("names no path")
    return "/".join(parts) + ("/" if trailing else "")


def normalise_path(path: str) -> str:
    """A changed path as git reports it, in the same form entries are compared in."""
    return posixpath.normpath(path.replace("\\", "/")).lstrip("/")


def is_glob(entry: str) -> bool:
    return bool(_GLOB_CHARS.search(entry))


def _parent_dirs(path: str) -> Iterable[str]:
    """'a/b/c' -> 'a/', 'a/b/': the directories git would test before the file."""
    idx = path.find("/")
    while idx != -1:
        yield path[: idx + 1]
        idx = path.find("/", idx + 1)


class PathMatcher:
    """Matches paths against anchored entries; literal entries take a fast set lookup."""

    def __init__(self, entries: Sequence[str]) -> None:
        self.entries = tuple(entries)
        literal = [e for e in entries if not is_glob(e)]
        self._files = frozenset(e for e in literal if not e.endswith("/"))
        self._dirs = frozenset(e if e.endswith("/") else e + "/" for e in literal)
        globs = ["/" + e for e in entries if is_glob(e)]
        self._spec = pathspec.PathSpec.from_lines("gitignore", globs) if globs else None

    def __call__(self, path: str) -> bool:
        if path in self._files:
            return True
        parents = list(_parent_dirs(path))
        if any(d in self._dirs for d in parents):
            return True
        if self._spec is None:
            return False
        spec = self._spec
        return spec.match_file(path) or any(spec.match_file(d) for d in parents)


def compile_entry(entry: str) -> None:
    """Raise GlobError if the entry is not a pattern pathspec can compile."""
    try:
        pathspec.PathSpec.from_lines("gitignore", ["/" + entry])
    except Exception as exc:  # pathspec raises several types for bad patterns
        raise GlobError(f"is not a valid glob ({exc})") from exc


def root_only_warning(entry: str) -> str | None:
    """A forbidden glob without '/' matches only at the root; it probably meant '**/'."""
    if "/" in entry.rstrip("/"):
        return None
    return (
        f"forbidden_globs entry {entry!r} matches only at the repository root; "
        f"write '**/{entry}' to forbid it at any depth"
    )
