"""The streaming diff parser gives exactly what parsing the whole output at once gives,
wherever git's output happens to be cut: between sections, inside one, inside a UTF-8
character, or between the two sections of a type change."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import GitRepo

from scorer.errors import GitError
from scorer.inspection import gitparse
from scorer.inspection.git import DIFF_ARGS


@pytest.fixture
def diff_bytes(committed: GitRepo) -> bytes:
    committed.write("allowed/kind.py", "file\n")
    committed.write("allowed/naïve café.py", "".join(f"ligne {i} é\n" for i in range(40)))
    committed.write("other/bin.dat", b"\x00\x01\x02")
    committed.write("allowed/moved.py", "".join(f"line {i}\n" for i in range(30)))
    committed.commit("more")
    os.remove(committed.root / "allowed/kind.py")
    os.symlink("a.py", committed.root / "allowed/kind.py")  # a type change: two patch sections
    committed.write("allowed/naïve café.py", "".join(f"ligne {i} è\n" for i in range(40)))
    committed.write("other/bin.dat", b"\x00\x01\x03")
    committed.git("mv", "allowed/moved.py", "allowed/renamed.py")
    committed.write("allowed/a\nnewline.py", "x\n")
    committed.git("add", "-A")
    return subprocess.run(["git", "diff", "--cached", *DIFF_ARGS], cwd=committed.root, capture_output=True,
                          check=True).stdout


def _summary(parts):
    pieces = gitparse.Pieces()
    changes = [c for part in parts for c in gitparse.to_changes(part, pieces)]
    return changes, pieces.build()


@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
def test_streaming_matches_whole_parse(diff_bytes, monkeypatch, size):
    whole = _summary([gitparse.parse_diff(diff_bytes)])
    monkeypatch.setattr(gitparse, "_BATCH", 1)  # cut a batch as soon as a section is complete
    chunks = [diff_bytes[i : i + size] for i in range(0, len(diff_bytes), size)]
    parts = list(gitparse.stream_diff(chunks))
    assert _summary(parts) == whole
    assert {c.status for c in whole[0]} >= {"typechange", "renamed", "added", "modified"}
    if size < 100:
        assert len(parts) > 2  # really parsed in several runs of sections


def test_no_output_means_no_changes():
    assert _summary(gitparse.stream_diff([])) == _summary([gitparse.parse_diff(b"")])
    assert _summary(gitparse.stream_diff([]))[0] == []


def test_a_patch_missing_sections_fails_closed(diff_bytes, monkeypatch):
    cut = diff_bytes.rindex(b"\ndiff --git ") + 1
    monkeypatch.setattr(gitparse, "_BATCH", 1)
    with pytest.raises(GitError):
        list(gitparse.stream_diff([diff_bytes[:cut]]))
