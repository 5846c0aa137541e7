"""Run the manifest's required test: argv, no shell, stdin closed, a timeout, a reduced environment."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence

from .model import TEST_FAILED, TEST_PASSED, TEST_TIMEOUT, TestOutcome

# Variables the required test inherits; anything else (PYTHONPATH, LD_PRELOAD, GIT_*,
# tool-specific switches an agent could export) must be named in the manifest's test_env.
BASE_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM",
    "TMPDIR", "TMP", "TEMP", "CI", "SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR",
)
TAIL_LINES = 40
TAIL_CHARS = 4000


def test_environment(environ: Mapping[str, str], extra: Sequence[str]) -> dict[str, str]:
    """The allowlisted environment, without the pre-commit hook's private virtualenv."""
    env = {k: environ[k] for k in (*BASE_ENV, *extra) if k in environ}
    venv = environ.get("VIRTUAL_ENV")
    if environ.get("PRE_COMMIT") == "1" and venv and "PATH" in env:
        # Inside a pre-commit hook, PATH starts with score-diff's own venv; the
        # project's test must run with the project's interpreter, not ours.
        keep = [p for p in env["PATH"].split(os.pathsep) if not p.startswith(venv)]
        env["PATH"] = os.pathsep.join(keep)
    return env


def tail(text: str) -> str:
    lines = text.splitlines()[-TAIL_LINES:]
    return "\n".join(lines)[-TAIL_CHARS:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        pass


def _wait(
    proc: subprocess.Popen[bytes], start: float, timeout_s: float, clock: Callable[[], float],
    progress: Callable[[float], None] | None,
) -> bytes:
    """communicate() with the timeout, ticking `progress` each second after the first."""
    if progress is None:
        return proc.communicate(timeout=timeout_s)[0]
    while True:
        remaining = timeout_s - (clock() - start)
        try:
            return proc.communicate(timeout=max(0.0, min(1.0, remaining)))[0]
        except subprocess.TimeoutExpired:
            if clock() - start >= timeout_s:
                raise
            progress(clock() - start)


def run_test(
    argv: Sequence[str],
    cwd: str,
    timeout_s: float,
    env: Mapping[str, str],
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run the test to completion or timeout; never raises for the test's own failure."""
    start = clock()
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return TestOutcome(TEST_FAILED, tuple(argv), None, 0.0, "", f"could not start: {exc.strerror or exc}")
    try:
        out = _wait(proc, start, timeout_s, clock, progress)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        text = tail(out.decode("utf-8", "replace"))
        return TestOutcome(TEST_TIMEOUT, tuple(argv), None, clock() - start, text, f"killed after {timeout_s:g}s")
    except BaseException:
        _kill_group(proc)  # an interrupt must not leave the test running
        raise
    status = TEST_PASSED if proc.returncode == 0 else TEST_FAILED
    text = tail(out.decode("utf-8", "replace"))
    return TestOutcome(status, tuple(argv), proc.returncode, clock() - start, text)
