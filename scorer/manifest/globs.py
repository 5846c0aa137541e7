"""Manifest path entries: gitignore globs, always anchored at the repository root.

An entry matches what the same line would match in a root `.gitignore` if it began
with `/`: `setup.py` is only the root file, `**/*.pem` is any depth, and an entry
that matches a directory covers everything under it (git stops at an excluded
directory, so its contents are excluded too).
"""

from __future__ import annotations

import posixpath
import unicodedata

TYPE_CHECKING = False  # typing's: re is imported where a glob is translated, not on every tool call (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Sequence

# Read with str methods, not module-level patterns: each compile costs every tool call (issue 29).
# tests/manifest/test_manifest_text.py holds them to the regexes they replace
# (tests/testing/manifest_text_reference.py).
_GLOB_CHARS = "*?[\\"
_POSIX_CLASSES = (
    *("alnum", "alpha", "blank", "cntrl", "digit", "graph"),
    *("lower", "print", "punct", "space", "upper", "xdigit"),
)
ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")  # re's [A-Za-z]


class GlobError(ValueError):
    """An entry that is not a safe repo-relative path or glob."""


def normalise_entry(entry: str) -> str:
    """Clean one manifest path entry, or raise GlobError saying why it is refused."""
    text = entry.replace("\\", "/")
    if not text.strip():
        raise GlobError("is empty")
    if text.startswith("/") or _drive(text):
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


def _drive(text: str) -> bool:
    """`C:/...` in an entry whose backslashes are slashes already: an ASCII letter, a colon, a slash."""
    return text[1:3] == ":/" and text[0] in ASCII_LETTERS


def drive_rooted(text: str) -> bool:
    """`re.match(r"[A-Za-z]:[\\\\/]", text)`: a Windows path from a drive's root (`C:/x`, `c:\\x`), read
    with str tests: the schema's absolute paths and a symlink's target."""
    return len(text) >= 3 and text[0] in ASCII_LETTERS and text[1] == ":" and text[2] in "\\/"


def is_glob(entry: str) -> bool:
    return any(ch in entry for ch in _GLOB_CHARS)


def _star_runs(entry: str) -> list[tuple[int, int]]:
    """(start, end) of each run of two or more '*'s, left to right."""
    runs, i = [], entry.find("*")
    while i != -1:
        end = i
        while end < len(entry) and entry[end] == "*":
            end += 1
        if end - i >= 2:
            runs.append((i, end))
        i = entry.find("*", end)
    return runs


def _has_posix_class(entry: str) -> bool:
    """`[:name:]` for one of the POSIX class names, anywhere in the entry."""
    i = entry.find("[:")
    while i != -1:
        if any(entry.startswith(name + ":]", i + 2) for name in _POSIX_CLASSES):
            return True
        i = entry.find("[:", i + 1)
    return False


def _wildmatch_form(text: str) -> str:
    """The path or entry as git's wildmatch sees it, spelt so the translated regexes agree.

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
    """Matches paths against anchored entries; literal entries take a fast set lookup.

    `literal_dirs`: a literal entry with no trailing slash also covers a directory of its name,
    as in .gitignore. Right for entries that refuse; a grant uses `grant_matcher`.
    """

    def __init__(self, entries: Sequence[str], literal_dirs: bool = True) -> None:
        self.entries = tuple(entries)
        literal = [e for e in entries if not is_glob(e)]
        self._files = frozenset(e for e in literal if not e.endswith("/"))
        self._dirs = frozenset(e if e.endswith("/") else e + "/" for e in literal if literal_dirs or e.endswith("/"))
        forms = [_wildmatch_form(e) for e in entries if is_glob(e)]
        # `**` and `dir/**` as the prefix they are, without a regex to compile on every tool call.
        self._prefixes = tuple(prefix for prefix in map(everything_below, forms) if prefix is not None)
        forms = [f for f in forms if everything_below(f) is None]
        # One regex for the globs a regex matches in linear time; the rest segment by segment.
        self._regex = _alternation([_covering(*translate(f)) for f in forms if not _deep(f)])
        self._deep = [_DeepGlob(f) for f in forms if _deep(f)]
        self._seen: dict[str, bool] = {}  # the same path is asked about by several checks

    def __call__(self, path: str) -> bool:
        known = self._seen.get(path)
        if known is None:
            known = self._seen[path] = self._match(path)
        return known

    def _match(self, path: str) -> bool:
        if path in self._files:
            return True
        if self._dirs and any(d in self._dirs for d in _parent_dirs(path)):  # most matchers have none
            return True
        if self._regex is None and not self._deep and not self._prefixes:
            return False
        path = _wildmatch_form(path)
        if any(len(path) > len(prefix) and path.startswith(prefix) for prefix in self._prefixes):
            return True
        if self._regex is not None and self._regex.fullmatch(path):
            return True
        segments = path.split("/")
        return any(glob.covers(segments) for glob in self._deep)


def everything_below(form: str) -> str | None:
    """For `**` (every path) and `dir/**` with no glob character in `dir` (every path inside it), the
    prefix a path must start with and be longer than: what `_covering(*translate(form))` fullmatches
    (`.+` and `dir/.+`, then `(?:/.*)?`). None for every other entry. tests/manifest/test_globs_prefix.py
    holds the two to each other."""
    if form == "**":
        return ""
    head = form.removesuffix("/**")
    if head == form or not head or is_glob(head):
        return None
    return head + "/"


def _covering(regex: str, dir_only: bool) -> str:
    """The path, or one of its directories, matches: the entry matches a prefix that ends where a
    segment does (a directory-only entry: a proper one). One match per path, never one per directory."""
    return f"{regex}/.+" if dir_only else f"{regex}(?:/.*)?"


def _deep(entry: str) -> bool:
    """Globs a regex would match in time that explodes with the path the job chooses: two or more
    '**' before the last segment (a regex tries every way to split the directories among them; a
    path 2,000 directories deep took minutes), or three or more '*' in one segment (every way to
    split a 255-byte name). These are matched by `_DeepGlob`, in time linear in the path."""
    segments = _segments(entry.removesuffix("/"))
    return sum(1 for seg in segments[:-1] if seg == "**") >= 2 or any(_stars(seg) >= 3 for seg in segments)


def _stars(segment: str) -> int:
    return 0 if segment == "**" else sum(1 for item in _items(segment) if item == "*")


def _items(segment: str) -> list[str]:
    """A segment's pattern items: '*', '?', a whole '[...]' class, or one literal character."""
    items, i = [], 0
    while i < len(segment):
        end = _class_end(segment, i) if segment[i] == "[" else -1
        items.append(segment[i : end + 1] if end != -1 else segment[i])
        i = end + 1 if end != -1 else i + 1
    return items


