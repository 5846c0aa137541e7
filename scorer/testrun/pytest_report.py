"""A pytest plugin score-diff loads into every pytest run of the required test (`-p`, from a
directory of score-diff's own outside the checkout): each test's outcome leaves the process as
it happens, as one JSON line on the file descriptor $SCORE_DIFF_REPORT_FD names, then pytest's
exit status when the session ends. The descriptor is taken, and the variable removed, when
pytest loads the plugin: before any conftest.py, test module or code under test is imported.

With $SCORE_DIFF_ONLY (a JSON list of node ids) it runs only those tests, in reverse order: one
of the two stability runs of the tests that flipped (docs/required-test.md).
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

_FD = int(os.environ.pop("SCORE_DIFF_REPORT_FD", "-1") or "-1")
_ONLY = os.environ.pop("SCORE_DIFF_ONLY", "")
if _FD >= 0:
    os.set_inheritable(_FD, False)  # the tests' own subprocesses never hold the channel


def _say(**record: Any) -> None:
    if _FD < 0:
        return
    line = json.dumps(record) + "\n"
    with contextlib.suppress(OSError):  # a line that never arrives is a disagreement there
        os.write(_FD, line.encode("utf-8"))


def _outcome(report: Any) -> str:
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "passed"


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    if not _ONLY:
        return
    wanted = json.loads(_ONLY)
    chosen = [i for i in items if i.nodeid in wanted]
    config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in wanted])
    items[:] = list(reversed(chosen))  # once: score-diff starts the run twice (an item cannot run twice)


def pytest_runtest_logreport(report: Any) -> None:
    _say(id=report.nodeid, when=report.when, outcome=_outcome(report))


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    _say(exit=int(exitstatus))
