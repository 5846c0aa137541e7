"""Checks of added lines: forbidden tokens and patterns, and the built-in detectors.

They run on each batch of added lines while git is still streaming the diff.
"""

from __future__ import annotations

import unicodedata
from itertools import accumulate

from ..model import AddedText, Violation
from .job import Job


def check_added_tokens(added: AddedText, job: Job) -> list[Violation]:
    """Forbidden substrings and patterns in added lines (and all lines of new files): never in
    content the job did not add. Run on each batch of lines as git streams them."""
    found = []
    read = as_read(added)
    for label, pattern in job.tokens:
        hits = list(added.search(pattern))
        if read is not None:  # lines only the languages' reading shows
            seen = {(h.path, h.line) for h in hits}
            hits += [h for h in read[0].search(pattern, read[1]) if (h.path, h.line) not in seen]
        for hit in hits:
            what = f"forbidden substring {hit.match!r}" if label == "substring" else f"forbidden {label}"
            found.append(Violation("forbidden-token", f"added line contains {what}", hit.path, hit.line))
    return found


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
    from . import detectors

    m = job.manifest
    return detectors.scan(added, disabled=frozenset(m.disabled_detectors),
                          allowed_fingerprints=frozenset(m.allowed_fingerprints))
