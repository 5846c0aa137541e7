"""manifest/globs.drive_rooted (which checks/paths.py and the schema share) tells
a Windows drive root (`C:/x`, `c:\\x`) from a relative target with a str
test, without importing re on the guard's Write path (issue 29), held side by side to the regex
it replaced on every three-character prefix of a tricky alphabet."""

from __future__ import annotations

import itertools
import re

import pytest

from scorer.checks.paths import escapes_repo
from scorer.manifest.globs import drive_rooted

ALPHABET = ["a", "Z", "0", ":", "/", "\\", "é", "İ", "\u212a", "ａ", ".", ""]


def test_drive_rooted_is_the_regex_on_every_prefix() -> None:  # globs.drive_rooted, paths' and the schema's reader
    for parts in itertools.product(ALPHABET, repeat=3):
        target = "".join(parts) + "x"
        assert drive_rooted(target) is (re.match(r"^[A-Za-z]:[\\/]", target) is not None), target


@pytest.mark.parametrize(
    ("target", "leaves"),
    [("C:/Windows", True), ("c:\\x", True), ("C:x", False), ("é:/x", False), ("\u212a:/x", False), ("1:/x", False)],
)
def test_a_link_to_a_drive_root_leaves_the_repository(target: str, leaves: bool) -> None:
    assert escapes_repo("allowed/link", target) is leaves
