"""Read a JUnit XML test report safely: bounded size, no DOCTYPE (so no entities, external or
internal), counts from the <testcase> elements and the suites' own totals, whichever is worse."""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from typing import NamedTuple

MAX_BYTES = 64 << 20


class Counts(NamedTuple):
    tests: int  # test cases executed: not skipped
    failures: int
    errors: int
    skipped: int


class Case(NamedTuple):
    """One <testcase>: how pytest names it, and what became of it."""

    classname: str
    name: str
    outcome: str  # "passed", "failed", "error", "skipped" or "xfailed"


class ReportError(Exception):
    """The report is not a JUnit XML report score-diff will read."""


def parse(data: bytes) -> Counts:
    return counts(_root(data))


def cases(data: bytes) -> list[Case]:
    """Every <testcase> of the report, in order."""
    return [_case(c) for c in _root(data).iter("testcase")]


def _case(c: ET.Element) -> Case:
    skipped = c.find("skipped")
    if c.find("failure") is not None:
        outcome = "failed"
    elif c.find("error") is not None:
        outcome = "error"
    elif skipped is not None:
        # pytest's junitxml: an xfailed test is <skipped type="pytest.xfail">, a strict xpass a
        # <skipped> with this message (_pytest/junitxml.py, append_skipped and append_failure)
        xfail = skipped.get("type") == "pytest.xfail" or skipped.get("message", "").startswith("xfail-marked")
        outcome = "xfailed" if xfail else "skipped"
    else:
        outcome = "passed"
    return Case(c.get("classname", ""), c.get("name", ""), outcome)


# One run's report is read three times (the evidence, the stream's agreement, the base's tests):
# the tree is parsed once, for bytes equal to the last ones (a report that fails to parse is never
# kept), and no caller changes a tree.
@functools.lru_cache(maxsize=1)
def _root(data: bytes) -> ET.Element:
    return _parsed(data)


def _parsed(data: bytes) -> ET.Element:
    if len(data) > MAX_BYTES:
        raise ReportError(f"larger than {MAX_BYTES >> 20} MiB")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ReportError("it has a DOCTYPE or an entity declaration, which a test report never needs")
    try:
        root = ET.fromstring(data)  # noqa: S314 - no DOCTYPE, so no entity can be declared or fetched
    except ET.ParseError as exc:
        raise ReportError(f"not well-formed XML ({exc})") from exc
    if root.tag not in ("testsuites", "testsuite"):
        raise ReportError(f"its root element is <{root.tag}>, not <testsuites> or <testsuite>")
    return root


def counts(root: ET.Element) -> Counts:
    tests = list(root.iter("testcase"))
    failed = sum(1 for c in tests if c.find("failure") is not None)
    errored = sum(1 for c in tests if c.find("error") is not None and c.find("failure") is None)
    skipped = sum(1 for c in tests if c.find("skipped") is not None)
    suites = [root, *root.iter("testsuite")] if root.tag == "testsuite" else list(root.iter("testsuite"))
    failed = max(failed, _total(suites, "failures"))
    errored = max(errored, _total(suites, "errors"))
    return Counts(len(tests) - skipped, failed, errored, skipped)


def _total(suites: list[ET.Element], attribute: str) -> int:
    total = 0
    for suite in {id(s): s for s in suites}.values():
        try:
            total += max(0, int(suite.get(attribute, "0") or "0"))
        except ValueError:
            raise ReportError(f"<testsuite {attribute}={suite.get(attribute)!r}> is not a count") from None
    return total
