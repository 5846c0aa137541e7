"""Scanning added lines with the detector table (`scorer.secrets.detector_table`), and redaction.

A detector is run only where one of its literals occurs; a match becomes a violation once its
judge calls it a credential and its fingerprint is not allowed.
"""

from __future__ import annotations

from .. import digest
from ..builtin_names import DETECTOR_IDS
from ..memo import memoised
from ..model import AddedMatch, AddedText, Violation
from .detector_table import _SECRETS, DETECTORS, RISKY_SHELL, SECRET, Detector, _value

TYPE_CHECKING = False  # typing's: re is imported where a pattern is compiled, not on every tool call (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

__all__ = [
    "DETECTORS",
    "DETECTOR_IDS",
    "RISKY_SHELL",
    "SECRET",
    "Detector",
    "redact",
    "redact_found",
    "redact_with_counts",
    "scan",
]

MASK = "****"
MAX_PER_DETECTOR = 100  # a flood of matches is listed once it is clearly a FAIL


_PEM_START = "-----BEGIN "  # what every match of _pem_block starts with (the guard's log row rarely has it)
# Every literal some secret detector's pattern needs (`Detector.patterns` runs a pattern only where
# its literal is in the text): a text with none of them, and no PEM header, has nothing to mask.
# The guard's log row redacts 13 short fields, most of them words like "allow" (issue 29).
_LITERALS = tuple(sorted({lit for d in _SECRETS for lit in (*d.anchors, *(lit for lit, _ in d.more))}))


@memoised()
def _pem_block() -> re.Pattern[str]:
    """For redacting free text: the whole PEM block, body lines and END line included."""
    import re

    return re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:\\r)?\\n|\r?\n|[ \t]|[A-Za-z0-9+/=]|[A-Za-z-]+: [^\n\\]*)*"
        r"(?:-----END (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----)?"
    )


def fingerprint(value: str) -> str:
    """Stable id for one secret value: sha256: plus 16 hex digits."""
    return "sha256:" + digest.sha256(value.encode()).hexdigest()[:16]


def redacted(match: str) -> str:
    """The only form of a match that may be shown: its first 4 characters and a mask."""
    return match[:4] + MASK


def secret_value(detector: Detector, match: str) -> str:
    """The credential inside a match: the `secret` group if the pattern has one."""
    m = detector.rematch(match)
    return _value(m) if m else match


def is_placeholder(detector: Detector, match: str) -> bool:
    """True for documented sample values and stand-ins (see each detector's judge)."""
    m = detector.rematch(match)
    return m is not None and detector.judge is not None and not detector.judge(m)


def _check(detector: Detector, found: AddedMatch, allowed: frozenset[str]) -> tuple[Violation, str] | None:
    """The violation for one match, with the key under which duplicates collapse."""
    where = (found.path, found.line)
    if detector.code == RISKY_SHELL:
        shown = f"{detector.id}: {detector.description} ({redacted(found.match)})"
        return Violation(RISKY_SHELL, shown, *where), shown
    m = _in_context(detector, found)
    if m is None or (detector.judge is not None and not detector.judge(m)):
        return None
    fp = fingerprint(_value(m))
    if fp in allowed:
        return None
    shown = f"{detector.id}: {redacted(found.match)} (fingerprint {fp})"  # the hint says: remove it
    return Violation(SECRET, shown, *where), fp


def _in_context(detector: Detector, found: AddedMatch) -> re.Match[str] | None:
    """The detector's match again, within its line where it fits there (judges may look back)."""
    at = found.context.find(found.match)
    m = detector.rematch(found.context, at) if at >= 0 else None
    return m if m is not None and m.group(0) == found.match else detector.rematch(found.match)


def scan(
    added: AddedText,
    *,
    disabled: frozenset[str] = frozenset(),
    allowed_fingerprints: frozenset[str] = frozenset(),
) -> list[Violation]:
    """Every secret and risky-shell violation in the added lines, sorted by path and line.

    Inline comments such as `pragma: allowlist secret` or `nosec` are deliberately
    not honoured: the job under review could add them itself.
    """
    found: dict[tuple[str, int, str], Violation] = {}
    present = Literals(added.text)
    for detector in DETECTORS:
        if detector.id not in disabled:
            found.update(_scan_one(detector, added, allowed_fingerprints, found, present))
    return sorted(found.values(), key=lambda v: (v.path or "", v.line or 0))


