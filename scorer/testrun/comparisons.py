"""Comparison types: which classes decided the assertions of the tests that flipped.

A stable test can still pass because the job returned a value whose class says yes: a `str`
equal to any string, a dict that normalises keys, a list equal by length, an object always
true, a container holding everything. The `pytest_report` plugin, with $SCORE_DIFF_COMPARE, runs
a profile hook over each flipped test's call (in the first stability run, and in one run of the
flipped tests on the base tree) and says which classes decided comparisons in the test file's
frames (see the plugin). Here the two records meet: a class that decides now, that neither
decided nor was named by the test module at the base, and that is *job-defined* (its code or its
module is a file the job added or changed, or has no file at all: exec'd code) fails
`test-lenient-comparison`; so does a job-defined `==` / `!=` the base already called, when it is
*loose* now and was not at the base: it said equal to a builtin value, and said so again with each
of that value's elements changed in turn (docs/required-test.md#comparison-types).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

from ..model import TEST_FAILED, TestOutcome
from . import stream

ENV = "SCORE_DIFF_COMPARE"
LENIENT = "test-lenient-comparison"
UNKNOWN = "<unknown>"  # code with no file: exec'd, or a file that vanished


class Record(NamedTuple):
    """What the probe said about one test: class -> (its dunders seen, where they live)."""

    seen: Mapping[str, tuple[frozenset[str], frozenset[str]]]
    named: frozenset[str]  # the classes the test module's globals hold
    tampered: bool  # the hook was switched off, failed, or a line did not parse
    loose: frozenset[str] = frozenset()  # classes whose == / != said equal with the values changed


EMPTY = Record({}, frozenset(), False)


def records(said: stream.Stream) -> dict[str, Record]:
    """Each node id's record, every line for it merged: the process under test can add lines,
    never take back the plugin's (stream.py), so a forged line only adds."""
    found: dict[str, Record] = {}
    for line in said.compared:
        nodeid = str(line.get("cmp"))
        found[nodeid] = _merge(found.get(nodeid, EMPTY), _record(line))
    return found


def _record(line: Mapping[str, object]) -> Record:
    seen, named, tampered = line.get("seen"), line.get("named"), line.get("tampered")
    if not isinstance(seen, list) or not isinstance(named, list) or not isinstance(tampered, bool):
        return EMPTY._replace(tampered=True)
    classes: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    loose: set[str] = set()
    for item in seen:
        if not isinstance(item, dict) or not isinstance(item.get("where"), list):
            return EMPTY._replace(tampered=True)
        if not isinstance(item.get("loose", False), bool):
            return EMPTY._replace(tampered=True)
        cls, dunder = str(item.get("cls")), str(item.get("dunder"))
        old = classes.get(cls, (frozenset(), frozenset()))
        classes[cls] = (old[0] | {dunder}, old[1] | {str(w) for w in item["where"]})
        loose |= {cls} if item.get("loose") else set()
    return Record(classes, frozenset(str(n) for n in named), tampered, frozenset(loose))


def _merge(a: Record, b: Record) -> Record:
    seen = dict(a.seen)
    for cls, (dunders, wheres) in b.seen.items():
        old = seen.get(cls, (frozenset(), frozenset()))
        seen[cls] = (old[0] | dunders, old[1] | wheres)
    return Record(seen, a.named | b.named, a.tampered or b.tampered, a.loose | b.loose)


def lenient(
    now: Mapping[str, Record], base: Mapping[str, Record], flipped: Iterable[str], changed: Collection[str]
) -> list[tuple[str, str]]:
    """(node id, why) for each flipped test a job-defined class now decides, new since the base."""
    found = []
    for nodeid in flipped:
        rec = now.get(nodeid)
        if rec is None or rec.tampered:
            why = "the comparison probe said nothing of it" if rec is None else "the comparison probe was switched off"
            found.append((nodeid, why))
            continue
        then = base.get(nodeid, EMPTY)
        known = set(then.seen) | then.named
        mine = [(c, d) for c, (d, w) in sorted(rec.seen.items()) if _job_defined(w, changed)]
        new = [(c, d) for c, d in mine if c not in known]
        loose = [(c, d) for c, d in mine if c in rec.loose and c not in then.loose]
        if new:
            shown = ", ".join(f"{c} ({' '.join(sorted(d))})" for c, d in new[:3])
            found.append((nodeid, f"decided by {shown}, a class the job defined, where the base compared builtins"))
        elif loose:
            shown = ", ".join(c for c, _ in loose[:3])
            why = (
                f"decided by {shown}, whose == (or !=), in code the job wrote, still says equal with each value changed"
            )
            found.append((nodeid, why))
    return found


def _job_defined(wheres: Collection[str], changed: Collection[str]) -> bool:
    return any(w == UNKNOWN or w in changed for w in wheres)


def judged(
    test: TestOutcome,
    flipped: tuple[str, ...],
    now: stream.Stream,
    base: stream.Stream | None,
    changed: Collection[str],
) -> TestOutcome:
    """`test` failed with `test-lenient-comparison` when a job-defined class decides a flipped test."""
    found = lenient(records(now), records(base) if base is not None else {}, flipped, changed)
    if not found:
        return test
    shown = "; ".join(f"{nodeid}: {why}" for nodeid, why in found[:5])
    why = (
        f"{len(found)} of the {len(flipped)} test(s) that failed at the base pass now because a comparison in the "
        f"test is decided by a class the job defined, not by the values ({shown})"
    )
    return test._replace(status=TEST_FAILED, reason=why, findings=(*test.findings, (LENIENT, why, None)))
