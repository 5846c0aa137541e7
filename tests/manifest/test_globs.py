"""Manifest globs mean what the same line, anchored with '/', means in a root .gitignore.

Every row is checked twice: against scorer.globs.PathMatcher and against git itself
(`git check-ignore --no-index`), so the table cannot drift from git's real behaviour.
"""

from __future__ import annotations

import random
import re
import subprocess
import warnings
from pathlib import Path

import pytest

from scorer.manifest.globs import (
    GlobError,
    PathMatcher,
    compile_entry,
    normalise_entry,
    normalise_path,
    root_only_warning,
)

CASES = [
    # (entry, path, matches)
    # literal paths are anchored at the root
    ("setup.py", "setup.py", True),
    ("setup.py", "evil/setup.py", False),
    ("setup.py", "setup.pyc", False),
    ("src/pricing.py", "src/pricing.py", True),
    ("src/pricing.py", "lib/src/pricing.py", False),
    ("README.md", "readme.md", False),  # case-sensitive, as git on Linux
    ("a", "ab", False),
    ("a/b", "a/bc", False),
    ("a/b", "a/b/c.txt", True),  # a literal directory covers its contents
    ("#notes.txt", "#notes.txt", True),  # anchored, so not a comment
    # '*' stays within one segment
    ("*.pem", "key.pem", True),
    ("*.pem", "certs/key.pem", False),
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/sub/a.py", False),
    ("a/*/c", "a/b/c", True),
    ("a/*/c", "a/b/x/c", False),
    ("*", "top.txt", True),
    ("*", "a/b.py", True),  # '/*' matches directory 'a', which covers a/b.py
    ("*.py", "dir.py/x.txt", True),  # a directory named like the glob covers its contents
    ("src/*", "src/a/b.py", True),  # directory match covers contents
    ("src/*", "src", False),
    # '**' spans directories
    ("**/*.pem", "key.pem", True),
    ("**/*.pem", "a/b/key.pem", True),
    ("**/*.pem", "a/b/key.pem.txt", False),
    ("**", "a/b/c.py", True),
    ("src/**", "src/a/b.py", True),
    ("src/**", "srcx/a.py", False),
    ("src/**/test.py", "src/test.py", True),
    ("src/**/test.py", "src/a/b/test.py", True),
    ("src/**/test.py", "lib/src/test.py", False),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/b", True),
    ("a/**", "a", False),
    ("**/**/c", "a/b/c", True),
    ("**/", "a/b", True),
    ("*/**", "a", False),
    ("**/secrets.*", "secrets.yaml", True),
    ("**/secrets.*", "config/secrets.yaml", True),
    ("**/secrets.*", "config/mysecrets.yaml", False),
    # '?' is exactly one character, never '/'
    ("?.py", "a.py", True),
    ("?.py", "ab.py", False),
    ("a?b", "a/b", False),
    # bracket classes
    ("[ab].py", "a.py", True),
    ("[ab].py", "c.py", False),
    ("[!a].py", "b.py", True),
    ("[!a].py", "a.py", False),
    ("[a-c]/x", "b/x", True),
    ("[^a].py", "b.py", True),
    ("[]a]", "]", True),  # a ']' first in a class is literal
    ("a[]]b", "a]b", True),
    ("[!]]x", "ax", True),
    ("[a-]", "-", True),
    ("[*]", "*", True),
    ("[?]x", "ax", False),
    ("x[!/]y", "x/y", False),  # no class matches '/'
    ("a[b/c]d", "a/d", False),  # not even a class that lists it
    ("a[b/c]d", "acd", True),
    ("[a&&b]", "&", True),  # '&' is an ordinary member (Python's re would warn of a set operation)
    ("[!-0]", "-", False),  # '-' first is itself
    ("[--0]", ",", False),
    ("[--0]", "x0", False),
    ("[--0]x", "0x", True),
    ("[a-c-e]", "-", True),  # after a range, '-' is itself
    ("[a-c-e]", "d", False),
    ("[]-a]", "^", True),  # ']' first, then a range from it
    ("[^]]", "a", True),
    ("a/**/**/b", "a/x/b", True),
    ("**/**", "a", True),
    ("a/**/**", "a/b", True),
    ("a/**/**", "a", False),
    ("**/a/**", "x/a/y", True),
    ("**/a/**", "x/a", False),
    ("*/", "a", False),
    ("a*/", "ab/c", True),
    ("a*/", "ab", False),
    ("*.[ch]", "x.c", True),
    ("*.[ch]", "x.h/y", True),
    ("[a-c]*", "b/x", True),
    # directory entries cover everything under them, and only directories
    ("build/", "build/out.o", True),
    ("build/", "build/deep/er/out.o", True),
    ("build/", "build", False),  # a file named build is not the directory build/
    ("build/", "src/build/out.o", False),
    ("**/build", "build", True),
    ("**/build", "src/build/out.o", True),
    ("**/build/", "src/build/out.o", True),
    ("*/", "a/b.txt", True),
    # dotfiles are not special
    (".env", ".env", True),
    (".env", "a/.env", False),
    ("**/.env", "a/.env", True),
    ("**/.env", ".env", True),
    ("**/.env", "a/.env.local", False),
    ("*", ".env", True),
    ("*.py", ".hidden.py", True),
    ("a/*", "a/.env", True),
    # spaces
    ("my file.txt", "my file.txt", True),
    ("my file.txt", "my_file.txt", False),
    ("dir with space/*", "dir with space/f.txt", True),
    ("*.txt", "has space.txt", True),
    # unicode names
    ("café/ñ.py", "café/ñ.py", True),
    ("café/*.py", "café/ñ.py", True),
    ("café", "café/ñ.py", True),
    ("cafe/ñ.py", "café/ñ.py", False),
    ("日本/語.txt", "日本/語.txt", True),
    ("日本/*", "日本/語.txt", True),
    ("**/語.txt", "日本/語.txt", True),
    ("*.txt", "日本/語.txt", False),
    # git's wildmatch works on bytes: '?' is one byte, and a class holds bytes
    ("caf?/ñ.py", "café/ñ.py", False),
    ("caf??/ñ.py", "café/ñ.py", True),
    ("caf[é]/ñ.py", "café/ñ.py", False),
    ("日本/?.txt", "日本/語.txt", False),
    ("日本/???.txt", "日本/語.txt", True),
    # a newline is an ordinary byte to git (Python's '$' and '.' treat it specially)
    ("src/*.py", "src/evil.py\n", False),
    ("*.pem", "key.pem\n", False),
    ("src/*.py", "src/a\nb.py", True),
    ("**/.env", "a\nb/.env", True),
    ("a/**/z", "a/b\nc/z", True),
    ("?", "\n", True),
    ("*.py", "dir.py\n/x.txt", False),
]

