"""Each file the checks read, read once per scoring (checks/reads.py), and a blob that is not
Python compiled once however many modules the scoring holds (pyast.parse)."""

from __future__ import annotations

import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from scorer.checks.reads import ReadOnce
from scorer.errors import UnreadableFile
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo

CHEAT = 'import sys\n\n\ndef f(x):\n    if "pytest" in sys.modules:\n        return 0\n    return x\n'


class _Counted:
    """A `Trees` that counts what it is asked and answers from a table."""

    def __init__(self, files: Mapping[str, bytes | None]) -> None:
        self.files = files
        self.asked: Counter[tuple[str, str | None, str]] = Counter()

    def read_file(self, rev: str | None, path: str) -> bytes | None:
        self.asked["one", rev, path] += 1
        if path == "unreadable":
            raise UnreadableFile("cannot read unreadable")
        return self.files.get(path)

    def read_files(self, rev: str | None, paths: Sequence[str]) -> Mapping[str, bytes | None]:
        self.asked.update(("many", rev, p) for p in paths)
        return {p: None if p == "link" else self.files.get(p) for p in paths}

    def names_under(self, rev: str, directory: str) -> list[str]:
        self.asked["names", rev, directory] += 1
        return [p for p in self.files if p.startswith(directory)]

    def files_at(self, rev: str) -> list[str]:
        self.asked["files", rev, ""] += 1
        return list(self.files)


def test_read_once_asks_each_file_once_and_answers_as_asked():
    trees = _Counted({"a.py": b"a", "b.py": b"b", "link": b"target"})
    once = ReadOnce(trees)
    assert once.read_files(None, ["a.py", "gone.py"]) == {"a.py": b"a", "gone.py": None}
    assert once.read_files(None, ["b.py", "a.py", "b.py"]) == {"b.py": b"b", "a.py": b"a"}
    assert once.read_files("abc", ["a.py"]) == {"a.py": b"a"}  # another rev is another file
    assert once.names_under("abc", "a") == once.names_under("abc", "a") == ["a.py"]
    assert once.files_at("abc") == once.files_at("abc")
    assert set(trees.asked.values()) == {1}, trees.asked
    assert len(trees.asked) == 6


def test_read_once_keeps_the_two_readers_apart_and_never_caches_an_error():
    """read_file and read_files differ on a symlink at a commit and on an unreadable file: one
    never answers for the other, and an error is asked again, never remembered as an answer."""
    trees = _Counted({"link": b"target"})
    once = ReadOnce(trees)
    assert once.read_files("abc", ["link"]) == {"link": None}
    assert once.read_file("abc", "link") == b"target"
    for _ in range(2):
        with pytest.raises(UnreadableFile):
            once.read_file(None, "unreadable")
    assert trees.asked["one", None, "unreadable"] == 2


def test_a_scoring_reads_each_changed_file_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch):
    """Three checks read the new source of each changed module (cheats, runner_reach, protected)
    and two read the base's: each path is asked of the repository once per side; the verdict is
    the one each check finds on its own reads."""
    for i in range(4):
        repo.write(f"pkg/mod{i}.py", f"def f(x):\n    return x + {i}\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["pkg/**"])
    for i in range(4):
        repo.write(f"pkg/mod{i}.py", CHEAT.replace("return x", f"return x + {i}"))
    asked: Counter[tuple[str | None, str]] = Counter()
    real = Repository.read_files

    def counting(self: Repository, rev: str | None, paths: Sequence[str]) -> Any:
        asked.update((rev, p) for p in paths)
        return real(self, rev, paths)

    monkeypatch.setattr(Repository, "read_files", counting)
    out = repo.score()
    assert out.where("test-runner-detected") == {(f"pkg/mod{i}.py", 5) for i in range(4)}, out.text
    new = {p for rev, p in asked if rev is None}
    assert {f"pkg/mod{i}.py" for i in range(4)} <= new
    assert set(asked.values()) == {1}, asked


def test_a_blob_that_is_not_python_is_compiled_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch):
    """More such modules than the tree cache keeps: each is compiled once for every check."""
    import ast

    from scorer.checks import pyast

    for i in range(5):
        repo.write(f"pkg/mod{i}.py", "x = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["pkg/**"])
    for i in range(5):
        repo.write(f"pkg/mod{i}.py", f"x = 1\nnot python {i} (\n")
    parsed: Counter[str] = Counter()
    real = ast.parse

    def counting(source: str, *args: Any, **kwargs: Any) -> ast.AST:
        parsed[source] += 1
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pyast, "_MAX_TREES", 2)
    monkeypatch.setattr(pyast.ast, "parse", counting)
    assert repo.score().codes == set()
    broken = {s: n for s, n in parsed.items() if "not python" in s}
    assert len(broken) == 5 and set(broken.values()) == {1}, parsed


def test_the_blobs_that_are_not_python_are_kept_within_a_bound(monkeypatch: pytest.MonkeyPatch):
    """Outside a scoring (the checks after a test run, in a server that scores again and again) the
    set of blobs that are not Python is bounded; what it forgot is compiled again, as before."""
    from scorer.checks import pyast

    monkeypatch.setattr(pyast, "_MAX_NOT_PYTHON", 3)
    monkeypatch.setattr(pyast, "_NOT_PYTHON", set())
    for i in range(10):
        assert pyast.parse(f"not python {i} (\n".encode()) is None
        assert len(pyast._NOT_PYTHON) <= 3
    assert pyast.parse(b"not python 9 (\n") is None


def test_a_blob_id_is_the_one_git_computes_and_is_hashed_once_per_object(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
):
    """Remembered by the object: the same bytes object is hashed once, an equal one or another
    content gets its own hash, and every answer is git's own `hash-object`."""
    import hashlib

    from scorer.checks import pyast

    hashed: list[bytes] = []
    real = hashlib.sha1

    def counting(data: bytes, **kwargs: Any) -> Any:
        hashed.append(data)
        return real(data, **kwargs)

    monkeypatch.setattr(pyast.hashlib, "sha1", counting)
    with pyast.one_scoring():
        one, same, other = b"x = 1\n", bytes(bytearray(b"x = 1\n")), b"x = 2\n"
        for data in (one, one, same, other):
            git = ["git", "hash-object", "--stdin", "--no-filters"]
            want = subprocess.run(git, input=data, capture_output=True, cwd=repo.root, check=True).stdout
            assert pyast.blob_id(data).hex() == want.decode().strip()
        assert {id(one), id(same), id(other)} <= set(pyast._IDS)
        assert len(hashed) == 3
    assert not pyast._IDS
