"""scorer.inspection.spawn against subprocess.run, side by side: the same program, the same answer.

Exit status, both streams, input, the program found on the given PATH, a missing program or
directory, a signal, a timeout and an interruption (the hook's deadline alarm): each asked of
both. Where subprocess raises, spawn raises too, and the program never outlives the call.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from scorer.inspection import spawn
from tests.testing import imports
from tests.testing.repo import GitRepo

pytestmark = pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="POSIX only")

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}


def both(argv: list[str], cwd: str, env: dict[str, str] = ENV, data: bytes | None = None) -> tuple[object, object]:
    theirs = subprocess.run(argv, cwd=cwd, env=env, input=data, capture_output=True, check=False)
    if data is None:  # run() gives the child /dev/null; subprocess with input=None would share our stdin
        theirs = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    ours = spawn.run(argv, cwd, env, stdin=data)
    return (theirs.returncode, theirs.stdout, theirs.stderr), (ours.returncode, ours.stdout, ours.stderr)


@pytest.mark.parametrize(
    "script",
    [
        "true",
        "exit 3",
        "exit 255",
        "echo out; echo err >&2",
        "printf 'a\\0b'; printf 'c\\0' >&2; exit 1",
        "pwd",
        "cat",  # stdin is /dev/null: nothing
        "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2",  # both pipes past full, in turn
        "kill -TERM $$",
        "kill -KILL $$",
        "kill -PIPE $$",  # SIGPIPE at its default in the child, as subprocess's restore_signals leaves it
        "echo $LC_ALL $HOME",
    ],
)
def test_a_program_answers_as_it_does_under_subprocess(tmp_path: Path, script: str) -> None:
    theirs, ours = both(["sh", "-c", script], str(tmp_path))
    assert ours == theirs


@pytest.mark.parametrize("size", [0, 1, 70_000, 1_000_000])
def test_input_is_given_as_subprocess_gives_it(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    theirs, ours = both(["sh", "-c", "cat; cat /dev/null >&2"], str(tmp_path), data=data)
    assert ours == theirs
    assert ours[1] == data  # type: ignore[index]


def test_input_the_program_does_not_read_is_dropped_as_subprocess_drops_it(tmp_path: Path) -> None:
    theirs, ours = both(["sh", "-c", "exec 0<&-; echo done"], str(tmp_path), data=b"x" * 1_000_000)
    assert ours == theirs


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"PATH": ""},
        {"PATH": "/usr/bin"},
        {"PATH": "/a::/b:"},
        {"PATH": ":"},
        {"HOME": "/h"},
        {"PATH": "rel/dir:/x"},
    ],
)
def test_the_exec_path_is_os_get_exec_path_s(environ: dict[str, str]) -> None:
    assert spawn.exec_path(environ) == os.get_exec_path(environ)


def test_the_program_is_found_on_the_given_path_not_ours(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "tool").write_text("#!/bin/sh\necho not executable\n")  # no x bit: skipped, as execve skips it
    (first / "tool").chmod(0o644)
    (first / "dir").mkdir()
    (second / "tool").write_text("#!/bin/sh\necho second\n")
    (second / "tool").chmod(0o755)
    env = {**ENV, "PATH": f"{first}:{second}:{ENV['PATH']}"}
    theirs, ours = both(["tool"], str(tmp_path), env)
    assert ours == theirs == (0, b"second\n", b"")


def test_a_relative_program_is_found_from_the_directory_it_runs_in(tmp_path: Path) -> None:
    (tmp_path / "tool").write_text("#!/bin/sh\necho here\n")
    (tmp_path / "tool").chmod(0o755)
    theirs, ours = both(["./tool"], str(tmp_path))
    assert ours == theirs == (0, b"here\n", b"")


def test_a_missing_program_raises_as_subprocess_raises(tmp_path: Path) -> None:
    env = {**ENV, "PATH": str(tmp_path)}
    with pytest.raises(FileNotFoundError):
        subprocess.run(["git"], cwd=tmp_path, env=env, capture_output=True, check=False)
    with pytest.raises(FileNotFoundError):
        spawn.run(["git"], str(tmp_path), env)


def test_a_missing_directory_raises_as_subprocess_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        subprocess.run(["true"], cwd=tmp_path / "gone", env=ENV, capture_output=True, check=False)
    with pytest.raises(FileNotFoundError):
        spawn.run(["true"], str(tmp_path / "gone"), ENV)


def test_our_directory_is_ours_again_after_a_run_and_after_a_failure(tmp_path: Path) -> None:
    here = os.getcwd()
    spawn.run(["true"], str(tmp_path), ENV)
    assert os.getcwd() == here
    with pytest.raises(FileNotFoundError):
        spawn.run(["no-such-program-here"], str(tmp_path), ENV)
    assert os.getcwd() == here


def _gone(pid_file: Path) -> bool:
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_timeout_raises_and_kills_the_program(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    argv = ["sh", "-c", f"echo $$ > {pid_file}; exec sleep 30"]
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(argv, cwd=tmp_path, env=ENV, capture_output=True, timeout=0.5, check=False)
    assert _gone(pid_file)
    pid_file.unlink()
    with pytest.raises(TimeoutError):
        spawn.run(argv, str(tmp_path), ENV, timeout_s=0.5)
    assert _gone(pid_file)


class _Alarm(BaseException):
    pass


def test_the_deadlines_alarm_kills_the_program_on_its_way_out(tmp_path: Path) -> None:
    """The command hook's deadline is an interval timer whose handler raises: the program is reaped."""
    pid_file = tmp_path / "pid"

    def ring(signum: int, frame: object) -> None:
        raise _Alarm

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(_Alarm):
            spawn.run(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 30"], str(tmp_path), ENV, stdin=b"x")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _gone(pid_file)


def test_it_refuses_while_another_thread_runs(tmp_path: Path) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with pytest.raises(spawn.Busy):
            spawn.run(["true"], str(tmp_path), ENV)
    finally:
        stop.set()
        other.join()


def test_it_imports_no_subprocess(repo: GitRepo) -> None:
    """Beyond what the interpreter's start-up imports (CI's `.pth` loads threading): no subprocess,
    no threading, no signal."""
    code = (
        "from scorer.inspection import spawn; "
        f"r = spawn.run(['sh', '-c', 'echo ok'], {str(repo.root)!r}, {ENV!r}); print(r.stdout.decode().strip())"
    )
    exit_code, out, names = imports.imported(repo, ["-c", code])
    assert (exit_code, out.split()) == (0, ["ok"])
    assert [n for n in ("subprocess", "threading", "signal", "selectors") if n in names] == []


def test_an_inherited_descriptor_is_closed_in_the_program_as_subprocess_closes_it(tmp_path: Path) -> None:
    """subprocess closes every descriptor above 2 (close_fds); posix_spawn alone would hand the
    program each inheritable one, e.g. a pipe the agent gave the hook, which a long-lived child of
    git could then hold open."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    try:
        probe = ["sh", "-c", f"if [ -e /proc/self/fd/{write} ]; then echo open; else echo closed; fi"]
        theirs, ours = both(probe, str(tmp_path))
        assert theirs == ours
        assert ours == (0, b"closed\n", b"")
    finally:
        os.close(read)
        os.close(write)
