"""scorer.secrets.detectors: what redaction may skip without changing what it masks."""

from __future__ import annotations

import re

import pytest

from scorer.secrets import detectors

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
