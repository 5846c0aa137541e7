"""Read a JUnit XML test report safely: bounded size, no DOCTYPE (so no entities, external or
internal), counts from the <testcase> elements and the suites' own totals, whichever is worse."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import NamedTuple

MAX_BYTES = 64 << 20


class Counts(NamedTuple):
    tests: int  # test cases executed: not skipped
    failures: int
    errors: int
    skipped: int


class ReportError(Exception):
    """The report is not a JUnit XML report score-diff will read."""


def parse(data: bytes) -> Counts:
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
    cases = list(root.iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None)
    errored = sum(1 for c in cases if c.find("error") is not None and c.find("failure") is None)
    skipped = sum(1 for c in cases if c.find("skipped") is not None)
    suites = [root, *root.iter("testsuite")] if root.tag == "testsuite" else list(root.iter("testsuite"))
    failed = max(failed, _total(suites, "failures"))
    errored = max(errored, _total(suites, "errors"))
    return Counts(len(cases) - skipped, failed, errored, skipped)


def _total(suites: list[ET.Element], attribute: str) -> int:
    total = 0
    for suite in {id(s): s for s in suites}.values():
        try:
            total += max(0, int(suite.get(attribute, "0") or "0"))
        except ValueError:
            raise ReportError(f"<testsuite {attribute}={suite.get(attribute)!r}> is not a count") from None
    return total
