"""scorer/manifest's str tests (glob characters, '**' runs, POSIX classes, drive letters, pin digests,
job names) against the regular expressions they replaced, side by side on a generated table."""

from __future__ import annotations

import random
from typing import Any

import pytest

from scorer.errors import ManifestError
from scorer.manifest import globs, jobs, load, pin
from tests.testing import manifest_text_reference as ref

SEED = 20261203
ALPHABET = ["*", "?", "[", "]", "\\", ":", "/", "!", "^", "-", ".", "_", " ", "a", "Z", "0", "9", "é", "\n", "\x00"]
ALPHABET += [
    "[:",
    ":]",
    "[:digit:]",
    "[:alpha",
    "xdigit:]",
    "**",
    "***",
    "C:/",
    "ſ",
    "K",
    "١",
]  # long s, Kelvin, Arabic one


def _texts(seed: int, count: int = 4000, longest: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(longest))) for _ in range(count)]


HAND = ["", "*", "**", "***", "a**", "**/x", "a/**/b", "a/**", "x**/", "/**/", "[:upper:]", "[[:upper:]]", "[:Upper:]",
        "[:upper:", "[::upper:]", "[:[:space:]", "C:/x", "c:/", "C:", "C:\\", "é:/", "1:/", ":/", "a/C:/"]  # fmt: skip


@pytest.mark.parametrize("text", [*HAND, *_texts(SEED)])
def test_the_glob_readers_agree_with_the_regexes(text: str) -> None:
    assert globs.is_glob(text) == ref.is_glob(text)
    assert globs._loose_stars(text) == ref.loose_stars(text)
    assert globs._has_posix_class(text) == ref.has_posix_class(text)
    assert globs._drive(text) == ref.is_drive(text)
    assert globs.drive_rooted(text) == ref.is_drive_rooted(text)


def _tokens() -> list[str]:
    rng = random.Random(SEED + 1)
    digits = "0123456789abcdefABCDEFgé١ \n"
    made = ["".join(rng.choice(digits[:16]) for _ in range(n)) for n in (0, 1, 63, 64, 64, 64, 65, 128)]
    for _ in range(2000):
        token = [rng.choice(digits[:16]) for _ in range(rng.choice([63, 64, 65]))]
        token[rng.randrange(len(token))] = rng.choice(digits)
        made.append("".join(token))
    return made


@pytest.mark.parametrize("token", _tokens())
def test_a_pin_is_read_as_the_regex_read_it(token: str) -> None:
    for text in (token, f"{token}  job_manifest.json\n", f"sha256:{token}", f" {token.upper()}\n"):
        lowered = text.strip().split()[0].lower().removeprefix("sha256:") if text.strip() else ""
        try:
            got: str | None = pin.parse_pin(text, "pin")
        except ManifestError:
            got = None
        assert got == (lowered if ref.is_pin_token(lowered) else None)


def _names() -> list[str]:
    rng = random.Random(SEED + 2)
    chars = "aZ09._-/ é١\n*"
    names = ["", "a", ".", "-a", "a.", "a..b", "x" * 200, "x" * 201, "a\n", "\na", "K", "ſ"]
    names += ["".join(rng.choice(chars) for _ in range(rng.randrange(8))) for _ in range(3000)]
    names += ["a" * n + rng.choice(chars) for n in (198, 199, 200) for _ in range(5)]
    return names


@pytest.mark.parametrize("name", _names())
def test_a_job_name_is_read_as_the_regex_read_it(name: str) -> None:
    assert jobs.valid_name(name) == ref.valid_name(name)


def _encoded() -> list[bytes]:
    rng = random.Random(SEED + 3)
    parts = [b"\xef\xbb\xbf", b"\xef\xbb", b"\xef", b"{}", b"a", "é".encode(), b"\xff", b"\xc0\x80", b"\xed\xa0\x80"]
    parts += [b"\xf0\x9f\x98", "😀".encode(), b"\x00", b"\n"]
    return [b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf{}"] + [
        b"".join(rng.choice(parts) for _ in range(rng.randrange(6))) for _ in range(3000)
    ]


def _decoded(call: Any, raw: bytes) -> tuple[str, str]:
    try:
        return "text", call(raw)
    except UnicodeDecodeError as exc:
        return "error", str(exc)


def test_the_manifest_text_is_what_utf_8_sig_decodes() -> None:
    for raw in _encoded():
        assert _decoded(load.decode_text, raw) == _decoded(lambda b: b.decode("utf-8-sig"), raw), raw
