"""scorer/checks/sensitive.py reads its name tokens and its file-name globs with str tests (issue 29:
a Write compiles no pattern and loads neither fnmatch nor re there), held side by side to what they
replace: `re.split(r"[-_.\\s]+|(?<=[a-z0-9])(?=[A-Z])")` and `fnmatch.fnmatchcase`, on seeded tables
and on every glob of the built-in table."""

from __future__ import annotations

import fnmatch
import random
import re

import pytest

from scorer.checks.sensitive import _index, _split_tokens, glob_matches

OLD_SPLIT = re.compile(r"[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])")  # sensitive._TOKEN_SPLIT at f7ffbb1


def _old_tokens(stem: str) -> list[str]:
    return [t for t in OLD_SPLIT.split(stem) if t]


STEMS = [
    "",
    "getAuthToken",
    "OAuth2Client",
    "auth0_widget",
    "HTTPServer",  # capitals in a run: no boundary between them
    "v2Payments",  # a digit before a capital
    "a-B_c.D e\tF\nG",
    "--__..",
    "ÉcoleAuth",  # non-ASCII letters are not [a-z] or [A-Z]
    "éAuth",
    "auth\u00a0billing\u2003x\u3000y",  # Unicode whitespace: re's \s is str.isspace
    "a\x1cb\x1fc\x85d",  # separators str.isspace counts too
    "ǅx",  # a title-case letter
    "x\u0130y",  # İ: upper-case, not ASCII
]


@pytest.mark.parametrize("stem", STEMS)
def test_name_tokens_split_as_the_pattern_did(stem: str) -> None:
    assert _split_tokens(stem) == _old_tokens(stem)


def test_name_tokens_split_as_the_pattern_did_on_a_seeded_table() -> None:
    rng = random.Random(37)
    alphabet = "aZz09-_. \t\n\u00a0\u2028éÉİ\x1cA"
    for _ in range(20_000):
        stem = "".join(rng.choices(alphabet, k=rng.randint(0, 14)))
        assert _split_tokens(stem) == _old_tokens(stem), repr(stem)


GLOBS = ["*", "**", "a*", "*a", "a*b", "*a*", "a*b*c", "*.tf", "*.tf.json", "docker-compose*.yml"]
GLOBS += ["ab*ab", "a**b", "", "abc", "a?c", "[ab]*", "*[!x]", "\\*"]
NAMES = ["", "a", "b", "ab", "aab", "abab", "abcab", "x.tf", ".tf", "a.tf.json", "x.tf.jso", "axbxc"]
NAMES += ["docker-compose.yml", "docker-compose.dev.yml", "docker-compose", "a\nb", "abc", "acb", "*", "\\x"]


@pytest.mark.parametrize("glob", GLOBS)
def test_a_glob_matches_as_fnmatchcase(glob: str) -> None:
    assert [n for n in NAMES if glob_matches(n, glob)] == [n for n in NAMES if fnmatch.fnmatchcase(n, glob)]


def test_a_glob_matches_as_fnmatchcase_on_a_seeded_table() -> None:
    rng = random.Random(29)
    for _ in range(20_000):
        glob = "".join(rng.choices("ab*.\n", k=rng.randint(0, 6)))
        name = "".join(rng.choices("ab.\n", k=rng.randint(0, 8)))
        assert glob_matches(name, glob) == fnmatch.fnmatchcase(name, glob), (glob, name)


def _near(rng: random.Random, glob: str) -> list[str]:
    """Names that match `glob` (each `*` filled in) and near misses (one character dropped or added)."""
    filled = "".join(rng.choice(["", "x", ".", "a.b", "tf", "-"]) if c == "*" else c for c in glob)
    dropped = [filled[:i] + filled[i + 1 :] for i in range(len(filled))]
    return [filled, filled + "x", "x" + filled, *dropped, filled.upper()]


def test_the_tables_globs_name_the_rules_fnmatch_named() -> None:
    """`_Index.globs` (a prefix/suffix prefilter, then the str globs) answers what the compiled
    alternation of every glob and fnmatchcase on each answered at f7ffbb1."""
    index, rng = _index(), random.Random(3)
    old_any = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p, _ in index.name_globs))
    names = [n for glob, _ in index.name_globs for _ in range(20) for n in _near(rng, glob)]
    names += ["makefile", "job_manifest.json", "", ".env", "a.sql.bak", "main.tf\n"]
    assert len(index.name_globs) >= 14  # the premise: the table has file-name globs to test
    for name in names:
        old = {i for p, i in index.name_globs if fnmatch.fnmatchcase(name, p)} if old_any.match(name) else set()
        assert index.globs(name) == old, name
