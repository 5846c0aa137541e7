"""The manifest schema's patterns, read with str tests (scorer/manifest/schema.py), against re.search.

jsonschema asks `re.search(pattern, instance)`; the walker answers the shipped job manifest
schema's patterns without compiling them. Each answer is held to re's on a table of edges and on
generated strings over the characters the patterns treat specially (and some they must not).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from scorer.manifest import schema
from scorer.manifest.load import SCHEMA_NAME, schema_text

EDGES = [
    "",
    "\n",
    "a",
    "_",
    "A_9",
    "9a",
    "a-b",
    "a\n",
    "a\n\n",
    "\na",
    "a b",
    "é",
    "aé",
    "a٣",  # a Unicode digit: [0-9] is ASCII only
    "ǅ",
    "/",
    "//",
    "/x",
    "x/",
    "~",
    "~/",
    "~x",
    "~/x",
    "C:",
    "C:/",
    "C:\\",
    "c:\\x",
    "1:/",
    "é:/",
    "C;/",
    "C:x",
    " /x",
    "sha256:" + "0" * 15,
    "sha256:" + "0" * 16,
    "sha256:" + "a" * 64,
    "sha256:" + "a" * 65,
    "sha256:" + "A" * 16,
    "sha256:" + "f" * 16 + "\n",
    "sha256:" + "f" * 16 + "\n\n",
    "sha256:" + "g" * 16,
    "SHA256:" + "0" * 16,
    "sha256:" + "٣" * 16,
    "xsha256:" + "0" * 16,
]
ALPHABET = "aZ_09-/\\~:\n\r é٣shaf2561"


def shipped_patterns(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(shipped_patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(shipped_patterns(v) for v in node))
    return set()


def generated(seed: int, count: int) -> list[str]:
    """Strings that often match each pattern and often miss it by one character."""
    rng = random.Random(seed)
    prefixes = ["", "sha256:", "C:", "~", "/", "a"]
    alphabets = [ALPHABET, "0af9", "0af9\n", "aZ_9", "aZ_9\n-"]
    return [
        rng.choice(prefixes) + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 70)))
        for alphabet in (rng.choice(alphabets) for _ in range(count))
    ]


def test_every_pattern_of_the_manifest_schema_is_read_without_re() -> None:
    assert shipped_patterns(json.loads(schema_text(SCHEMA_NAME))) == set(schema._PATTERNS)


@pytest.mark.parametrize("pattern", sorted(schema._PATTERNS))
def test_each_pattern_compiles(pattern: str) -> None:
    re.compile(pattern)  # the walker skips compiling these when it reads the schema


@pytest.mark.parametrize("pattern", sorted(schema._PATTERNS))
@pytest.mark.parametrize("text", EDGES)
def test_the_edges_agree_with_re(pattern: str, text: str) -> None:
    assert schema._search(pattern, text) == (re.search(pattern, text) is not None)


@pytest.mark.parametrize("pattern", sorted(schema._PATTERNS))
def test_generated_strings_agree_with_re(pattern: str) -> None:
    compiled = re.compile(pattern)
    answers = set()
    for text in generated(29, 4000):
        expected = compiled.search(text) is not None
        assert schema._search(pattern, text) == expected, text
        answers.add(expected)
    assert answers == {True, False}  # the strings reach both answers


def test_another_pattern_goes_to_re() -> None:
    assert schema._search("^[a-z]+(-[a-z]+)*$", "a-b")
    assert not schema._search("^[a-z]+(-[a-z]+)*$", "a--b")
    with pytest.raises(re.error):
        schema.Validator({"type": "string", "pattern": "("})  # an unknown pattern is still compiled when read
