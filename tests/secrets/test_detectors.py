"""scorer.secrets.detectors: what redaction may skip without changing what it masks."""

from __future__ import annotations

import random
import re

import pytest

from scorer.model import AddedText
from scorer.secrets import detectors
from scorer.secrets.detectors import DETECTORS, Detector, scan
from tests.testing.secrets import SECRET_LINES

KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 3


def test_the_pem_block_pattern_cannot_match_without_its_leading_literal() -> None:
    """redact_found skips the PEM pass for a text without _PEM_START (issue 29: the guard's log row
    rarely has one); that is sound only while every match begins with that literal."""
    source = detectors._pem_block().pattern
    assert source.startswith(detectors._PEM_START)
    assert not re.search(r"[\\^$.|?*+()\[\]{}]", detectors._PEM_START)  # a literal, not a pattern


@pytest.mark.parametrize(
    "text",
    [
        "plain text, no key",
        f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----\n",
        f"x = '-----BEGIN RSA PRIVATE KEY-----\\n{KEY_BODY}\\n-----END RSA PRIVATE KEY-----'",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "-----BEGIN  PRIVATE KEY----- (two spaces)",
    ],
    ids=["none", "block", "escaped", "certificate", "odd-spacing"],
)
def test_redaction_is_the_same_with_and_without_the_skip(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    skipped = detectors.redact_found(text)
    monkeypatch.setattr(detectors, "_PEM_START", "")  # "" is in every text: the PEM pass always runs
    assert detectors.redact_found(text) == skipped


# --- Literals: the scan's one shared answer to "which detector literals occur" (issue 29) -------------

_LITERAL_TEXTS = [
    "",
    "no newline at the end",
    "token = 1\ntoken = 1\ntoken = 1\n",  # the same line three times: searched once
    "TOKEN\r\nToken\r\n",  # CRLF: the CR stays part of its line
    "curl x\rwget y\n",  # a lone CR is no line end for git
    "pass\nword\n",  # a literal across lines is in no single line
    "ｅｖａｌ( \u212aey \u0130nfo \u03a3ECRET \u017fecret\n",  # fullwidth, Kelvin sign, dotted I, sigma, long s
    "sk-ant-api03-x sk-x\nsk-ant-\n",  # one literal inside another at the same place
    "\n\n\n",
    "a\nb\na\nb\n",
]
_EXTRA_LITERALS = [
    "",
    "\n",
    "s\nw",
    "e\n",
    "\r\n",
    "Token",
    "ECRET",
    "\u017fecret",
    "KEY",
    "ｅｖａｌ(",
    "key",
    "x\rwget",
]


def _literals() -> list[str]:
    found = {lit for d in DETECTORS for lit in (*d.anchors, *(lit for lit, _ in d.more))}
    return sorted(found | set(_EXTRA_LITERALS))


@pytest.mark.parametrize("text", _LITERAL_TEXTS)
def test_literals_answers_as_the_text_does(text: str) -> None:
    present = detectors.Literals(text)
    for literal in _literals():
        assert (literal in present) == (literal in text), literal
        assert (literal in present) == (literal in text), literal  # the kept answer too


def test_literals_answers_as_the_text_does_on_random_texts() -> None:
    """Random lines drawn from pieces of the literals, repeated, cased and split at random."""
    rng = random.Random(29)
    pieces = [*_literals(), "x", " ", "\n", "\r", "İ", "Σ", "K", "\u212a"]
    literals = _literals()
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(30)))
        text = "".join(c.upper() if rng.random() < 0.2 else c for c in text)
        present = detectors.Literals(text)
        for literal in rng.sample(literals, 20) + [text[i:j] for i, j in [sorted(rng.sample(range(len(text) + 2), 2))]]:
            assert (literal in present) == (literal in text), (text, literal)


@pytest.mark.parametrize("text", [*_LITERAL_TEXTS, *(line for _, line in SECRET_LINES)])
def test_every_detector_runs_the_same_patterns_with_the_shared_literals(text: str) -> None:
    """scan chooses each detector's patterns through Literals; redaction still through text and lower."""
    doubled = f"{text}\n{text}\r\n{text.upper()}\n{text}"
    for subject in (text, doubled):
        present = detectors.Literals(subject)
        for d in DETECTORS:
            assert d.patterns(subject, present=present) == d.patterns(subject, subject.lower()), d.id


def test_scan_reports_what_it_reported_before_the_shared_literals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole scan against the one before Literals: patterns chosen from the text and its lower-casing."""
    lines = [line for _, line in SECRET_LINES]
    text = "\n".join(["x = 1", *lines, "x = 1", *lines, *(line.upper() for line in lines), *_LITERAL_TEXTS]) + "\n"
    added = AddedText(text, (0, len(text) // 2), (("a.py", 1), ("b.py", 7)))
    new = scan(added)
    assert len(new) > len(lines)
    before = Detector.patterns

    def chosen_as_before(
        self: Detector, text: str | None = None, lower: str | None = None, present: object = None
    ) -> list[re.Pattern[str]]:
        return before(self, text, None if text is None else text.lower())

    monkeypatch.setattr(Detector, "patterns", chosen_as_before)
    assert scan(added) == new
