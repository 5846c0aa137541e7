"""redaction.split_lines against the regular expression it stands in for, side by side.

A text with no line end is one line without compiling the pattern; every other text goes to the
pattern. The pattern is written out here as it was (the authority), not taken from the module.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from scorer.secrets import redaction

LINE_END = re.compile(r"(\r\n|\n|\r|\\r\\n|\\n)")
PIECES = ["\n", "\r", "\\", "n", "r", "a", "Z9+/", "/", " "]


@pytest.mark.parametrize(
    "text",
    ["", "a", "\\", "\\r", "\\n", "\\r\\n", "\r\n", "\n\r", "\\\\n", "x\\ny", "a/b" * 20, "é\u2028x", "\x85"],
)
def test_the_edges_split_as_the_pattern_splits(text: str) -> None:
    assert redaction.split_lines(text) == LINE_END.split(text)


def test_every_short_text_of_the_pieces_splits_as_the_pattern_splits() -> None:
    for n in range(5):
        for parts in itertools.product(PIECES, repeat=n):
            text = "".join(parts)
            assert redaction.split_lines(text) == LINE_END.split(text), text


def test_generated_texts_split_as_the_pattern_splits() -> None:
    rng = random.Random(29)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 60)))
        assert redaction.split_lines(text) == LINE_END.split(text), text


def test_a_path_of_base64_characters_compiles_nothing() -> None:
    path = "src/" + "abcdefghij/" * 8 + "module.py"  # a 40-character run: the key-body test looks at it
    pattern = redaction._LINE_END
    pattern._compiled = None  # as a fresh process has it
    assert redaction.redact(path) == path
    assert pattern._compiled is None
