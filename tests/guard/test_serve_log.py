"""The sidecar's decision log: its backlog written with one journal append, no row lost or doubled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scorer import decision_log
from scorer.decision_log import read, record_guards


def _row(job: str) -> dict[str, object]:
    return {
        "job_id": job,
        "mode": "guard",
        "manifest_sha256": "0" * 64,
        "verdict": "allow",
        "decision": "allow",
        "exit_code": 0,
        "shadow": 0,
        "violations": [],
        "duration_s": 0.001,
        "version": "0",
        "agent": "claude",
        "event": "PreToolUse",
        "tool": "Write",
        "paths": ["a.py"],
        "reason": "",
        "session": "s",
        "turn": "t",
    }


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "log" / "decisions.sqlite3"


def test_a_backlog_is_one_journal_write_and_every_row_is_read(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real, writes = os.write, list[int]()

    def counting(fd: int, data: bytes) -> int:
        writes.append(len(data))
        return real(fd, data)

    monkeypatch.setattr(decision_log.journal.os, "write", counting)
    assert record_guards(db, [_row(f"job-{i}") for i in range(5)]) is None
    monkeypatch.undo()
    assert len(writes) == 1  # five rows, one append
    assert sorted(r["job_id"] for r in read(db)) == [f"job-{i}" for i in range(5)]


def test_a_batch_cut_short_keeps_every_row_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sneak: the batch's write lands half its rows, then each row is kept again on its own;
    the rows that did land must not be shown (or folded) twice."""
    real, first = os.write, list[int]()

    def half_then_whole(fd: int, data: bytes) -> int:
        if not first:
            first.append(1)
            return real(fd, data[: len(data) // 2])  # the disk filled in the middle of the batch
        return real(fd, data)

    monkeypatch.setattr(decision_log.journal.os, "write", half_then_whole)
    assert record_guards(db, [_row(f"job-{i}") for i in range(4)]) is None
    monkeypatch.undo()
    assert sorted(r["job_id"] for r in read(db)) == [f"job-{i}" for i in range(4)]
    decision_log.fold(db)
    assert sorted(r["job_id"] for r in read(db)) == [f"job-{i}" for i in range(4)]


def test_a_journal_that_refuses_the_batch_puts_the_rows_in_the_database(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(decision_log.journal.os, "write", full)
    assert record_guards(db, [_row("a"), _row("b")]) is None
    monkeypatch.undo()
    assert sorted(r["job_id"] for r in read(db)) == ["a", "b"]


def test_a_row_that_cannot_be_encoded_is_a_warning_never_an_exception(db: Path) -> None:
    warning = record_guards(db, [_row("a"), {"job_id": object()}])
    assert warning and "decision log not written" in warning