class _LinearSegment:
    """One segment's glob matched by the two-pointer wildcard method: time linear in the name's
    length times the pattern's, however many '*' it holds."""

    def __init__(self, segment: str) -> None:
        import re

        self.items = [item if item in ("*", "?") else re.compile(_segment(item), re.S) for item in _items(segment)]

    def fullmatch(self, text: str) -> bool:
        items, i, j, star, mark = self.items, 0, 0, -1, 0
        while j < len(text):
            item = items[i] if i < len(items) else None
            if item == "*":
                star, mark, i = i, j, i + 1
            elif item is not None and (item == "?" or (not isinstance(item, str) and item.fullmatch(text[j]))):
                i, j = i + 1, j + 1
            elif star != -1:  # let the last '*' take one more character
                mark += 1
                i, j = star + 1, mark
            else:
                return False
        return all(item == "*" for item in items[i:])


class _DeepGlob:
    """An anchored glob matched segment by segment: the set of path depths each step can reach."""

    def __init__(self, entry: str) -> None:
        self.dir_only = entry.endswith("/")
        segments = _segments(entry.removesuffix("/"))
        kept = [seg for i, seg in enumerate(segments) if not (seg == "**" and i and segments[i - 1] == "**")]
        self.steps = [None if seg == "**" else _segment_matcher(seg) for seg in kept]

    def covers(self, segments: Sequence[str]) -> bool:
        depth, last = len(segments), len(self.steps) - 1
        reached = {0}
        for i, step in enumerate(self.steps):
            if step is None:  # '**': any number of whole segments; at the end, at least one
                reached = set(range(min(reached) + (i == last), depth + 1))
            else:
                reached = {j + 1 for j in reached if j < depth and step.fullmatch(segments[j])}
            if not reached:
                return False
        return any(j < depth for j in reached) if self.dir_only else True


def _segment_matcher(segment: str) -> re.Pattern[str] | _LinearSegment:
    import re

    return _LinearSegment(segment) if _stars(segment) >= 3 else re.compile(_segment(segment), re.S)


def grant_matcher(entries: Sequence[str]) -> PathMatcher:
    """allowed_paths as a grant: a literal entry (no glob character, no trailing slash) is the file
    it names, never a directory of that name; `dir/` and globs keep gitignore's meaning. Otherwise a
    job deletes `src/pricing.py`, makes a directory of that name, and writes anything inside."""
    return PathMatcher(entries, literal_dirs=False)


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


def _alternation(regexes: Sequence[str]) -> re.Pattern[str] | None:
    """Globs as one alternation: one match per path. DOTALL: a newline is an ordinary byte to git."""
    if not regexes:
        return None
    import re

    return re.compile("|".join(f"(?:{r})" for r in regexes), re.S)


