"""The streaming diff parser gives exactly what parsing the whole output at once gives,
wherever git's output happens to be cut: between sections, inside one, inside a UTF-8
character, or between the two sections of a type change."""

from __future__ import annotations

import os
import subprocess

import pytest

from scorer.errors import GitError
from scorer.inspection import gitparse
from scorer.inspection.git import DIFF_ARGS, PINNED_ARGS
from tests.testing.repo import GitRepo


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
    return subprocess.run(
        ["git", *PINNED_ARGS, "diff", "--cached", *DIFF_ARGS], cwd=committed.root, capture_output=True, check=True
    ).stdout


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


def _without_section(diff: bytes, header: bytes) -> bytes:
    start = diff.index(b"\0diff --git ") + 1  # the patch starts after the raw records' NUL
    at = diff.index(header, start)
    end = diff.find(b"\ndiff --git ", at)
    return diff[:at] + (diff[end + 1 :] if end >= 0 else b"")


@pytest.mark.parametrize("size", [1, 100_000])
@pytest.mark.parametrize(
    "header",
    [b'diff --git "a/allowed/a\\nnewline.py"', b"diff --git a/allowed/kind.py", b"diff --git a/allowed/moved.py"],
    ids=["added", "typechange", "renamed"],
)
def test_a_patch_missing_sections_fails_closed(diff_bytes, monkeypatch, header, size):
    monkeypatch.setattr(gitparse, "_BATCH", 1)
    cut = _without_section(diff_bytes, header)
    with pytest.raises(GitError):
        list(gitparse.stream_diff([cut[i : i + size] for i in range(0, len(cut), size)]))


@pytest.mark.parametrize("size", [1, 100_000])
@pytest.mark.parametrize("path", ["allowed/naïve café.py", "other/bin.dat"])
def test_a_modification_without_a_section_is_matched_by_its_absence(diff_bytes, monkeypatch, path, size):
    """git lists a change but writes no section when both sides read the same (a working-tree file that
    is not the blob its index entry claims): the others keep their own sections, and it is named."""
    monkeypatch.setattr(gitparse, "_BATCH", 1)
    cut = _without_section(diff_bytes, b"diff --git a/" + path.encode())
    parts = list(gitparse.stream_diff([cut[i : i + size] for i in range(0, len(cut), size)]))
    missing = [p for part in parts for p in gitparse.sectionless(part)]
    assert missing == [path]
    whole = _summary([gitparse.parse_diff(diff_bytes)])[0]
    kept = [c for c in _summary(parts)[0] if c.path not in missing]
    assert kept == [c for c in whole if c.path not in missing]


def test_one_huge_section_is_searched_once_not_once_per_chunk(committed: GitRepo, monkeypatch):
    """Counted, not timed: a section that is still being written is not searched again from its start
    with every chunk that arrives (8 MB in 64 KB chunks was 128 scans of up to 8 MB)."""
    committed.write("allowed/big.py", "x = 1\n" * 1_400_000)
    committed.git("add", "-A")
    diff = subprocess.run(
        ["git", *PINNED_ARGS, "diff", "--cached", *DIFF_ARGS], cwd=committed.root, capture_output=True, check=True
    ).stdout
    searched = [0]
    real = gitparse._finds

    def counting(data, needle, start):
        searched[0] += len(data) - start
        return real(data, needle, start)

    monkeypatch.setattr(gitparse, "_finds", counting)
    chunks = [diff[i : i + 65536] for i in range(0, len(diff), 65536)]
    parts = list(gitparse.stream_diff(chunks))
    assert sum(len(p.entries) for p in parts) == 1
    assert searched[0] <= len(diff) + 12 * len(chunks)


def test_ls_files_listing_keeps_every_entry_that_is_not_plain():
    out = b"H a\0? b c\0S d\0H e\0h f\0M g\0? H-named\0"
    assert gitparse.parse_ls_files_v(out) == (["b c", "H-named"], [("S", "d"), ("h", "f"), ("M", "g")])
    assert gitparse.parse_ls_files_v(b"? first\0H x\0") == (["first"], [])
    assert gitparse.parse_ls_files_v(b"") == ([], [])
