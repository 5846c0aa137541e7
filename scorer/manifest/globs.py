"""Manifest path entries: gitignore globs, always anchored at the repository root.

An entry matches what the same line would match in a root `.gitignore` if it began
with `/`: `setup.py` is only the root file, `**/*.pem` is any depth, and an entry
that matches a directory covers everything under it (git stops at an excluded
directory, so its contents are excluded too).
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
import warnings
from collections.abc import Iterable, Sequence

import pathspec

_GLOB_CHARS = re.compile(r"[*?\[\\]")
_STARS = re.compile(r"\*{2,}")
_POSIX_CLASS = re.compile(r"\[:(alnum|alpha|blank|cntrl|digit|graph|lower|print|punct|space|upper|xdigit):\]")


class GlobError(ValueError):
    """An entry that is not a safe repo-relative path or glob."""


def normalise_entry(entry: str) -> str:
    """Clean one manifest path entry, or raise GlobError saying why it is refused."""
    text = entry.replace("\\", "/")
    if not text.strip():
        raise GlobError("is empty")
    if text.startswith("/") or re.match(r"^[A-Za-z]:/", text):
        raise GlobError("is an absolute path; entries are relative to the repository root")
    if "\n" in text or "\0" in text:
        raise GlobError("contains a newline or NUL, which no .gitignore line can hold")
    if text.endswith(" "):
        raise GlobError("ends with a space, which .gitignore would drop; remove it")
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


def _wildmatch_form(text: str) -> str:
    """The path or entry as git's wildmatch sees it, spelt so pathspec's regexes agree.

    wildmatch works on bytes (`?` is one byte, a class holds bytes), so each UTF-8
    byte becomes one character. A newline is an ordinary byte to git, but Python's
    `.` does not match it and `$` matches before it; NUL (never in a path or an
    entry) stands in for it.
    """
    if not text.isascii():
        text = text.encode("utf-8", "surrogateescape").decode("latin-1")
    return text.replace("\n", "\0")


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
        globs = ["/" + _wildmatch_form(e) for e in entries if is_glob(e)]
        self._regex = _combined(globs) if globs else None
        self._seen: dict[str, bool] = {}  # the same path is asked about by several checks

    def __call__(self, path: str) -> bool:
        known = self._seen.get(path)
        if known is None:
            known = self._seen[path] = self._match(path)
        return known

    def _match(self, path: str) -> bool:
        if path in self._files:
            return True
        if any(d in self._dirs for d in _parent_dirs(path)):
            return True
        if self._regex is None:
            return False
        search, path = self._regex.search, _wildmatch_form(path)
        return search(path) is not None or any(search(d) is not None for d in _parent_dirs(path))


def fold(path: str) -> str:
    """A path as a case-insensitive, normalising file system files it: macOS and Windows store
    `SRC/Pricing.py` as `src/pricing.py`, macOS NFD `café` as NFC `café`, and Windows drops a
    name's trailing dots and spaces."""
    text = unicodedata.normalize("NFC", path).lower()
    return "/".join(part.rstrip(". ") or part for part in text.split("/"))


class ForbiddenMatcher:
    """Forbidden entries match a path as spelt, and as any checkout would file it: a job must not
    reach a forbidden file through a spelling that lands on it on someone's disk."""

    def __init__(self, entries: Sequence[str]) -> None:
        self.entries = tuple(entries)
        self._exact = PathMatcher(entries)
        self._folded = PathMatcher([fold(e) for e in entries])

    def __call__(self, path: str) -> bool:
        if not self.entries:  # nothing forbidden: no need to fold 5,000 paths
            return False
        return self._exact(path) or self._folded(fold(path))


def _combined(globs: Sequence[str]) -> re.Pattern[str]:
    """pathspec's gitignore regexes for every glob, as one alternation: one search per path."""
    spec = pathspec.PathSpec.from_lines("gitignore", globs)
    parts = [f"(?:{p.regex.pattern})" for p in spec.patterns if p.include and p.regex is not None]
    return re.compile("|".join(parts) or "(?!)")


def _unclosed_bracket(entry: str) -> bool:
    """git never matches a pattern with an unclosed '['; pathspec would read it literally."""
    start = entry.find("[")
    while start != -1:
        first = start + 1 + (entry[start + 1 : start + 2] in ("!", "^"))
        first += entry[first : first + 1] == "]"  # a ']' first in a class is literal
        close = entry.find("]", first)
        if close == -1:
            return True
        start = entry.find("[", close + 1)
    return False


def _loose_stars(entry: str) -> bool:
    """'**' that is not a whole segment: git's prefix matching makes 'a**/b' cross directories."""
    for m in _STARS.finditer(entry):
        whole = entry[m.start() - 1 : m.start()] in ("", "/") and entry[m.end() : m.end() + 1] in ("", "/")
        if m.group() != "**" or not whole:
            return True
    return False


def compile_entry(entry: str) -> None:
    """Raise GlobError unless pathspec compiles the entry and reads it the way git does."""
    if _POSIX_CLASS.search(entry):
        raise GlobError("uses a POSIX character class such as [:digit:]; spell it out, e.g. [0-9]")
    if _unclosed_bracket(entry):
        raise GlobError("has a '[' without a closing ']', which git never matches")
    if _loose_stars(entry):
        raise GlobError(
            "has '**' (or more stars) that is not a whole segment ('**/x', 'a/**/b'), which git "
            "reads differently; use '*' within a segment"
        )
    try:
        with warnings.catch_warnings():  # the same answer whatever the interpreter's warning filters
            warnings.simplefilter("error")
            pathspec.PathSpec.from_lines("gitignore", ["/" + _wildmatch_form(entry)])
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
