"""The tests that failed at the base and pass now, run again: twice more in fresh processes, in
reverse order (`test-unstable` when a result changes), then their comparison probe on the base
tree held against the job's (comparisons.py)."""

from __future__ import annotations

import os

from ..model import TEST_FAILED, TestOutcome
from . import basetests, comparisons, junit, stream
from .passes import Session, phase, streamed, with_note


def stability(
    run: Session,
    root: str,
    reports: str,
    test: TestOutcome,
    base: basetests.Collected,
    plugins: tuple[str, ...] | None = None,
) -> TestOutcome:
    """The tests that failed at the base and pass now, run again in two fresh processes, in reverse
    order, the first running each twice: a result that changes is `test-unstable` (state kept
    across calls)."""
    found = test.evidence
    if found is None or found.report is None:
        return test
    try:
        with open(found.report, "rb") as fh:
            now = basetests.outcomes(junit.cases(fh.read(junit.MAX_BYTES + 1)))
    except (OSError, junit.ReportError):
        return test
    flipped = tuple(t.nodeid for t in base.flipped(now))
    if not flipped:
        return test
    test = test._replace(flipped=flipped)  # the literals check reads their base source (checks/literals.py)
    changed: list[tuple[str, str]] = []
    probed: stream.Stream | None = None
    phase(run, "rerunning the tests that flipped")
    for time in ("again-1", "again-2"):  # two fresh processes: pytest cannot run one item twice in a session
        again = os.path.join(reports, time)
        os.mkdir(again)
        first = time == "again-1"
        rerun, said = streamed(run, root, again, flipped, plugins, compare=first, twice=first)
        probed = probed or said
        runs = 2 if first else 1
        changed += stream.unstable(said, flipped, rerun.exit_code, runs) if said is not None else []
        if changed:
            break
    if not changed:
        test = with_note(
            test, f"the {len(flipped)} test(s) that failed at the base passed again, in reverse order, twice"
        )
        return _compared(run, reports, test, flipped, plugins, probed)
    shown = "; ".join(f"{nodeid}: {why}" for nodeid, why in changed[:5])
    why = (
        f"{len(changed)} of the {len(flipped)} test(s) that failed at the base and pass now did not pass "
        f"again in a fresh process, in reverse order, twice ({shown})"
    )
    return test._replace(status=TEST_FAILED, reason=why, findings=(*test.findings, (stream.UNSTABLE, why, None)))


def _compared(
    run: Session,
    reports: str,
    test: TestOutcome,
    flipped: tuple[str, ...],
    plugins: tuple[str, ...] | None,
    now: stream.Stream | None,
) -> TestOutcome:
    """The flipped tests' comparison probe, run once more on the base tree, held against `now`."""
    if now is None:
        return test  # not pytest with a report: no stream, no probe
    base = None
    if run.base_tree is not None:
        where = os.path.join(reports, "base-compared")
        os.mkdir(where)
        _, base = streamed(run, run.work.hold(run.base_tree), where, flipped, plugins, compare=True)
    return comparisons.judged(test, flipped, now, base, run.changed)
