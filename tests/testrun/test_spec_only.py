"""`score-diff test --spec` (issue 27, item 6): the gate's spec pass alone, its output printed, so
the agent can see the failure of the base's tests that its own tests hide; named in the hint."""

from __future__ import annotations

import contextlib
import io

import pytest

from scorer import main as cli
from tests.testing.calc import BUGGY, FIXED, SPEC, calc_project
from tests.testing.repo import GitRepo

# The job leaves the bug and rewrites its own copy of the test to expect it.
HIDING = SPEC.replace("== 3", "== -1")


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    return calc_project(repo, SPEC, ["calc.py", "tests/**", "conftest.py"])


def _test(repo: GitRepo, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    argv = ["test", "--repo", str(repo.root), "--manifest", str(repo.manifest_path), *extra]
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    return code, out.getvalue()


def test_spec_shows_the_base_tests_failing_on_the_jobs_code(project: GitRepo) -> None:
    project.write("calc.py", BUGGY + "\n# touched\n")
    project.write("tests/test_calc.py", HIDING)
    code, text = _test(project, "--spec")
    assert code == 1 and "TEST: FAIL" in text, text
    assert "test_add" in text and "the base's tests" in text  # the spec pass's own failure, printed


def test_spec_stops_after_the_spec_pass_where_the_full_run_goes_on(project: GitRepo) -> None:
    project.write("calc.py", FIXED)
    project.write("tests/test_calc.py", SPEC + "\n\ndef test_new_row():\n    assert False\n")  # the job's own bad row
    code, text = _test(project)
    assert code == 1 and "the job's own tests" in text, text  # the full run: the job's pass fails
    code, text = _test(project, "--spec")
    assert code == 0 and "TEST: PASS" in text, text  # the spec pass alone: the base's tests pass
    assert "--spec runs the spec pass alone" in text


def test_the_test_failed_hint_names_the_spec_pass(project: GitRepo) -> None:
    project.write("calc.py", BUGGY + "\n# touched\n")
    outcome = project.score(skip_test=False)
    assert outcome.exit_code == 1 and "test-failed" in outcome.codes, outcome.text
    assert "score-diff test --spec" in outcome.text
