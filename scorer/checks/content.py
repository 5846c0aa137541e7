"""Checks of added lines: forbidden tokens and patterns, and the built-in detectors.

They run on each batch of added lines while git is still streaming the diff.
"""

from __future__ import annotations

import unicodedata
from itertools import accumulate

from ..model import AddedMatch, AddedText, Violation
from .job import Job

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

MAX_LISTED = 100  # lines listed per pattern and batch: a flood of hits is a FAIL long before it is read


def check_added_tokens(added: AddedText, job: Job) -> list[Violation]:
    """Forbidden substrings and patterns in added lines (and all lines of new files): never in
    content the job did not add. Run on each batch of lines as git streams them.

    One violation per line (and substring), at most MAX_LISTED per pattern: the scan stops
    there, so a line of 12,000 hits or a million hit lines costs a listing, not a copy per hit.
    """
    found = []
    read = as_read(added)
    substrings = job.manifest.forbidden_substrings
    for label, pattern in job.tokens:
        listed: dict[tuple[str, int, str], None] = {}  # insertion-ordered, at most MAX_LISTED
        more = None
        if _may_match(label, substrings, added.text):
            more = _list_lines(added.search(pattern), listed, label)
        if more is None and read is not None and _may_match(label, substrings, read[1]):
            more = _list_lines(
                read[0].search(pattern, read[1]), listed, label
            )  # lines only the languages' reading shows
        for path, line, match in listed:
            found.append(Violation("forbidden-token", f"added line contains {_what(label, match)}", path, line))
        if more is not None:
            found.append(
                Violation(
                    "forbidden-token",
                    f"more than {MAX_LISTED} added lines contain {_what(label, more.match)}; the rest are not listed",
                    more.path,
                    more.line,
                )
            )
    return found


def _may_match(label: str, substrings: Sequence[str], text: str) -> bool:
    """False only where the pattern cannot match: the substrings' alternation (`job.token_patterns`)
    matches only where one of them occurs, and one search for each is a pass at C speed, where the
    alternation tests every character that starts one of them (`e` of `eval(`). A forbidden pattern
    is always run."""
    return label != "substring" or any(s in text for s in substrings)


def _what(label: str, match: str) -> str:
    return f"forbidden substring {match!r}" if label == "substring" else f"forbidden {label}"


def _list_lines(hits: Iterator[AddedMatch], listed: dict[tuple[str, int, str], None], label: str) -> AddedMatch | None:
    """Add each hit's line to `listed`; the first hit that finds it full, or None if it never filled."""
    for hit in hits:
        key = (hit.path, hit.line, hit.match if label == "substring" else "")
        if key in listed:
            continue
        if len(listed) == MAX_LISTED:
            return hit
        listed[key] = None
    return None


_LINE_ENDS = str.maketrans(dict.fromkeys("\r\x85\u2028\u2029", "\n"))


def as_read(added: AddedText) -> tuple[AddedText, str] | None:
    """The added lines as the languages they are written in read them, where that differs from git:
    Python folds identifiers with NFKC (fullwidth `eval(` calls eval), and ends a line at a lone CR as
    JavaScript does at U+2028 (so `^import ctypes` must match after one). Returns the NFKC text and
    a same-length view of it whose line ends are all newlines; None when that is the text itself.
    """
    text = added.text
    if text.isascii() and "\r" not in text:
        return None
    if not text.isascii():  # NFKC never adds or removes a newline: each block keeps its line numbers
        ends = (*added.starts[1:], len(text))
        blocks = [unicodedata.normalize("NFKC", text[a:b]) for a, b in zip(added.starts, ends, strict=True)]
        starts = tuple(accumulate((len(b) for b in blocks[:-1]), initial=0))
        added = AddedText("".join(blocks), starts, added.locations)
    view = added.text.translate(_LINE_ENDS)
    return None if view == text else (added, view)


def check_secrets(added: AddedText, job: Job) -> list[Violation]:
    """The built-in secret and risky-shell detectors (scorer.detectors)."""
    from ..secrets import detectors

    m = job.manifest
    return detectors.scan(
        added, disabled=frozenset(m.disabled_detectors), allowed_fingerprints=frozenset(m.allowed_fingerprints)
    )


# Checks of added lines alone: the scorer runs them on each batch of lines as git streams the diff,
# so their regex scans overlap git's work (`source.check_streamed` then reports what they found),
# and the guard runs them on the content a tool call would write. Kept here, not in the registry,
# so that the guard's hot path loads no other check.
CONTENT_CHECKS: tuple[Callable[[AddedText, Job], Sequence[Violation]], ...] = (check_added_tokens, check_secrets)
