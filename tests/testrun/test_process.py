"""process.wait: the test's exit seen when it happens (no sleeping poll where the kernel can say
so), the deadline and the progress ticks kept, and the same answers without pidfd_open."""

from __future__ import annotations

import os
import sys
import time

import pytest

from scorer.testrun import process

QUICK = [sys.executable, "-c", "import time, sys; time.sleep(0.2); sys.exit(3)"]
STUCK = [sys.executable, "-c", "import time; time.sleep(60)"]


def _wait(argv: list[str], timeout_s: float, ticks: list[float] | None = None) -> int | None:
    proc = process.start(argv, os.getcwd(), dict(os.environ))
    try:
        return process.wait(
            proc, time.monotonic(), timeout_s, time.monotonic, ticks.append if ticks is not None else None
        )
    finally:
        process.kill_group(proc)
        process.reap(proc)
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="pidfd_open(2) is Linux's")
def test_the_end_of_the_test_wakes_the_wait_without_a_sleeping_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    real = time.sleep

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        real(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    assert _wait(QUICK, 30.0) == 3
    assert _wait(QUICK, 30.0, []) == 3
    assert slept == []


@pytest.mark.parametrize("pidfd", [True, False])
def test_the_deadline_and_the_ticks_hold(monkeypatch: pytest.MonkeyPatch, pidfd: bool) -> None:
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("pidfd_open(2) is Linux's")
    ticks: list[float] = []
    assert _wait(STUCK, 2.5, ticks) is None
    assert len(ticks) == 2  # one a second, none once the deadline has passed
    assert _wait(STUCK, 0.3) is None
    assert _wait(QUICK, 30.0) == 3


def test_a_process_that_cannot_be_watched_is_waited_for_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(pid: int) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", refused, raising=False)
    assert _wait(QUICK, 30.0, []) == 3
    assert _wait(STUCK, 0.3) is None
