"""A literal allowed_paths entry grants the file it names, and nothing beneath a directory of that
name (issue 21: "a literal entry grants a directory").

In a root .gitignore, `/src/pricing.py` also matches a *directory* of that name and so everything
under it. As a grant that is a door: the job deletes the file, makes the directory and writes
what it likes inside. allowed_paths therefore departs from gitignore for literal entries (no glob
character, no trailing slash) only; `dir/` and globs keep gitignore's meaning, and forbidden,
sensitive and protected entries keep covering a directory of their name (they only ever refuse
more). docs/manifest.md says so.
"""

from __future__ import annotations

import pytest

from scorer.manifest.globs import ForbiddenMatcher, PathMatcher, grant_matcher
from tests.testing.guard import Guarded, _payload, answer_action
from tests.testing.repo import GitRepo

GRANTS = [
    # (entry, path, granted)
    ("src/pricing.py", "src/pricing.py", True),
    ("src/pricing.py", "src/pricing.py/evil.py", False),
    ("src/pricing.py", "src/pricing.py/deep/er/evil.py", False),
    ("setup.py", "setup.py/x", False),
    ("a/b", "a/b/c.txt", False),
    ("café", "café/ñ.py", False),
    ("docs", "docs/index.md", False),  # a directory is granted as `docs/` or `docs/**`
    # the legitimate neighbours: directories and globs still grant what is beneath them
    ("docs/", "docs/index.md", True),
    ("docs/", "docs/a/b.md", True),
    ("docs/**", "docs/a/b.md", True),
    ("src/*", "src/a/b.py", True),  # a glob matching a directory covers it, as in .gitignore
    ("*.py", "dir.py/x.txt", True),
    ("src/pricing.py", "src/pricing.pyc", False),
    ("src/pricing.py", "src/pricing", False),
]


@pytest.mark.parametrize(("entry", "path", "granted"), GRANTS)
def test_a_literal_grant_is_the_file_only(entry: str, path: str, granted: bool) -> None:
    assert grant_matcher([entry])(path) is granted


def test_refusing_entries_still_cover_a_directory_of_their_name() -> None:
    assert PathMatcher(["secrets"])("secrets/key.txt") is True
    assert ForbiddenMatcher(["secrets"])("secrets/key.txt") is True
    assert ForbiddenMatcher(["config/prod.yml"])("config/prod.yml/x") is True


@pytest.fixture
def pricing(repo: GitRepo) -> GitRepo:
    repo.write("src/pricing.py", "price = 1\n")
    repo.write("src/other.py", "x = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/pricing.py"])
    return repo


def test_the_file_named_may_change(pricing: GitRepo) -> None:
    pricing.write("src/pricing.py", "price = 2\n")
    out = pricing.score()
    assert out.exit_code == 0 and out.codes == set()


@pytest.mark.parametrize(
    "inside", ["src/pricing.py/evil.py", "src/pricing.py/sub/evil.py", "src/pricing.py/.github/workflows/x.yml"]
)
def test_a_directory_where_the_file_was_is_not_granted(pricing: GitRepo, inside: str) -> None:
    pricing.remove("src/pricing.py")
    pricing.write(inside, "import os\n")
    out = pricing.score()
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL"
    assert inside in out.paths("unlisted-path")


def test_committed_on_the_branch_too(pricing: GitRepo) -> None:
    pricing.git("checkout", "-q", "-b", "agent-x")
    pricing.remove("src/pricing.py")
    pricing.write("src/pricing.py/evil.py", "import os\n")
    pricing.commit("a directory in place of the file")
    out = pricing.score("--base", "main")
    assert out.exit_code == 1 and "src/pricing.py/evil.py" in out.paths("unlisted-path")


def test_a_literal_for_a_file_not_yet_there(repo: GitRepo) -> None:
    repo.write("README.txt", "hi\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/new.py"])
    repo.write("src/new.py/evil.py", "x = 1\n")
    out = repo.score()
    assert out.exit_code == 1 and "src/new.py/evil.py" in out.paths("unlisted-path")


def test_the_guard_denies_a_write_beneath_a_literal_entry(committed: GitRepo) -> None:
    committed.manifest(allowed_paths=["allowed/a.py"])
    g = Guarded(committed)
    beneath = _payload(g, "Write", file_path=f"{committed.root}/allowed/a.py/x.py", content="x\n")
    assert answer_action("claude", *g.send(beneath)[:2]) == "deny"
    named = _payload(g, "Write", file_path=f"{committed.root}/allowed/a.py", content="x\n")
    assert answer_action("claude", *g.send(named)[:2]) == "allow"
