"""The secret detectors' literal prefilter (detectors._LITERALS) against redaction without it, side by side.

A text with none of the literals the detectors' patterns need (and no PEM header) is returned as
it is without running the detectors; the reference is the same scan with the prefilter off (every
text passes it), which runs every detector the text's literals choose.
"""

from __future__ import annotations

import random

import pytest

from scorer.secrets import detectors
from scorer.secrets.detector_table import _SECRETS
from tests.testing.secrets import SECRET_LINES, SECRETS

LOG_FIELDS = ["bench", "guard", "allow", "deny", "ask", "0.1.0", "claude", "PreToolUse", "Write", "ok", "s-1", "p"]
LOG_FIELDS += ["/home/u/repo/src/pkg/module.py", "src/pkg/module.py", "unresolved: pytest -q", ""]


def reference(text: str, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as patched:
        patched.setattr(detectors, "_LITERALS", ("",))  # "" is in every text: the prefilter never answers
        return detectors.redact_found(text)


def texts() -> list[str]:
    rng = random.Random(29)
    pieces = [*detectors._LITERALS, "-----BEGIN ", "x", " ", "=", "\n", "A1b2C3d4E5f6G7h8I9j0", ":", "/", "_"]
    made = ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8))) for _ in range(1500)]
    return [*LOG_FIELDS, *(str(v) for v in SECRETS.values()), *(line for _, line in SECRET_LINES), *made]


def test_each_detector_needs_one_of_the_literals() -> None:
    """The prefilter's premise: a detector runs a pattern only where one of its literals is in the text."""
    for detector in _SECRETS:
        assert detector.anchors, detector.id
        for text in ("", "plain words only", "allow", "/a/b/c.py"):
            if not any(literal in text for literal in detectors._LITERALS):
                assert detector.patterns(text, text.lower()) == [], detector.id


def test_redaction_answers_as_it_does_without_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    masked = 0
    for text in texts():
        ours = detectors.redact_found(text)
        assert ours == reference(text, monkeypatch), text
        masked += ours[0] != text
    assert masked > 50  # the texts reach the detectors, not only the prefilter


def test_a_plain_log_field_is_answered_by_the_prefilter() -> None:
    for field in ("allow", "Write", "src/pkg/module.py"):
        assert not any(literal in field for literal in detectors._LITERALS)
        assert detectors.redact_found(field) == (field, {}, frozenset())


def test_the_literals_are_those_of_the_table() -> None:
    literals = {lit for d in _SECRETS for lit in d.anchors} | {lit for d in _SECRETS for lit, _ in d.more}
    assert set(detectors._LITERALS) == literals