def translate(entry: str) -> tuple[str, bool]:
    """An anchored entry (in wildmatch form) as a regex that fullmatches a path or directory name
    without a trailing slash, and whether it matches directories only (a trailing '/').

    git's wildmatch with WM_PATHNAME, as dir.c calls it for a pattern holding '/': `*` and `?` and
    a class never match '/'; a whole-segment `**` matches any number of directories (leading),
    zero or more (between), or everything inside (trailing). compile_entry has refused the forms
    read differently elsewhere (a loose `**`, an unclosed '[', a POSIX class).
    """
    dir_only = entry.endswith("/")
    segments = _segments(entry[:-1] if dir_only else entry)
    collapsed = [seg for i, seg in enumerate(segments) if not (seg == "**" and i and segments[i - 1] == "**")]
    last = len(collapsed) - 1
    out = ""
    for i, seg in enumerate(collapsed):
        if seg != "**":
            out += ("/" if i and not (i == 1 and collapsed[0] == "**") else "") + _segment(seg)
        elif i == 0:  # whole segments, so a path's slashes bound how a match can be tried
            out += ".+" if i == last else "(?:[^/]+/)*"
        else:
            out += "/.+" if i == last else "(?:/[^/]+)*"
    return out, dir_only


def _class_end(entry: str, start: int) -> int:
    """The index of the ']' closing the class that opens at `start`, as wildmatch finds it; -1 if none."""
    first = start + 1 + (entry[start + 1 : start + 2] in ("!", "^"))
    return entry.find("]", first + 1)  # the first character of a class is a member, even ']'


def _segments(entry: str) -> list[str]:
    """The entry split at each '/' that is not inside a bracket class."""
    parts: list[str] = []
    current, i = "", 0
    while i < len(entry):
        if entry[i] == "[" and (end := _class_end(entry, i)) != -1:
            current, i = current + entry[i : end + 1], end + 1
        elif entry[i] == "/":
            parts, current, i = [*parts, current], "", i + 1
        else:
            current, i = current + entry[i], i + 1
    return [*parts, current]


def _segment(seg: str) -> str:
    import re

    out, i = "", 0
    while i < len(seg):
        ch = seg[i]
        if ch == "*":
            out, i = out + "[^/]*", i + 1
        elif ch == "?":
            out, i = out + "[^/]", i + 1
        elif ch == "[" and (end := _class_end(seg, i)) != -1:
            out, i = out + _class(seg[i + 1 : end]), end + 1
        else:
            out, i = out + re.escape(ch), i + 1
    return out


def _class(body: str) -> str:
    """A class body (between '[' and ']') read as wildmatch reads it: a leading '!' or '^' negates;
    '-' between two members is a range (after a range, or first, or last, it is itself); a class
    never matches '/'."""
    import re

    negated = body[:1] in ("!", "^")
    chars = body[1:] if negated else body
    members: list[str] = []
    prev, i = "", 0
    while i < len(chars):
        ch = chars[i]
        if ch == "-" and prev and i + 1 < len(chars):
            low, high = prev, chars[i + 1]
            if low > high:
                raise GlobError(f"is not a valid glob: the range {low}-{high} has its ends reversed")
            members[-1] = f"{re.escape(low)}-{re.escape(high)}"
            prev, i = "", i + 2
        else:
            members.append(re.escape(ch))
            prev, i = ch, i + 1
    inner = "".join(members)
    return f"[^/{inner}]" if negated else f"(?!/)[{inner}]"


def _unclosed_bracket(entry: str) -> bool:
    """git never matches a pattern with an unclosed '['."""
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
    for start, end in _star_runs(entry):
        whole = entry[start - 1 : start] in ("", "/") and entry[end : end + 1] in ("", "/")
        if end - start != 2 or not whole:
            return True
    return False


def compile_entry(entry: str) -> None:
    """Raise GlobError unless the entry compiles and is read here the way git reads it."""
    if _has_posix_class(entry):
        raise GlobError("uses a POSIX character class such as [:digit:]; spell it out, e.g. [0-9]")
    if _unclosed_bracket(entry):
        raise GlobError("has a '[' without a closing ']', which git never matches")
    if _loose_stars(entry):
        raise GlobError(
            "has '**' (or more stars) that is not a whole segment ('**/x', 'a/**/b'), which git "
            "reads differently; use '*' within a segment"
        )
    if "[:" in entry:
        raise GlobError("has '[:' in a class, which git reads as a POSIX class name; spell the characters out")
    if "[" not in entry:  # no class: the translation is escaped literals and fixed forms, which compile
        return  # (tests/manifest/test_globs_prefix.py compiles generated ones), so nothing to compile here
    import re
    import warnings  # here: only an entry with a class needs it, and it is a module load (issue 29)

    try:
        with warnings.catch_warnings():  # the same answer whatever the interpreter's warning filters
            warnings.simplefilter("error")
            re.compile(translate(_wildmatch_form(entry))[0], re.S)
    except (re.error, FutureWarning) as exc:
        raise GlobError(f"is not a valid glob ({exc})") from exc


def root_only_warning(entry: str) -> str | None:
    """A forbidden glob without '/' matches only at the root; it probably meant '**/'."""
    if "/" in entry.rstrip("/"):
        return None
    return (
        f"forbidden_globs entry {entry!r} matches only at the repository root; "
        f"write '**/{entry}' to forbid it at any depth"
    )
