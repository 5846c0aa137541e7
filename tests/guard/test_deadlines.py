"""The guard answers in time, always: held locks, FIFOs and a locked decision log end in a prompt answer.

An agent runs the tool when its hook times out, so each of these used to be a way past the
guard: the job holds the turn-state lock under .git/ itself, names a FIFO as its transcript,
or holds the decision log's database lock. Each test uses the real thing (a lock held by
another process, a FIFO made with mkfifo, an sqlite lock held by another connection).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer import decision_journal
from tests.testing.guard import Guarded, _payload, _transcript, observed, run_guard, transcript_dir
from tests.testing.repo import GitRepo

HOLD_FLOCK = (
    "import fcntl, sys, time; fh = open(sys.argv[1], 'a+b'); fcntl.flock(fh, fcntl.LOCK_EX); "
    "print('held', flush=True); time.sleep(600)"
)
HOLD_SQLITE = (
    "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "c.execute('CREATE TABLE IF NOT EXISTS t (x)'); c.execute('BEGIN EXCLUSIVE'); "
    "print('held', flush=True); time.sleep(600)"
)


@pytest.fixture
def sensitive(committed: GitRepo) -> Guarded:
    committed.manifest(allowed_paths=["allowed/**", "Makefile"])
    return Guarded(committed)


@pytest.fixture
def holder() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes that hold a lock; each is ended (by its own pid) after the test."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _hold(holder: list[subprocess.Popen[str]], code: str, path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    holder.append(proc)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"


def _reason(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"])


def test_a_held_turn_state_lock_is_a_prompt_deny(sensitive: Guarded, holder, monkeypatch):
    from scorer.guard import safeio

    monkeypatch.setattr(safeio, "LOCK_DEADLINE_S", 0.3)
    lock = sensitive.repo.root / ".git" / "score-diff" / "guard-turns.json.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    _hold(holder, HOLD_FLOCK, lock)
    write = _payload(sensitive, "Write", file_path=f"{sensitive.repo.root}/Makefile", content="all:\n")
    code, out, err = sensitive.send(write)
    assert code == 2 and "is held by another process and was not released within 0.3 s" in _reason(out)
    assert sensitive.last()["violations"][0]["code"] == "guard-timeout"
    prompt = {"session_id": "s1", "cwd": str(sensitive.repo.root), "hook_event_name": "UserPromptSubmit"}
    code, out, _ = sensitive.send(prompt)  # a new turn that cannot be recorded would keep the old grants
    assert code == 2 and "guard-timeout" not in out and "held by another process" in _reason(out)


def test_the_lock_free_neighbour_is_allowed(sensitive: Guarded):
    write = _payload(sensitive, "Write", file_path=f"{sensitive.repo.root}/allowed/a.py", content="x\n")
    assert sensitive.send(write) == (0, "", "")


def test_a_fifo_as_the_turn_lock_or_state_never_blocks(sensitive: Guarded):
    state = sensitive.repo.root / ".git" / "score-diff"
    state.mkdir(parents=True, exist_ok=True)
    os.mkfifo(state / "guard-turns.json")
    write = _payload(sensitive, "Write", file_path=f"{sensitive.repo.root}/Makefile", content="all:\n")
    code, out, _ = sensitive.send(write)
    assert code == 2 and "Makefile is a sensitive path" in out  # the FIFO is no state: it grants nothing
    (state / "guard-turns.json.lock").unlink()
    os.mkfifo(state / "guard-turns.json.lock")
    code, out, _ = sensitive.send(write)
    assert code == 2 and "is not a regular file" in _reason(out)


@pytest.mark.parametrize("where", ["agent-dir", "elsewhere"])
def test_a_fifo_transcript_never_blocks_the_retry(sensitive: Guarded, where: str):
    home = transcript_dir("claude") if where == "agent-dir" else sensitive.repo.scratch
    fifo = home / "endless.jsonl"
    os.mkfifo(fifo)
    write = _payload(
        sensitive, "Write", transcript=str(fifo), file_path=f"{sensitive.repo.root}/Makefile", content="all:\n"
    )
    assert sensitive.send(write)[0] == 2  # the prompt
    code, out, _ = sensitive.send(write)  # the retry reads the transcript
    assert code == 2 and "your transcript could not be read" in _reason(out)
    assert sensitive.last()["violations"][0]["code"] == "bad-justification"


def test_a_transcript_outside_the_agents_own_directory_is_not_read(sensitive: Guarded):
    message = "JUSTIFICATION: allowed/a.py:1 the build needs it\nROLLBACK: git checkout -- Makefile"
    outside = _transcript(sensitive.repo.scratch / "t.jsonl", message)
    inside = _transcript(transcript_dir("claude") / "t.jsonl", message)
    for transcript, allowed in ((outside, False), (inside, True)):
        write = _payload(
            sensitive,
            "Write",
            prompt=f"p-{allowed}",
            transcript=transcript,
            file_path=f"{sensitive.repo.root}/Makefile",
            content="all:\n",
        )
        assert sensitive.send(write)[0] == 2
        assert (sensitive.send(write)[0] == 0) is allowed


def test_a_decision_log_locked_by_another_process_does_not_hold_the_answer(guarded_log: Guarded, holder):
    _hold(holder, HOLD_SQLITE, guarded_log.db)
    write = _payload(guarded_log, "Write", file_path=f"{guarded_log.repo.root}/other/b.py", content="x\n")
    code, out, err = guarded_log.send(write)
    assert code == 2 and "other/b.py is not in allowed_paths" in _reason(out)
    # The hook only appends to the journal (docs/decision-log.md): the lock is not on its path, and
    # the row waits there for the next fold instead of being dropped.
    assert "decision log not written" not in err
    assert observed("claude", *guarded_log.send(_payload(guarded_log, "Read", file_path="/x"))) == "allow"
    assert [r["decision"] for r in decision_journal.rows(decision_journal.journal_path(guarded_log.db))] == [
        "deny",
        "allow",
    ]


@pytest.fixture
def guarded_log(committed: GitRepo) -> Guarded:
    committed.manifest(allowed_paths=["allowed/**"])
    return Guarded(committed)


def test_a_fifo_as_the_decision_log_does_not_hang_the_answer(guarded_log: Guarded):
    os.mkfifo(guarded_log.db)
    code, out, _ = guarded_log.send(_payload(guarded_log, "Read", file_path="/x"))
    assert (code, out) == (0, "")  # the row went to the journal beside it; the fold will say why it waits
    assert [r["decision"] for r in decision_journal.rows(decision_journal.journal_path(guarded_log.db))] == ["allow"]


def test_a_manifest_that_never_ends_is_denied_at_the_deadline(committed: GitRepo, monkeypatch):
    from scorer.guard import run

    monkeypatch.setattr(run, "DEADLINE_S", 0.5)
    fifo = committed.scratch / "manifest.fifo"
    os.mkfifo(fifo)
    payload = json.dumps(_payload(Guarded(committed), "Read", file_path="/x")).encode()
    try:
        code, out, err = run_guard(["--agent", "codex", "--manifest", str(fifo), "--no-log"], payload)
    finally:
        _release(fifo)
    assert code == 2 and out == "" and "did not decide within 0.5 s" in err


def _release(fifo: Path) -> None:
    """Open and close the FIFO's write end, so the abandoned reader sees end of file and finishes."""
    with contextlib.suppress(OSError):  # no reader left
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("agent", ["nosuch", "", "claude;rm"])
def test_an_unknown_agent_name_is_denied_with_a_blocking_answer(guarded_log: Guarded, agent: str):
    code, out, err = run_guard(["--agent", agent], b"{}")
    assert code == 2 and "blocked this call: bad command line" in err
