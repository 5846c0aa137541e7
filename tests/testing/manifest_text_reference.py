"""The regular expressions scorer/manifest's str tests replaced (issue 29), frozen as they were at
652f4ac: the authority tests/manifest/test_manifest_text.py holds the replacements to."""

from __future__ import annotations

import re

GLOB_CHARS = re.compile(r"[*?\[\\]")
STARS = re.compile(r"\*{2,}")
POSIX_CLASS = re.compile(r"\[:(alnum|alpha|blank|cntrl|digit|graph|lower|print|punct|space|upper|xdigit):\]")
HEX = re.compile(r"^[0-9a-f]{64}$")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def is_glob(entry: str) -> bool:
    return bool(GLOB_CHARS.search(entry))


def is_drive(text: str) -> bool:
    return bool(re.match(r"^[A-Za-z]:/", text))


def is_drive_rooted(text: str) -> bool:
    return bool(re.match(r"^[A-Za-z]:[\\/]", text))


def loose_stars(entry: str) -> bool:
    for m in STARS.finditer(entry):
        whole = entry[m.start() - 1 : m.start()] in ("", "/") and entry[m.end() : m.end() + 1] in ("", "/")
        if m.group() != "**" or not whole:
            return True
    return False


def has_posix_class(entry: str) -> bool:
    return bool(POSIX_CLASS.search(entry))


def is_pin_token(token: str) -> bool:
    return bool(HEX.match(token))


def valid_name(job: str) -> bool:
    return bool(NAME.fullmatch(job)) and not job.endswith(".")
