"""The secrets modules build their tables and judge their matches without importing re on the
guard's Write path (issue 29): each str test here is held side by side to the re call it replaced,
on every code point or on a seeded table."""

from __future__ import annotations

import random
import re

from scorer.secrets import detector_table, secret_values

EVERY_CHARACTER = "".join(map(chr, range(0x110000)))  # surrogates included: re.escape takes them


def test_escape_is_re_escape_on_every_code_point() -> None:
    assert detector_table._escape(EVERY_CHARACTER) == re.escape(EVERY_CHARACTER)


def _samples(seed: int, alphabet: str, n: int = 2000) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))) for _ in range(n)]


# ASCII and the look-alikes a str method would take for letters, digits or hex: Unicode digits,
# full-width letters, a dotted capital I, the Kelvin sign (which re's IGNORECASE folds to k).
TRICKY = "aAzZ09fFgG_-.+/= \t\n\\é١２ＡİKſ\u212a\x00\x7f"


def test_the_token_body_keeps_what_re_kept() -> None:
    for text in ["", "ghp_abc-DEF_123", "a١b２cＡd", *_samples(1, TRICKY)]:
        kept = "".join(c for c in text if c in detector_table._ALNUM)
        assert kept == re.sub(r"[^A-Za-z0-9]", "", text), text


def test_the_hex_test_is_re_fullmatch() -> None:
    for text in ["", "0", "deadBEEF", "dead beef", "٠١", "ａ", *_samples(2, TRICKY)]:
        ours = bool(text) and all(c in detector_table._HEX_DIGITS for c in text)
        assert ours is (re.fullmatch(r"[0-9a-fA-F]+", text) is not None), text


def test_the_stand_in_body_is_the_same_pattern() -> None:
    for text in ["paste the key", "INSERT", "Here", "to\u212ado", "nothing", *_samples(3, "pastehrodiTKſ\u212a")]:
        ours = detector_table._STAND_IN_BODY.search(text) is not None
        assert ours is (re.search(r"paste|insert|here|todo", text, re.IGNORECASE) is not None), text


def test_a_key_body_loses_its_line_breaks_as_before() -> None:
    body = "MIIB\\nabc\\r\\nDEF\n ghi\u2003jkl"
    assert detector_table._KEY_BREAKS.sub("", body) == re.sub(r"\\r|\\n|\s", "", body)


def test_a_base64_value_is_read_as_before() -> None:
    for value in ["", "YWJjZGVmZ2hpamtsbW5vcA==", "YWJj ZGVm", "a" * 11, "a" * 12, "YWJj===", "ａ" * 12]:
        assert (secret_values._BASE64.fullmatch(value) is not None) is (
            re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", value) is not None
        )
