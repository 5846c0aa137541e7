"""Redaction of a found secret's other forms (scorer.secrets.encodings), and the bounded tail.

Secrets are made at run time from random bytes: no credential shape is written in this file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import string

import pytest

from scorer.secrets.redaction import redact, redact_with_counts
from scorer.secrets.secret_values import environment_secrets
from scorer.testrun.run import TAIL_BYTES, TAIL_LINES, tail
from tests.testing.secrets import body

ALNUM = string.ascii_letters + string.digits


def _token() -> str:
    """A GitHub-classic-shaped token (a shape the detectors find), random every run."""
    return "gh" + "p_" + "".join(secrets.choice(ALNUM) for _ in range(33)) + "aZ9"


def _forms(value: bytes) -> list[str]:
    out = [value.hex(), value.hex().upper()]
    for prefix in (b"", b"\x00", b"\xff\xfe"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            full = encode(prefix + value).decode()
            out += [full, full.rstrip("=")]
    return out


def _core(form: str) -> str:
    return form[4:-4]  # the ends may mix a prefix's or a neighbour's bits with the value's


@pytest.mark.parametrize("index", range(14))
def test_each_form_of_a_secret_found_in_the_same_text_is_masked(index: int) -> None:
    token = _token()
    form = _forms(token.encode())[index]
    masked, counts = redact_with_counts(f"token {token}\nencoded: {form} done\n")
    assert _core(form) not in masked and token[4:] not in masked, masked
    assert masked.endswith(" done\n") and counts["secret-value-form"] == 1


@pytest.mark.parametrize("index", range(14))
def test_each_form_of_a_known_value_is_masked_without_any_shape(index: int) -> None:
    value = base64.b32encode(os.urandom(20)).decode()  # no detector's shape
    form = _forms(value.encode())[index]
    text = f"[{form}] and again inside: aa{form}zz"
    assert redact(text) == text  # not found on its own: nothing in it is secret-shaped
    masked = redact(text, {value})
    assert _core(form) not in masked and masked.startswith("[") and masked.endswith("zz"), masked


def test_a_form_inside_a_longer_encoding_is_masked_at_every_offset() -> None:
    value = _token().encode()
    for before in range(6):
        for after in range(4):
            blob = base64.b64encode(os.urandom(before) + value + os.urandom(after)).decode()
            masked = redact(f"blob={blob}", {value.decode()})
            assert base64.b64encode(value)[4:-4].decode() not in masked or before % 3, masked
            # whatever the offset, no 16 characters of the value's own bits survive
            assert not any(blob[i : i + 16] in masked for i in range(4 + before * 2, len(blob) - 20)), masked


@pytest.mark.parametrize(
    "text",
    [
        f"sha256 {hashlib.sha256(b'fixture').hexdigest()}",  # ordinary hex
        f"sha256 {hashlib.sha256(b'fixture').hexdigest().upper()}",
        "payload " + base64.b64encode(b"an ordinary payload that a test prints").decode(),
        "commit 0123456789abcdef0123456789abcdef01234567",
    ],
)
def test_ordinary_hex_and_base64_are_left_alone(text: str) -> None:
    assert redact(text, {_token()}) == text
    assert redact_with_counts(text) == (text, {})


def test_a_short_known_value_is_not_masked_in_ordinary_text() -> None:
    # Below 8 characters its encodings occur by chance: it is masked by its shape only.
    assert redact("abc 616263 YWJj", {"abc"}) == "abc 616263 YWJj"


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("API_TOKEN", "s3cr3t-value-of-a-team", True),  # named as a secret
        ("DB_PASSWORD", "hunter2hunter2", True),
        ("SERVICE_KEY", "short", False),  # too short to mask by its forms
        ("UNNAMED", body(32, seed=77), True),  # looks generated
        ("DJANGO_SETTINGS_MODULE", "project.settings.test", False),
        ("TOKEN_PATH", "/run/secrets/token", False),  # names the secret's place, not the secret
        ("LANGUAGE_LEVEL", "advanced-beginner", False),
    ],
)
def test_environment_secrets(name: str, value: str, secret: bool) -> None:
    assert (value in environment_secrets({name: value})) is secret


# --- the tail: bounded in lines and bytes whatever the test prints, redacted before the cut ----


@pytest.mark.parametrize(
    "output",
    [
        "x" * 10_000_000,  # one very long line
        "line\n" * 200_000,  # many lines
        "\n" * 100_000,
        "é" * 1_000_000,  # two bytes a character
        "\ufffd" * 500_000,  # what undecodable binary becomes: three bytes each
        "\x0b\x0c\x1c\u2028" * 100_000,  # the other line separators
    ],
    ids=["long-line", "many-lines", "newlines", "two-byte", "binary", "separators"],
)
def test_the_tail_has_a_fixed_maximum(output: str) -> None:
    shown = tail(output)
    assert len(shown.encode("utf-8")) <= TAIL_BYTES
    assert shown.count("\n") < TAIL_LINES


def test_the_tail_keeps_a_short_output_whole() -> None:
    assert tail("1 passed\n") == "1 passed"


@pytest.mark.parametrize("shift", range(0, 60, 7))
def test_a_secret_straddling_the_cut_shows_no_part_of_itself(shift: int) -> None:
    token = _token()
    encoded = token.encode().hex()
    # The token, then its hex, placed so the byte cut falls inside the hex (and, shifted, the token).
    output = "start " + token + " " + encoded + "y" * (TAIL_BYTES - len(encoded) // 2 - shift)
    shown = tail(output)
    assert not any(token[i : i + 8] in shown for i in range(4, len(token) - 8)), shown[:120]
    assert not any(encoded[i : i + 8] in shown for i in range(len(encoded) - 8)), shown[:120]


# --- every field of a result, the observer's log with its digest --------------------------------


def test_a_given_secret_is_masked_in_every_field_and_the_observer_log_digest_follows() -> None:
    from scorer.model import EnvelopeFacts, Result, TestOutcome, Violation
    from scorer.secrets.redaction import redacted_result
    from scorer.testrun.envelope import log_digest
    from scorer.verify import _log_digest

    value = base64.b32encode(os.urandom(20)).decode()
    hexed, b64 = value.encode().hex(), base64.urlsafe_b64encode(b"x" + value.encode()).decode()
    observed = (f"wrote /tmp/{hexed}", "connected to 127.0.0.1:80")
    result = Result(
        verdict="FAIL",
        exit_code=1,
        job_id="job",
        mode="worktree",
        violations=(Violation("test-envelope", f"the test wrote /tmp/{hexed}", f"src/{b64}.txt"),),
        test=TestOutcome(
            "failed",
            reason=f"exited 1 after printing {value}",
            envelope=EnvelopeFacts(
                "auto", missing=(f"network: {b64}",), observed=observed, log_sha256=log_digest(observed)
            ),
        ),
        warnings=(f"left {hexed.upper()} behind",),
    )
    shown = redacted_result(result, {value})
    text = repr(shown)
    assert value not in text and hexed not in text.lower() and b64[4:-4] not in text, text
    envelope = shown.test.envelope
    assert envelope is not None and envelope.observed == ("wrote /tmp/****", "connected to 127.0.0.1:80")
    assert envelope.log_sha256 == log_digest(envelope.observed) == _log_digest(list(envelope.observed))
    assert redacted_result(result) == result  # nothing in it is secret-shaped: unknown, it stays