class Literals:
    """Which literals occur in one text: `literal in Literals(text)` is `literal in text`, in fewer passes.

    A literal without a newline lies within one line, so the text's distinct lines answer for it
    (a line added in a hundred places is searched once); one search of their lower-cased spelling
    rules out every casing of an ASCII literal at once (token, Token, TOKEN); and each answer is
    kept, so detectors that share a literal (curl, wget) search for it once.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: str | None = None
        self._lower: str | None = None
        self._found: dict[str, bool] = {}  # literal -> in the text
        self._folded: dict[str, bool] = {}  # lower-cased literal -> in the lower-cased text

    def __contains__(self, literal: object) -> bool:
        if not isinstance(literal, str):
            return False
        known = self._found.get(literal)
        if known is None:
            known = self._found[literal] = self._search(literal)
        return known

    def _search(self, literal: str) -> bool:
        if "\n" in literal:  # may span lines: only the text itself can say
            return literal in self._text
        if self._lines is None:
            lines = self._text.split("\n")
            distinct = dict.fromkeys(lines)
            self._lines = self._text if len(distinct) == len(lines) else "\n".join(distinct)
        if literal.isascii():  # each character lower-cases on its own: a literal's folding is in the folded text
            folded = literal.lower()
            if folded not in self._folded:
                if self._lower is None:
                    self._lower = self._lines.lower()
                self._folded[folded] = folded in self._lower
            if not self._folded[folded]:
                return False
        return literal in self._lines


def _scan_one(
    detector: Detector,
    added: AddedText,
    allowed: frozenset[str],
    seen: dict[tuple[str, int, str], Violation],
    present: Literals | None = None,
) -> dict[tuple[str, int, str], Violation]:
    """One detector's violations, keyed so a token inside a credentialed URL reports once."""
    found: dict[tuple[str, int, str], Violation] = {}
    hits = 0
    patterns = detector.patterns(added.text, present=Literals(added.text) if present is None else present)
    matches = (m for pattern in patterns for m in added.search(pattern))
    for m in matches:
        checked = _check(detector, m, allowed)
        if checked is None:
            continue
        if hits == MAX_PER_DETECTOR:
            more = f"{detector.id}: more than {MAX_PER_DETECTOR} matches; the rest are not listed"
            found[(m.path, m.line, "more")] = Violation(detector.code, more, m.path, m.line)
            break
        hits += 1
        found.setdefault((m.path, m.line, checked[1]), checked[0])
    return {k: v for k, v in found.items() if k not in seen}


def redact_with_counts(text: str) -> tuple[str, dict[str, int]]:
    """Replace every secret shape in `text` with its redacted form; count by detector id."""
    text, counts, _ = redact_found(text)
    return text, counts


def _key_lines(block: str) -> set[str]:
    """A key block's own lines of key-body length: a test that prints the key file encoded
    encodes these lines, whatever the line breaks were."""
    import re

    return {line for line in re.split(r"\\r|\\n|\s", block) if len(line) >= 16}


def redact_found(text: str) -> tuple[str, dict[str, int], frozenset[str]]:
    """`redact_with_counts`, and the secret values it masked (for `secrets.encodings`)."""
    counts: dict[str, int] = {}  # by detector id: a dict, since collections is not loaded on a Write (issue 29)
    if _PEM_START not in text and not any(literal in text for literal in _LITERALS):
        return text, counts, frozenset()  # what the loop below answers: no detector has a pattern to run
    found: set[str] = set()

    def mask(detector: Detector) -> Callable[[re.Match[str]], str]:
        def replace(m: re.Match[str]) -> str:
            if detector.judge is not None and not detector.judge(m):
                return m.group(0)
            counts[detector.id] = counts.get(detector.id, 0) + 1
            found.add(_value(m))
            return redacted(m.group(0))

        return replace

    pem = next(d for d in _SECRETS if d.id == "private-key-block")

    def mask_block(m: re.Match[str]) -> str:
        # Judge the detector's own match here: unlike the block, it sees the line after the header.
        own = pem.pattern.match(m.string, m.start())
        if own is not None and pem.judge is not None and not pem.judge(own):
            return m.group(0)
        counts[pem.id] = counts.get(pem.id, 0) + 1
        found.update({m.group(0), *_key_lines(m.group(0)), *([_value(own)] if own is not None else [])})
        return redacted(m.group(0))

    if _PEM_START in text:  # the block's pattern begins with this literal: without it, nothing to mask
        text = _pem_block().sub(mask_block, text)
    lower = text.lower()  # redaction only ever shortens text, so a literal absent here stays absent
    for detector in _SECRETS:
        for pattern in detector.patterns(text, lower):
            text = pattern.sub(mask(detector), text)
    return text, counts, frozenset(found)


def redact(text: str) -> str:
    """`text` with every secret shape replaced by its redacted form."""
    return redact_with_counts(text)[0]
