"""Evidence that the required test ran tests: exit 0 alone is not proof (one `os._exit(0)`
in the module under test exits 0 before any assertion).

For runners score-diff recognises in `required_test` (pytest, `python -m pytest`,
`python -m unittest`) it asks for a JUnit XML report in a fresh directory of its own,
outside the repository; for any runner, the manifest's `test_report` names the report
the run must write. The verdict then needs that report to exist, to have been written
by this run, to show at least `min_tests` executed tests and no failures or errors.
What this proves, and what it does not: docs/required-test.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from importlib import resources
from typing import NamedTuple

from ..model import TestEvidence
from . import junit

_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)*)?(\.exe)?", re.I)
_PYTEST = ("pytest", "py.test")
_JUNIT_FLAGS = ("--junitxml", "--junit-xml")
UNITTEST_REPORT_ENV = "SCORE_DIFF_UNITTEST_REPORT"


class Plan(NamedTuple):
    """How to run the test so that it leaves evidence: the argv, extra environment, the report."""

    argv: tuple[str, ...]
    env: dict[str, str]
    report: str | None  # absolute path of the JUnit XML report; None: exit status alone
    source: str  # "test_report", "pytest", "unittest", or why there is no evidence


def runner(argv: Sequence[str]) -> tuple[str, int] | None:
    """("pytest" | "unittest", index of the runner's first own argument), if score-diff knows it."""
    name = os.path.basename(argv[0]) if argv else ""
    if name.removesuffix(".exe") in _PYTEST:
        return "pytest", 1
    if not _PYTHON.fullmatch(name):
        return None
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "-m" and i + 1 < len(argv):
            module = argv[i + 1]
            return (module, i + 2) if module in ("pytest", "unittest") else None
        if arg in ("-W", "-X"):
            i += 2
        elif arg.startswith("-") and arg not in ("-c", "-") and not arg.startswith("--"):
            i += 1
        else:
            return None  # a script, -c code, or an option score-diff does not know
    return None


def _users_junit(args: Sequence[str]) -> str | None:
    for i, arg in enumerate(args):
        for flag in _JUNIT_FLAGS:
            if arg.startswith(flag + "="):
                return arg[len(flag) + 1 :]
            if arg == flag and i + 1 < len(args):
                return args[i + 1]
    return None


def plan(argv: Sequence[str], test_report: str | None, root: str, scratch: str) -> Plan:
    """The argv to run and the report to expect; `scratch` is a fresh directory outside the repository."""
    argv = tuple(argv)
    if test_report is not None:
        return Plan(argv, {}, os.path.join(root, test_report), "test_report")
    found = runner(argv)
    if found is None:
        return Plan(
            argv,
            {},
            None,
            f"score-diff does not recognise {os.path.basename(argv[0])!r} as a test "
            "runner and the manifest names no test_report",
        )
    kind, at = found
    if kind == "pytest":
        own = _users_junit(argv[at:])
        if own is not None:  # the user's own report is the evidence; theirs is left alone
            return Plan(argv, {}, os.path.join(root, own), "pytest")
        report = os.path.join(scratch, "pytest.xml")
        return Plan((*argv[:at], f"--junitxml={report}", *argv[at:]), {}, report, "pytest")
    report = os.path.join(scratch, "unittest.xml")
    source = (resources.files("scorer") / "testrun" / "unittest_junit.py").read_text(encoding="utf-8")
    return Plan((*argv[: at - 2], "-c", source, *argv[at:]), {UNITTEST_REPORT_ENV: report}, report, "unittest")


def identity(path: str | None) -> tuple[int, int, int, int] | None:
    """What a report file is before the run (None: absent), so a stale one is not taken as new."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def collect(planned: Plan, before: tuple[int, int, int, int] | None, min_tests: int) -> TestEvidence:
    """What the report says, and what is wrong with it as evidence ("" when it holds)."""
    if planned.report is None:
        return TestEvidence("exit-status", None, problem="", note=planned.source)
    report = planned.report
    if not os.path.lexists(report):
        return TestEvidence(
            "junit-xml",
            report,
            problem="empty",
            note=f"it wrote no test report ({report}): no evidence that any test ran",
        )
    if before is not None and identity(report) == before:
        return TestEvidence(
            "junit-xml",
            report,
            problem="empty",
            note=f"the test report {report} is the one from before this run, not rewritten",
        )
    try:
        if os.path.islink(report):
            raise junit.ReportError("it is a symlink")
        with open(report, "rb") as fh:
            counts = junit.parse(fh.read(junit.MAX_BYTES + 1))
    except (OSError, junit.ReportError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return TestEvidence(
            "junit-xml", report, problem="empty", note=f"the test report {report} cannot be read as JUnit XML: {why}"
        )
    found = TestEvidence("junit-xml", report, *counts)
    if counts.failures or counts.errors:
        return found._replace(
            problem="failed", note=f"its report shows {counts.failures} failure(s) and {counts.errors} error(s)"
        )
    if counts.tests < min_tests:
        return found._replace(
            problem="empty",
            note=f"its report shows {counts.tests} executed test(s) "
            f"({counts.skipped} skipped); at least {min_tests} must run (min_tests)",
        )
    return found
