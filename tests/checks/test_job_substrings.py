"""scorer/checks/job.py: the forbidden substrings found with str.find (issue 29: no pattern compiled
on a Write), held side by side to the alternation they replace, `re.compile("|".join(re.escape(s)
...))` longest first: the same matches (leftmost, and which substring when several overlap), and the
same violations from check_added_tokens."""

from __future__ import annotations

import json
import random
import re

import pytest

from scorer.checks.content import MAX_LISTED, check_added_tokens
from scorer.checks.job import Job, Substrings, token_patterns
from scorer.manifest.load import Manifest, parse_manifest
from scorer.model import AddedText


def old_token_patterns(manifest: Manifest) -> list[tuple[str, re.Pattern[str]]]:
    """job.token_patterns at f7ffbb1, frozen."""
    found = []
    if manifest.forbidden_substrings:
        alternation = "|".join(re.escape(s) for s in sorted(manifest.forbidden_substrings, key=len, reverse=True))
        found.append(("substring", re.compile(alternation)))
    found += [(f"pattern {p!r}", re.compile(p, re.M)) for p in manifest.forbidden_patterns]
    return found


def _alternation(substrings: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(s) for s in sorted(substrings, key=len, reverse=True)))


def _matches(finder: Substrings | re.Pattern[str], subject: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0)) for m in finder.finditer(subject)]


EDGES = [
    (["eval(", "exec(", "pickle"], "x = eval(exec(pickle))\n"),
    (["ab", "abc", "bcd"], "abcd abc ab bcd"),  # overlapping: the longest at the leftmost place wins
    (["bc", "abcd"], "abcbcd abcd"),  # a longer one starting later loses to a shorter one earlier
    (["aa"], "aaaaa"),  # non-overlapping, from where the last match ended
    (["a", "aa", "aaa"], "aaaaaaa"),
    (["x"], ""),  # an empty text
    (["ab", "ab"], "abab"),  # a duplicate
    (["two\nlines", "\n"], "two\nlines\n\n"),  # across line ends
    (["\r", "\r\n"], "a\r\nb\rc"),
    (["é", "é"], "café café"),  # composed and decomposed: different code points, as re sees them
    (["ｅｖａｌ(", "eval("], "ｅｖａｌ(1) eval(2)"),
    (["Eval("], "eval( EVAL( Eval("),  # case matters
    (["a.b", "(?x)", "[", "\\", "$"], "a.b axb (?x) [ \\ $"),  # regex metacharacters are literal
    (["😀", "😀😀"], "😀😀😀"),
    (["\x00"], "a\x00b\x00"),
]


@pytest.mark.parametrize(("substrings", "subject"), EDGES)
def test_the_same_matches_as_the_alternation(substrings: list[str], subject: str) -> None:
    assert _matches(Substrings(substrings), subject) == _matches(_alternation(substrings), subject)


def test_the_same_matches_on_a_seeded_table() -> None:
    rng = random.Random(37)
    alphabet = "ab\nA(é😀."
    for _ in range(4000):
        substrings = ["".join(rng.choices(alphabet, k=rng.randint(1, 4))) for _ in range(rng.randint(1, 5))]
        subject = "".join(rng.choices(alphabet, k=rng.randint(0, 80)))
        assert _matches(Substrings(substrings), subject) == _matches(_alternation(substrings), subject), (
            substrings,
            subject,
        )


def _job(**fields: object) -> tuple[Job, Job]:
    """(the job as built now, the same job with f7ffbb1's compiled tokens)."""
    data = {"job_id": "j", "allowed_paths": ["**"], "required_test": ["true"], **fields}
    manifest = parse_manifest(json.dumps(data).encode(), "test")
    new, old = Job(manifest), Job(manifest)
    old.tokens = old_token_patterns(manifest)
    return new, old


JOBS = [
    {"forbidden_substrings": ["eval(", "exec(", "pickle"]},
    {"forbidden_substrings": ["ev", "eval(", "al("]},  # overlapping: which one a line reports
    {"forbidden_substrings": ["two\nlines", "\r"]},
    {"forbidden_substrings": ["ｅｖａｌ(", "eval("]},  # fullwidth: NFKC reads it as eval(
    {"forbidden_substrings": ["eval("], "forbidden_patterns": ["^import ctypes", "e.a"]},
]
TEXTS = [
    "",
    "x = 1\n",
    "x = eval(y) + eval(z)\nexec(1)\n",
    "ｅｖａｌ(y)\n",
    "two\nlines\na\rb\n",
    "eval(\n" * (MAX_LISTED + 5),  # more hits than are listed
    "Eval( EVAL( evaluate\nimport ctypes\n",
]


@pytest.mark.parametrize("fields", JOBS)
@pytest.mark.parametrize("text", TEXTS)
def test_the_same_violations_as_the_compiled_alternation(fields: dict[str, object], text: str) -> None:
    new, old = _job(**fields)
    added = AddedText(text, (0,), (("a.py", 1),)) if text else AddedText()
    assert check_added_tokens(added, new) == check_added_tokens(added, old)


def _manifest(**fields: object) -> Manifest:
    data = {"job_id": "j", "allowed_paths": ["**"], "required_test": ["true"], **fields}
    return parse_manifest(json.dumps(data).encode(), "test")


def test_only_the_users_patterns_are_compiled() -> None:
    tokens = token_patterns(_manifest(forbidden_substrings=["eval("], forbidden_patterns=["e.a"]))
    assert [(label, type(p).__name__) for label, p in tokens] == [
        ("substring", "Substrings"),
        ("pattern 'e.a'", "Pattern"),
    ]
    assert token_patterns(_manifest()) == []


def test_an_empty_substring_is_left_to_the_alternation() -> None:
    """An empty string matches everywhere, with re's rules for empty matches: re itself answers it."""
    manifest = Manifest(**{**_manifest()._asdict(), "forbidden_substrings": ("", "ab")})
    [(label, pattern)] = token_patterns(manifest)
    assert label == "substring" and isinstance(pattern, re.Pattern)
    assert _matches(pattern, "xaby") == _matches(_alternation(["", "ab"]), "xaby")
