"""junit.py: a report parsed once however often the run reads it, a changed or broken one never
answered from the last parse, and one parse per pass end to end."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from scorer.testrun import junit, passes
from tests.testing.calc import FIXED, SPEC, calc_project, counted_calls
from tests.testing.repo import GitRepo

REPORT = (
    b'<testsuites><testsuite name="pytest" tests="2" failures="1">'
    b'<testcase classname="t" name="a"/><testcase classname="t" name="b"><failure/></testcase>'
    b"</testsuite></testsuites>"
)


def test_the_same_bytes_are_parsed_once_and_other_bytes_again(monkeypatch: pytest.MonkeyPatch) -> None:
    parses = counted_calls(monkeypatch, ET, "fromstring")
    assert junit.parse(REPORT) == junit.Counts(2, 1, 0, 0)
    assert [c.outcome for c in junit.cases(bytes(REPORT))] == ["passed", "failed"]
    assert len(parses) == 1
    changed = REPORT.replace(b"<failure/>", b"")
    assert [c.outcome for c in junit.cases(changed)] == ["passed", "passed"]
    assert junit.parse(REPORT).failures == 1 and len(parses) == 3


def test_a_report_that_does_not_parse_is_refused_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    parses = counted_calls(monkeypatch, ET, "fromstring")
    for _ in range(2):
        with pytest.raises(junit.ReportError):
            junit.cases(b"<testsuites><testcase")
    assert len(parses) == 2


def test_a_scoring_parses_each_pass_report_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec pass, and here the flipped tests' reruns too (the base's tests fail at the base)."""
    calc_project(repo, SPEC, ["calc.py"]).write("calc.py", FIXED)
    parses = counted_calls(monkeypatch, ET, "fromstring")
    runs = counted_calls(monkeypatch, passes, "run_test")
    out = repo.score(skip_test=False)
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text
    assert len(runs) >= 2 and len(parses) == len(runs)  # evidence, stream and base's tests share one
