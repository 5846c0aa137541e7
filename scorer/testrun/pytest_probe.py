"""A pytest plugin score-diff loads into one run only: the base's protected tests, run on a
checkout of the base, to learn every test id the base defines (parametrize ids included), which
of them the base marks skip, skipif or xfail, and what became of each there. It writes them as
JSON to $SCORE_DIFF_COLLECTED when the session ends, with the plugins pytest autoloaded from entry
points in that environment (the spec pass turns autoload off and loads exactly these by name); no
file means the base could not be run.

Shipped as a file and put on PYTHONPATH for that run; it never runs beside the job's code.
"""

from __future__ import annotations

import json
import os
from typing import Any

_ERRORS: list[str] = []
_ITEMS: list[dict[str, Any]] = []
_OUTCOMES: dict[str, str] = {}
_MARKS = {"skip", "skipif", "xfail"}
# worst first: a test whose teardown errs after its call passed is an error, as JUnit says
_RANK = {"failed": 4, "error": 4, "skipped": 2, "xfailed": 2, "passed": 1}


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _ERRORS.append(report.nodeid)


def pytest_collection_finish(session: Any) -> None:
    root = os.getcwd()
    _ITEMS[:] = [
        {
            "nodeid": item.nodeid,
            "path": os.path.relpath(str(item.path), root).replace(os.sep, "/"),
            "marks": sorted({m.name for m in item.iter_markers()} & _MARKS),
        }
        for item in session.items
    ]


def outcome(report: Any) -> str:
    """One phase's outcome, named as score-diff's JUnit reader names it."""
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "passed"


def pytest_runtest_logreport(report: Any) -> None:
    now, before = outcome(report), _OUTCOMES.get(report.nodeid)
    if before is None or _RANK[now] > _RANK[before]:
        _OUTCOMES[report.nodeid] = now


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    import pytest

    items = [{**i, "outcome": _OUTCOMES.get(i["nodeid"], "not run")} for i in _ITEMS]
    inipath = getattr(session.config, "inipath", None)  # pytest looks upward, past the checkout
    record = {
        "items": items,
        "errors": _ERRORS,
        "inifile": str(inipath) if inipath else "",
        "pytest": pytest.__version__,
    }
    with open(os.environ["SCORE_DIFF_COLLECTED"], "w", encoding="utf-8") as fh:
        json.dump({**record, "plugins": _autoloaded(session.config)}, fh)


def _autoloaded(config: Any) -> list[str]:
    """The `pytest11` entry-point names of the plugins pytest loaded from installed distributions."""
    manager = config.pluginmanager
    names = {
        ep.name
        for plugin, dist in manager.list_plugin_distinfo()
        for ep in getattr(dist, "entry_points", ())
        if ep.group == "pytest11" and manager.get_plugin(ep.name) is plugin
    }
    return sorted(names)
