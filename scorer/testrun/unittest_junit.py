"""score-diff's runner for `python -m unittest`: the same run, plus a JUnit XML report of it.

score-diff runs this file's source with `python -c`, in the project's own interpreter, in
place of `-m unittest` (so the current directory leads sys.path, as with -m). It uses the
standard library only: the project's interpreter does not have score-diff installed.
"""

import os
import sys
import unittest
from xml.sax.saxutils import quoteattr

_REPORT = os.environ.pop("SCORE_DIFF_UNITTEST_REPORT", "")


class _Recorder(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.cases = []

    def _record(self, test, outcome):  # type: ignore[no-untyped-def]
        self.cases.append((test.id(), outcome))

    def addSuccess(self, test):  # type: ignore[no-untyped-def]
        super().addSuccess(test)
        self._record(test, "")

    def addFailure(self, test, err):  # type: ignore[no-untyped-def]
        super().addFailure(test, err)
        self._record(test, "failure")

    def addError(self, test, err):  # type: ignore[no-untyped-def]
        super().addError(test, err)
        self._record(test, "error")

    def addSkip(self, test, reason):  # type: ignore[no-untyped-def]
        super().addSkip(test, reason)
        self._record(test, "skipped")

    def addExpectedFailure(self, test, err):  # type: ignore[no-untyped-def]
        super().addExpectedFailure(test, err)
        self._record(test, "")

    def addUnexpectedSuccess(self, test):  # type: ignore[no-untyped-def]
        super().addUnexpectedSuccess(test)
        self._record(test, "failure")

    def addSubTest(self, test, subtest, err):  # type: ignore[no-untyped-def]
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._record(subtest, "failure" if issubclass(err[0], test.failureException) else "error")


def _write(cases):  # type: ignore[no-untyped-def]
    count = {kind: sum(1 for _, outcome in cases if outcome == kind) for kind in ("failure", "error", "skipped")}
    rows = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<testsuite name="unittest" tests="{len(cases)}" failures="{count["failure"]}" '
        f'errors="{count["error"]}" skipped="{count["skipped"]}">',
    ]
    for name, outcome in cases:
        where, _, test = name.rpartition(".")
        body = f"<{outcome}/>" if outcome else ""
        rows.append(f"<testcase classname={quoteattr(where)} name={quoteattr(test)}>{body}</testcase>")
    rows.append("</testsuite>")
    with open(_REPORT + ".part", "w", encoding="utf-8") as fh:
        fh.write("\n".join(rows) + "\n")
    os.replace(_REPORT + ".part", _REPORT)


class _Runner(unittest.TextTestRunner):
    resultclass = _Recorder

    def run(self, test):  # type: ignore[no-untyped-def]
        result = super().run(test)
        if _REPORT:
            _write(result.cases)
        return result


if __name__ == "__main__":
    sys.argv[0] = "python -m unittest"
    unittest.main(module=None, testRunner=_Runner)
