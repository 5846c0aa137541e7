"""One run of a test command: argv, no shell, stdin closed, a timeout, a reduced environment, its
output's tail redacted before it is cut."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..model import TEST_FAILED, TEST_PASSED, TEST_TIMEOUT, TestOutcome
from . import envelope, process
from .environment import secrets_given

TAIL_LINES = 40  # lines of the test's output a report shows, at most
TAIL_BYTES = 4000  # and bytes of UTF-8, at most, whatever the test printed


def tail(text: str, known: Iterable[str] = ()) -> str:
    """The end of the test's output, at most TAIL_LINES lines and TAIL_BYTES bytes, redacted
    *before* it is cut: a key whose BEGIN line falls outside the tail is still recognised as a
    key, and a secret the cut falls inside is already masked whole. `known`: secret values the
    test was given, masked in each of their forms (secrets.encodings)."""
    from ..secrets.redaction import redact

    lines = redact(text, known).splitlines()[-TAIL_LINES:]
    # A cut inside a character drops what is left of it (and replaces a lone surrogate).
    return "\n".join(lines).encode("utf-8", "replace")[-TAIL_BYTES:].decode("utf-8", "ignore")


def run_test(
    argv: Sequence[str],
    cwd: str,
    timeout_s: float,
    env: Mapping[str, str],
    clock: Callable[[], float] = time.monotonic,
    progress: Callable[[float], None] | None = None,
    launch: envelope.Launch | None = None,
    pass_fds: tuple[int, ...] = (),
) -> TestOutcome:
    """Run the test to its end or its timeout; never raises for the test's own failure.

    With `launch`, the test runs inside its envelope (envelope.py); raises EnvelopeUnavailable
    when the envelope is required and the launcher could not enforce it. `pass_fds` reach the test
    (score-diff's outcome stream); the caller closes them."""
    start = clock()
    full = [*launch.prefix, *launch.inner, *argv] if launch else list(argv)
    fds = () if launch is None or launch.status_write is None else (launch.status_write,)
    try:
        proc = process.start(full, cwd, dict(launch.env if launch else env), (*fds, *pass_fds))
    except OSError as exc:
        if launch is not None and launch.status_read is not None:
            os.close(launch.status_read)
        return TestOutcome(TEST_FAILED, tuple(argv), None, 0.0, "", f"could not start: {exc.strerror or exc}")
    finally:
        for fd in fds:
            os.close(fd)
    assert proc.stdout is not None
    output = process.Output(proc.stdout)
    status = (
        None if launch is None or launch.status_read is None else process.Output(os.fdopen(launch.status_read, "rb"))
    )
    try:
        code = process.wait(proc, start, timeout_s, clock, progress)
    finally:  # also on an interrupt: the test must not outlive score-diff
        process.kill_group(proc, launcher=status is not None)
    if code is None:
        process.reap(proc)
    held = not output.drain(process.DRAIN_S)
    text = tail(output.text(), secrets_given(launch.env if launch else env))
    facts = None
    if launch is not None:
        said = status.text() if status is not None and status.drain(process.DRAIN_S) else ""
        facts = envelope.finish(launch, said, code)
        why = envelope.not_started(said)
        if why is not None:
            return TestOutcome(TEST_FAILED, tuple(argv), None, 0.0, "", f"could not start: {why}", envelope=facts)
    outcome = _outcome(argv, code, clock() - start, text, held, timeout_s)
    return outcome._replace(envelope=facts)


def _outcome(
    argv: Sequence[str], code: int | None, took: float, text: str, held: bool, timeout_s: float
) -> TestOutcome:
    if code is None:
        return TestOutcome(TEST_TIMEOUT, tuple(argv), None, took, text, f"killed after {timeout_s:g}s")
    if held:
        why = (
            f"exited {code}, but a process it started outlived it and still holds its output (it left the "
            "test's process group, so score-diff cannot stop it, nor see what it changes later); "
            "stop background processes before the test ends"
        )
        return TestOutcome(TEST_FAILED, tuple(argv), code, took, text, why)
    return TestOutcome(TEST_PASSED if code == 0 else TEST_FAILED, tuple(argv), code, took, text)


__all__ = ["run_test", "tail"]
