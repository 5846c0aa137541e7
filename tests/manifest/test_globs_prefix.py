"""The globs read without a regex (scorer/manifest/globs.py), side by side with the regex they stand in for.

`**` and `dir/**` match as a prefix (`everything_below`), and an entry without a class is not
compiled to be validated; here each is held to the translated regex, and the prefix matcher to
git itself (`git check-ignore --no-index`), on tables and on generated entries and paths.
"""

from __future__ import annotations

import random
import re
import subprocess
import warnings
from pathlib import Path

import pytest

from scorer.manifest import globs
from scorer.manifest.globs import PathMatcher, everything_below

PREFIXED = ["**", "src/**", "a/b/**", "a//**", ".x/**", "é/**", "a b/**", "a\nb/**", "#x/**", "-/**"]
NOT_PREFIXED = ["**/", "**/**", "/**", "*/**", "a*/**", "a?/**", "[a]/**", "a\\b/**", "a/**/", "a/**/b", "a/**x", "a"]
PATHS = ["", "a", "src", "src/", "src/x", "src/x/y", "srcx/y", "a/b", "a/b/", "a/b/c", "a//x", "a//", ".x/y", "x"]
PATHS += ["é/x", "\u00c3\u00a9/x", "a b/c", "a\nb/c", "a\0b/c", "#x/y", "-/y", "src/\n", "src\n/x"]


def by_regex(entry: str, path: str) -> bool:
    """What PathMatcher answered for a glob before: the covering regex of the translated entry."""
    form = globs._wildmatch_form(entry)
    regex = re.compile(globs._covering(*globs.translate(form)), re.S)
    return regex.fullmatch(globs._wildmatch_form(path)) is not None


@pytest.mark.parametrize("entry", PREFIXED)
def test_these_are_read_as_a_prefix(entry: str) -> None:
    assert everything_below(globs._wildmatch_form(entry)) is not None


@pytest.mark.parametrize("entry", NOT_PREFIXED)
def test_these_go_to_the_regex(entry: str) -> None:
    assert everything_below(globs._wildmatch_form(entry)) is None


@pytest.mark.parametrize("entry", PREFIXED)
@pytest.mark.parametrize("path", PATHS)
def test_a_prefix_matches_what_its_regex_matches(entry: str, path: str) -> None:
    assert PathMatcher([entry])(path) == by_regex(entry, path)


def _entry(rng: random.Random) -> str:
    names = ["a", "b", "é", ".", "", "x y", "\n", "-"]
    head = "/".join(rng.choice(names) for _ in range(rng.randrange(1, 4)))
    return rng.choice(["**", head + "/**", head + "/**/", head + "*/**", "**/" + head])


def _path(rng: random.Random) -> str:
    return "/".join(rng.choice(["a", "b", "é", ".", "", "x y", "\n", "-", "ab"]) for _ in range(rng.randrange(0, 5)))


def test_generated_entries_match_what_their_regex_matches() -> None:
    rng = random.Random(29)
    for _ in range(400):
        entry = _entry(rng)
        match = PathMatcher([entry])
        for path in (_path(rng) for _ in range(25)):
            assert match(path) == by_regex(entry, path), (entry, path)


def test_a_prefix_agrees_with_git(tmp_path: Path) -> None:
    entries = ["**", "src/**", "a/b/**"]
    paths = ["src/x.py", "src/deep/y.py", "srcx/y.py", "a/b/c", "a/bc/d", "top.py", "a/b.txt"]
    for n, entry in enumerate(entries):
        root = tmp_path / str(n)
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        (root / ".gitignore").write_text("/" + entry + "\n", encoding="utf-8")
        for path in paths:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text("x\n", encoding="utf-8")
        proc = subprocess.run(
            ["git", "-c", "core.quotePath=false", "check-ignore", "--no-index", "--stdin", "-z"],
            cwd=root,
            input="\0".join(paths).encode() + b"\0",
            capture_output=True,
            check=False,
        )
        assert proc.returncode in (0, 1), proc.stderr
        ignored = {p for p in proc.stdout.decode().split("\0") if p}
        assert {p for p in paths if PathMatcher([entry])(p)} == ignored, entry


def test_a_prefix_mixed_with_other_entries() -> None:
    match = PathMatcher(["src/**", "*.md", "setup.py"])
    assert [match(p) for p in ["src/a", "README.md", "setup.py", "lib/a.py", "src"]] == [True, True, True, False, False]


def test_an_entry_without_a_class_always_compiles() -> None:
    """compile_entry skips compiling entries without '['; every translation of one compiles, with
    warnings as errors (a FutureWarning is what a nested set would raise)."""
    rng = random.Random(29)
    alphabet = [*"*?/a.\\\n(){}|^$+-&~# \t]:!\0\x7fé", "**"]
    for _ in range(5000):
        entry = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            re.compile(globs.translate(globs._wildmatch_form(entry))[0], re.S)


def test_an_entry_with_a_class_is_still_compiled() -> None:
    with pytest.raises(globs.GlobError, match="not a valid glob"):
        globs.compile_entry("[z-a]")
