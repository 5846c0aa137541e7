"""The progress line: where a person is looking (a terminal, or /dev/tty under pre-commit, which
captures the hook's output), never in machine-readable output, silent for a quick run."""

from __future__ import annotations

import fcntl
import io
import json
import os
import subprocess
import sys
import termios

import pytest

from scorer.terminal import Progress, progress_stream
from tests.testing.repo import GitRepo, run_cli


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_run_shows_what_it_is_doing_after_two_seconds_and_counts_the_runs() -> None:
    out = io.StringIO()
    progress = Progress(out)
    progress(1.0)
    assert out.getvalue() == ""  # a quick run stays silent
    for tick in (2.0, 3.0, 1.0, 2.0):  # the clock starts again: the next run (the spec, then the job's)
        progress(tick)
    shown = out.getvalue()
    assert "running the required test (run 1) ... 3s" in shown and "(run 2) ... 2s" in shown
    progress.done()
    assert out.getvalue().endswith("\r")


def test_under_pre_commit_the_progress_goes_to_the_terminal_not_the_captured_output() -> None:
    opened: list[str] = []
    tty = io.StringIO()

    def opener(path: str) -> io.StringIO:
        opened.append(path)
        return tty

    captured = io.StringIO()  # pre-commit's pipe: not a terminal
    assert progress_stream(captured, {"PRE_COMMIT": "1"}, opener) is tty and opened == ["/dev/tty"]
    assert progress_stream(captured, {}, opener) is None  # CI, a pipe, a program reading the output
    terminal = _Tty()
    assert progress_stream(terminal, {"PRE_COMMIT": "1"}, opener) is terminal


def test_no_controlling_terminal_means_no_progress() -> None:
    def opener(path: str) -> io.StringIO:
        raise OSError(6, "No such device or address")

    assert progress_stream(io.StringIO(), {"PRE_COMMIT": "1"}, opener) is None


# --- where `score-diff test` and `score-diff` put it, with a real terminal and a real pipe ---------------

SLOW_TEST = "import time; time.sleep({s})"  # longer than a tick (1 s), so the line shows at least once
SHOWN = "score-diff: running"


def _drain(fd: int) -> str:
    """What is waiting on a pty's master or a pipe's read end, without blocking."""
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):  # nothing more (EAGAIN), or a pty whose other side is closed (EIO)
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def _slow_repo(repo: GitRepo, seconds: float) -> list[str]:
    repo.write("allowed/a.py", "A = 1\n")
    repo.commit("base")
    repo.write("allowed/a.py", "A = 2\n")
    repo.manifest(required_test=[sys.executable, "-c", SLOW_TEST.format(s=seconds)])
    return ["--repo", str(repo.root), "--manifest", str(repo.manifest_path)]


def _in_process(argv: list[str], stderr_fd: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(Progress, "SHOW_AFTER_S", 0.0)  # the first tick shows: no two-second wait here
    stderr = os.fdopen(os.dup(stderr_fd), "w", encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stderr)
    try:
        return run_cli(argv)
    finally:
        stderr.close()


def test_score_diff_test_shows_its_progress_on_a_terminal_and_never_on_stdout(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    master, slave = os.openpty()
    try:
        code, out = _in_process(["test", *_slow_repo(repo, 1.5)], slave, monkeypatch)
        terminal = _drain(master)
    finally:
        os.close(slave)
        os.close(master)
    assert code == 0 and out.rstrip().splitlines()[-1] == "TEST: PASS (passed)", out
    assert SHOWN in terminal and terminal.rstrip(" ").endswith("\r")  # shown, then cleared
    assert SHOWN not in out and "\r" not in out


def test_score_diff_test_into_a_pipe_shows_no_progress(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    try:
        code, out = _in_process(["test", *_slow_repo(repo, 1.5)], write, monkeypatch)
        piped = _drain(read)
    finally:
        os.close(write)
        os.close(read)
    assert code == 0 and out.rstrip().endswith("TEST: PASS (passed)"), out
    assert piped == "" and SHOWN not in out


def _with_terminal(argv: list[str], environ: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], str]:
    """score-diff in a session whose controlling terminal is a pty (as a developer's commit has), its
    stdout and stderr pipes (as pre-commit gives a hook); what it wrote to each, and to the terminal."""
    master, slave = os.openpty()

    def take_the_terminal() -> None:  # in the child, after setsid: the pty on fd 0 becomes /dev/tty
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        proc = subprocess.run(
            [sys.executable, "-m", "scorer", *argv],
            stdin=slave,
            capture_output=True,
            text=True,
            env=environ,
            start_new_session=True,
            preexec_fn=take_the_terminal,  # the only way to give the child a terminal
            timeout=120,
            check=False,
        )
        return proc, _drain(master)
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.parametrize(
    ("command", "pre_commit", "shown"),
    [
        (["test"], "1", True),  # under pre-commit, which captures the hook's output: on /dev/tty
        (["--format", "json", "--no-log"], "1", True),
        (["test"], None, False),  # stderr a pipe and no pre-commit: a program reads it, nobody is looking
    ],
)
def test_progress_goes_to_dev_tty_only_under_pre_commit_and_never_into_json(
    repo: GitRepo, command: list[str], pre_commit: str | None, shown: bool
) -> None:
    environ = {k: v for k, v in os.environ.items() if k != "PRE_COMMIT"}
    if pre_commit:
        environ["PRE_COMMIT"] = pre_commit
    proc, terminal = _with_terminal([*command, *_slow_repo(repo, Progress.SHOW_AFTER_S + 1.5)], environ)
    assert (SHOWN in terminal) is shown, terminal
    assert SHOWN not in proc.stdout + proc.stderr and "\r" not in proc.stdout + proc.stderr
    if command[0] == "test":
        assert proc.returncode == 0 and proc.stdout.rstrip().endswith("TEST: PASS (passed)"), proc.stdout
    else:
        report = json.loads(proc.stdout)  # the whole of stdout is the report a program reads
        assert (proc.returncode, report["result"]) == (0, "PASS"), proc.stdout
