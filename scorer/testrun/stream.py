"""The outcome stream: what the `pytest_report` plugin said, test by test, over a pipe score-diff
opened before the test process started, read back and held against the JUnit report and the
exit status. The process under test can add lines to the stream, never take back a line already
sent: a failure it then strips from the JUnit file, or an exit status it forges with os._exit,
no longer agrees (`test-evidence-tampered`). What this proves: docs/required-test.md.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import NamedTuple

from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import basetests, evidence, junit, process

PLUGIN = "score_diff_report"
FD_ENV = "SCORE_DIFF_REPORT_FD"
ONLY_ENV = "SCORE_DIFF_ONLY"
TAMPERED = "test-evidence-tampered"
UNSTABLE = "test-unstable"
# compared coarsely: a phase order or an xfail/skip naming difference is not tampering
_CLASS = {"passed": "passed", "skipped": "skipped", "xfailed": "skipped", "failed": "failed", "error": "failed"}


class Stream(NamedTuple):
    """What the plugin said: each node id's phase outcomes in order, and pytest's exit status."""

    reports: dict[str, list[tuple[str, str]]]  # node id -> [(when, outcome)]
    exit: int | None  # None: the session never finished (or never said so)
    unreadable: int  # lines that were not the plugin's JSON
    compared: tuple[dict[str, object], ...] = ()  # the comparison probe's records (comparisons.py)
    configs: tuple[tuple[str, str], ...] = ()  # (config.inipath or "", the directory pytest started in)


def argv(args: Sequence[str], at: int) -> tuple[str, ...]:
    return (*args[:at], "-p", PLUGIN, *args[at:])


def write_plugin(directory: str) -> None:
    source = (resources.files("scorer") / "testrun" / "pytest_report.py").read_text(encoding="utf-8")
    with open(os.path.join(directory, PLUGIN + ".py"), "w", encoding="utf-8") as fh:
        fh.write(source)


def parse(text: str) -> Stream:
    reports: dict[str, list[tuple[str, str]]] = {}
    exit_status, bad, compared, configs = None, 0, [], []
    for line in text.splitlines():
        try:
            record = json.loads(line)
            if "cmp" in record:
                compared.append(dict(record))
            elif "config" in record:
                configs.append((str(record["config"]), str(record["cwd"])))
            elif "exit" in record:
                exit_status = int(record["exit"])
            else:
                reports.setdefault(str(record["id"]), []).append((str(record["when"]), str(record["outcome"])))
        except (ValueError, KeyError, TypeError):
            bad += 1
    return Stream(reports, exit_status, bad, tuple(compared), tuple(configs))


def outcome_of(phases: Sequence[tuple[str, str]]) -> str:
    """One test's class from its phases: failed if any failed, else skipped if any skipped."""
    classes = {_CLASS.get(o, "failed") for _, o in phases}
    return next(c for c in ("failed", "skipped", "passed") if c in classes or c == "passed")


def disagreement(stream: Stream, cases: Sequence[junit.Case], exit_code: int) -> str:
    """Why the stream, the JUnit report and the exit status do not tell the same story ("" if they do)."""
    if stream.exit is None:
        return f"the process exited {exit_code}, but pytest never finished its session (the stream has no end)"
    if stream.exit != exit_code:
        return f"pytest ended its session with exit status {stream.exit}, but the process exited {exit_code}"
    said = {basetests.junit_key(nodeid): outcome_of(phases) for nodeid, phases in stream.reports.items()}
    written = {key: _CLASS.get(o, "failed") for key, o in basetests.outcomes(cases).items()}
    for key in sorted(said.keys() | written.keys()):
        if said.get(key) != written.get(key):
            name = "::".join(k for k in key if k)
            return (
                f"the JUnit report says {name} {written.get(key, 'is absent')}, but as it ran the test "
                f"{said.get(key, 'was never reported')}"
            )
    return ""


def unstable(stream: Stream, flipped: Sequence[str], exit_code: int | None, runs: int = 1) -> list[tuple[str, str]]:
    """(node id, why) for each flipped test that did not pass, exactly `runs` times, in one stability run."""
    found = []
    for nodeid in flipped:
        phases = stream.reports.get(nodeid, [])
        calls = [o for when, o in phases if when == "call"]
        bad = [f"{o} at {when}" for when, o in phases if _CLASS.get(o) != "passed"]
        if bad or len(calls) != runs:
            why = ", ".join(bad) if bad else f"ran {len(calls)} time(s), not {runs}"
            found.append((nodeid, why))
    if not found and (stream.exit is None or stream.exit != exit_code or exit_code != 0):
        found.extend((n, f"the run exited {exit_code}") for n in flipped)
    return found


class Channel:
    """The pipe a pytest run reports on: opened here, its write end handed to the test process."""

    def __init__(self, argv: tuple[str, ...], env: dict[str, str]) -> None:
        self.read, self.write = os.pipe()
        os.set_inheritable(self.write, False)  # Popen's pass_fds hands it to the test, and only it
        self.argv = argv
        self.env = {**env, FD_ENV: str(self.write)}
        self._output = process.Output(os.fdopen(self.read, "rb"))
        self._closed = False

    @classmethod
    def open(
        cls, planned: evidence.Plan, directory: str, env: Mapping[str, str], only: Sequence[str]
    ) -> Channel | None:
        """A channel for a pytest run with a JUnit report; None for any other runner."""
        found = evidence.runner(planned.argv)
        if planned.report is None or found is None or found[0] != "pytest":
            return None
        os.makedirs(directory, exist_ok=True)
        write_plugin(directory)
        # first on the path: the job's tree cannot shadow the plugin's module name
        lead = {"PYTHONPATH": os.pathsep.join([directory, env["PYTHONPATH"]]) if env.get("PYTHONPATH") else directory}
        extra = {ONLY_ENV: json.dumps(list(only))} if only else {}
        return cls(argv(planned.argv, found[1]), {**env, **lead, **extra})

    def close(self) -> Stream:
        """Everything said, once every writer has closed the pipe (or after the drain)."""
        if not self._closed:
            self._closed = True
            with contextlib.suppress(OSError):
                os.close(self.write)
        self._output.drain(process.DRAIN_S)
        return parse(self._output.text())


def agreed(test: TestOutcome, said: Stream) -> TestOutcome:
    """A passing run whose JUnit report or exit status the stream contradicts is tampered evidence."""
    found = test.evidence
    if test.status != TEST_PASSED or test.exit_code is None or found is None or found.report is None:
        return test
    try:
        with open(found.report, "rb") as fh:
            cases = junit.cases(fh.read(junit.MAX_BYTES + 1))
    except (OSError, junit.ReportError):
        return test  # collect() judged it a moment ago
    why = disagreement(said, cases, test.exit_code)
    if not why:
        return test
    why = f"the evidence disagrees: {why} (the process under test rewrote its report or forged its exit)"
    return test._replace(status=TEST_FAILED, reason=why, findings=(*test.findings, (TAMPERED, why, None)))
