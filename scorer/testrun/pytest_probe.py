"""A pytest plugin score-diff loads into one run only: `--collect-only` in a checkout of the base,
to learn every test id the base's tests define (parametrize ids included), which of them the
base itself marks skip, skipif or xfail, and the plugins pytest autoloaded from entry points in
that environment (the spec pass turns autoload off and loads exactly these by name). It writes
them as JSON to $SCORE_DIFF_COLLECTED.

Shipped as a file and put on PYTHONPATH for that run; it never runs beside the job's code.
"""

from __future__ import annotations

import json
import os
from typing import Any

_ERRORS: list[str] = []
_MARKS = {"skip", "skipif", "xfail"}


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _ERRORS.append(report.nodeid)


def pytest_collection_finish(session: Any) -> None:
    root = os.getcwd()
    items = [
        {
            "nodeid": item.nodeid,
            "path": os.path.relpath(str(item.path), root).replace(os.sep, "/"),
            "marks": sorted({m.name for m in item.iter_markers()} & _MARKS),
        }
        for item in session.items
    ]
    with open(os.environ["SCORE_DIFF_COLLECTED"], "w", encoding="utf-8") as fh:
        # pytest looks for its configuration upward from here, past the checkout: say which file it read
        inipath = getattr(session.config, "inipath", None)
        inifile = str(inipath) if inipath else ""
        json.dump({"items": items, "errors": _ERRORS, "inifile": inifile, "plugins": _autoloaded(session.config)}, fh)


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
