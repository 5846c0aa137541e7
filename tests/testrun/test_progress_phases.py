"""The progress line names the phase a run of the required test belongs to (issue 27, item 7):
the base's run, the spec pass, the job's own tests, the rerun of the tests that flipped."""

from __future__ import annotations

import io
from typing import Any

import pytest

from scorer import terminal
from scorer.testrun import passes, session
from tests.testing.calc import FIXED, SPEC, calc_project
from tests.testing.repo import GitRepo


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    return calc_project(repo, SPEC, ["calc.py", "tests/**", "conftest.py"])


class _Kept(io.StringIO):
    def close(self) -> None:  # the score command closes a stream it did not get as stderr
        pass


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """The progress line's stream; every run ticks once past the silent first seconds."""
    stream = _Kept()
    monkeypatch.setattr(terminal, "progress_stream", lambda *a, **k: stream)
    real = session.run_test

    def ticking(*args: Any, **kwargs: Any) -> Any:
        tick = kwargs.get("progress")
        if tick is not None:
            tick(0.0)
            tick(5.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "run_test", ticking)  # the base's run
    monkeypatch.setattr(passes, "run_test", ticking)  # the spec pass, the job's tests, the reruns
    return stream


def test_each_run_is_named_by_its_phase_not_its_number(project: GitRepo, shown: io.StringIO) -> None:
    project.write("calc.py", FIXED)
    project.write("tests/test_calc.py", SPEC + "\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n")
    outcome = project.score(skip_test=False)
    assert outcome.exit_code == 0 and outcome.report["result"] == "PASS", outcome.text
    line = shown.getvalue()
    for phase in (
        "running the base's tests",
        "running the spec pass",
        "running the job's tests",
        "rerunning the tests that flipped",
    ):
        assert f"score-diff: {phase} ... 5s" in line, line
    assert "(run " not in line


def test_a_progress_without_phases_still_counts_runs() -> None:
    out = io.StringIO()
    progress = terminal.Progress(out)
    progress(3.0)
    assert "running the required test (run 1) ... 3s" in out.getvalue()
    progress.enter("running the spec pass")
    progress(0.0)
    progress(4.0)
    assert "score-diff: running the spec pass ... 4s" in out.getvalue()
