"""The progress line: where a person is looking (a terminal, or /dev/tty under pre-commit, which
captures the hook's output), never in machine-readable output, silent for a quick run."""

from __future__ import annotations

import io

from scorer.terminal import Progress, progress_stream


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