IDS = [f"{entry}|{path}".replace("\n", "<NL>") for entry, path, _ in CASES]


@pytest.mark.parametrize(("entry", "path", "expected"), CASES, ids=IDS)
def test_path_matcher(entry: str, path: str, expected: bool) -> None:
    assert normalise_entry(entry) == entry  # the table holds entries as the loader leaves them
    assert PathMatcher([entry])(path) is expected


@pytest.mark.parametrize(("entry", "path", "expected"), CASES, ids=IDS)
def test_git_agrees(tmp_path: Path, entry: str, path: str, expected: bool) -> None:
    """The same row, asked of git: a root .gitignore holding '/' + entry."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_bytes(("/" + entry + "\n").encode("utf-8"))
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x\n", encoding="utf-8")
    proc = subprocess.run(["git", "check-ignore", "--no-index", "-q", "--", path], cwd=tmp_path)
    assert proc.returncode in (0, 1)
    assert (proc.returncode == 0) is expected


def test_matcher_with_several_entries_mixes_literals_and_globs() -> None:
    match = PathMatcher(["src/pricing.py", "tests/", "**/*.pem", "docs/*.md"])
    assert [match(p) for p in ("src/pricing.py", "tests/a/b.py", "x/y.pem", "docs/a.md")] == [True] * 4
    assert [match(p) for p in ("src/other.py", "src/tests/a.py", "x/y.pem.bak", "docs/a/b.md")] == [False] * 4


def test_empty_matcher_matches_nothing() -> None:
    assert not PathMatcher([])("anything")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("./a", "a"),
        ("a//b", "a/b"),
        ("a\\b", "a/b"),
        ("./src/./x.py", "src/x.py"),
        ("build/", "build/"),
        ("build//", "build/"),
        ("**/*.pem", "**/*.pem"),
    ],
)
def test_normalise_entry(raw: str, clean: str) -> None:
    assert normalise_entry(raw) == clean


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/etc/passwd", "absolute"),
        ("\\abs", "absolute"),
        ("C:\\x", "absolute"),
        ("c:/x", "absolute"),
        ("!keep.py", "negation"),
        ("../x", "'..'"),
        ("a/../../x", "'..'"),
        ("a\\..\\b", "'..'"),
        ("./", "no path"),
        ("a\nb", "newline"),  # no .gitignore line can hold it
        ("**/x\0", "NUL"),
        ("secret.txt ", "ends with a space"),  # .gitignore drops it, a set lookup would not
    ],
)
def test_normalise_entry_refuses(raw: str, why: str) -> None:
    with pytest.raises(GlobError, match=why):
        normalise_entry(raw)


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        # git never matches a pattern with an unclosed '['; pathspec would read it literally
        ("[", "without a closing"),
        ("a[", "without a closing"),
        ("[]", "without a closing"),
        ("a[b/c", "without a closing"),
        # '**' inside a segment: git matches 'a**/b' against 'ax/y/b', pathspec does not
        ("a**/b", "not a whole segment"),
        ("a/**b", "not a whole segment"),
        ("**a", "not a whole segment"),
        ("a/***/b", "not a whole segment"),
        ("***", "not a whole segment"),
        # git knows [[:digit:]]; pathspec reads it as a nested set
        ("[[:digit:]].txt", "POSIX character class"),
        ("[z-a]", "not a valid glob"),
    ],
)
def test_compile_entry_refuses_what_git_reads_differently(entry: str, why: str) -> None:
    with pytest.raises(GlobError, match=re.escape(why)):
        compile_entry(entry)


def test_compile_entry_does_not_depend_on_warning_filters() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(GlobError, match="POSIX"):
            compile_entry("[[:alpha:]]")
    for action in ("ignore", "error"):
        with warnings.catch_warnings():
            warnings.simplefilter(action)
            compile_entry("[a&&b]")  # a class of 'a', '&', 'b' to git; re would warn of a set operation
    assert PathMatcher(["[a&&b]"])("&")


def test_normalise_path() -> None:
    assert normalise_path("a\\b") == "a/b"
    assert normalise_path("./a//b") == "a/b"


def test_compile_entry_accepts_what_matches() -> None:
    for entry, _, _ in CASES:
        compile_entry(entry)


@pytest.mark.parametrize(
    ("entry", "warns"),
    [
        ("*.pem", True),
        ("secrets.*", True),
        (".env", True),
        ("**/*.pem", False),
        ("src/legacy_pricing.py", False),
        ("certs/*.pem", False),
        ("build/", True),
    ],
)
def test_root_only_warning(entry: str, warns: bool) -> None:
    message = root_only_warning(entry)
    assert (message is not None) is warns
    if warns:
        assert f"'**/{entry}'" in str(message)


PIECES = ["a", "b", "ab", "*", "?", "**", "[ab]", "[!a]", "[a-c]", "*.py", "a*", ".x", "é", "[]a]", "[a-]", "?b"]
PIECES += ["*a*b*", "*[ab]*?*", "**", "**"]  # the segment-by-segment matcher: 3+ stars, 2+ '**'
NAMES = ["a", "b", "ab", "c", "x.py", "a.py", ".x", "é", "aa", "-", "]", "bb", "xaybz", "abab"]


def _generated_entries(rng: random.Random, count: int) -> list[str]:
    found: list[str] = []
    while len(found) < count:
        entry = "/".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4))) + rng.choice(["", "", "/"])
        try:
            compile_entry(normalise_entry(entry))
        except GlobError:
            continue
        found.append(normalise_entry(entry))
    return found


def _generated_paths(rng: random.Random, count: int) -> list[str]:
    """Paths none of which is a directory of another (each must exist as a file for git)."""
    paths: list[str] = []
    while len(paths) < count:
        path = "/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 4)))
        if all(not p.startswith(path + "/") and not path.startswith(p + "/") and p != path for p in paths):
            paths.append(path)
    return paths


def test_generated_entries_agree_with_git(tmp_path: Path) -> None:
    """120 generated entries, each against 30 generated paths, asked of git and of PathMatcher
    (both its matchers: one regex, and segment by segment for '**'-rich and star-rich globs)."""
    rng = random.Random(21)
    tried = 0
    for n, entry in enumerate(_generated_entries(rng, 120)):
        root = tmp_path / str(n)
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        (root / ".gitignore").write_bytes(("/" + entry + "\n").encode("utf-8"))
        paths = _generated_paths(rng, 30)
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
        match = PathMatcher([entry])
        assert {p for p in paths if match(p)} == ignored, entry
        tried += len(paths)
    assert tried == 3600


@pytest.mark.parametrize(
    ("entry", "path"),
    [
        ("**/a/**/b", "/".join(["a"] * 2000) + "/y"),  # minutes as a regex: every split of 2,000 directories
        ("**/a/**/b/**/c/x", "/".join(["a"] * 300) + "/y"),
        ("**/*a*a*a*a*b", "/".join(["a" * 250] * 10)),  # every split of a 250-byte name among five stars
    ],
)
def test_a_path_the_job_chooses_cannot_make_matching_explode(entry: str, path: str) -> None:
    """The guard must answer before the agent's hook timeout, or the write runs unchecked. Counted in
    steps, not seconds: the segment matcher's work is bounded by the path's length."""
    from scorer.manifest import globs

    assert globs._deep(entry)
    assert PathMatcher([entry])(path) is False
