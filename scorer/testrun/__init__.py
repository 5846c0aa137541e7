"""Run the manifest's required test: argv, no shell, stdin closed, a timeout, a reduced environment.

The test runs code the job wrote. `process` makes sure its deadline always ends the run,
`environment` what it inherits; what a run proves is in docs/required-test.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from ..model import TEST_FAILED, TEST_PASSED, TEST_TIMEOUT, TestOutcome
from . import process
from .environment import BASE_ENV, HARDENED, program_inside, test_environment

TAIL_LINES = 40
TAIL_CHARS = 4000


def tail(text: str) -> str:
    """The end of the test's output, redacted *before* it is cut: a key whose BEGIN line falls
    outside the tail is still recognised as a key."""
    from ..redaction import redact

    lines = redact(text).splitlines()[-TAIL_LINES:]
    return "\n".join(lines)[-TAIL_CHARS:]


def run_test(
    argv: Sequence[str],
    cwd: str,
    timeout_s: float,
    env: Mapping[str, str],
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run the test to its end or its timeout; never raises for the test's own failure."""
    start = clock()
    try:
        proc = process.start(list(argv), cwd, dict(env))
    except OSError as exc:
        return TestOutcome(TEST_FAILED, tuple(argv), None, 0.0, "", f"could not start: {exc.strerror or exc}")
    assert proc.stdout is not None
    output = process.Output(proc.stdout)
    try:
        code = process.wait(proc, start, timeout_s, clock, progress)
    finally:
        process.kill_group(proc)  # also on an interrupt: the test must not outlive score-diff
    if code is None:
        process.reap(proc)
    held = not output.drain(process.DRAIN_S)
    text = tail(output.text())
    if code is None:
        return TestOutcome(TEST_TIMEOUT, tuple(argv), None, clock() - start, text, f"killed after {timeout_s:g}s")
    if held:
        why = (
            f"exited {code}, but a process it started outlived it and still holds its output (it left the "
            "test's process group, so score-diff cannot stop it, nor see what it changes later); "
            "stop background processes before the test ends"
        )
        return TestOutcome(TEST_FAILED, tuple(argv), code, clock() - start, text, why)
    return TestOutcome(TEST_PASSED if code == 0 else TEST_FAILED, tuple(argv), code, clock() - start, text)


__all__ = ["BASE_ENV", "HARDENED", "program_inside", "run_test", "tail", "test_environment"]
