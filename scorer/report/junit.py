"""JUnit XML: one testcase per check, so CI test dashboards show what the gate found.

Codes that mean "could not score" become <error>, other codes <failure>. In shadow
mode a check with violations is <skipped> (it would have failed), so a trial run
does not paint the dashboard red.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from ..codes import CODES
from ..model import TEST_NOT_RUN, TEST_SKIPPED, Result, Violation
from .escape import one_line
from .escape import printable as xml_safe
from .facts import changed_line, justification_line, to_dict

SUITE = "score-diff"
# Every code belongs to exactly one check; tests hold this table and CODES in step.
CHECKS: dict[str, tuple[str, ...]] = {
    "path": ("empty-diff", "unlisted-path", "forbidden-path"),
    "token": ("forbidden-token", "unreadable-encoding"),
    "size": ("too-many-files", "hunk-too-large", "diff-too-large", "file-too-large"),
    "kinds": ("binary-file", "symlink", "submodule"),
    "git-state": ("unmerged", "merge-conflict", "hidden-change", "git-error"),
    "manifest": ("manifest-changed", "manifest-invalid", "manifest-hash-mismatch"),
    "sensitive": ("sensitive-path",),
    "justification": ("bad-justification",),
    "secret": ("secret",),
    "risky-shell": ("risky-shell",),
    "test": (
        "test-failed",
        "test-timeout",
        "test-side-effect",
        "test-weakened",
        "test-empty",
        "test-config-changed",
        "test-envelope",
        "test-envelope-unavailable",
        "test-missing",
        "test-base-unrunnable",
        "test-evidence-tampered",
        "test-unstable",
        "test-lenient-comparison",
        "test-config-unpredicted",
        "runner-shadowed",
    ),
    "fooling-the-tests": (
        "test-runner-detected",
        "constant-equality",
        "special-cased-input",
        "test-runner-reached",
        "flipped-test-special-cased",
    ),
    "internal": ("internal-error",),
}
CHECK_OF_CODE = {code: check for check, codes in CHECKS.items() for code in codes}
OTHER = "other"  # codes newer than this table still get reported, never dropped


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: one_line(v) for k, v in attrs.items()})
    if text:
        el.text = xml_safe(text)
    return el


def group_violations(result: Result) -> dict[str, list[Violation]]:
    """Violations by check, every check present (empty list when it passed)."""
    groups: dict[str, list[Violation]] = {check: [] for check in CHECKS}
    for v in result.violations:
        groups.setdefault(CHECK_OF_CODE.get(v.code, OTHER), []).append(v)
    return groups


def _violation_line(v: Violation) -> str:
    where = f"{v.path}:{v.line}" if v.path and v.line else (v.path or "-")
    line = one_line(f"[{v.code}] {where}: {v.message}")
    return line + (f"\n  -> do: {one_line(v.hint)}" if v.hint else "")


def _outcome(case: ET.Element, violations: list[Violation], result: Result) -> str:
    """Add the failure/error/skipped child; return which one ("" when the check passed)."""
    codes = " ".join(dict.fromkeys(v.code for v in violations))
    text = "\n".join(_violation_line(v) for v in violations)
    summary = f"{len(violations)} violation(s): {codes}"
    if result.shadow:
        _el(case, "skipped", text, message=f"shadow mode, would fail: {summary}")
        return "skipped"
    tag = "error" if any(CODES[v.code].could_not_score for v in violations if v.code in CODES) else "failure"
    _el(case, tag, text, type=codes, message=summary)
    return tag


def _not_evaluated(case: ET.Element, name: str, result: Result) -> str:
    """Mark a check without violations that did not really pass; "" when it did."""
    t = result.test
    if name == "test" and t.status in (TEST_SKIPPED, TEST_NOT_RUN):
        _el(case, "skipped", message=f"test {t.status}" + (f": {t.reason}" if t.reason else ""))
        return "skipped"
    if result.exit_code == 2:
        _el(case, "skipped", message="not evaluated: score-diff could not score this change")
        return "skipped"
    return ""


def _case_output(name: str, result: Result) -> str:
    """What a check saw, for <system-out>: changed paths, justifications, test output."""
    if name == "path":
        return "\n".join(one_line(changed_line(c, result)) for c in result.changed)
    if name == "sensitive":
        return "\n".join(one_line(justification_line(j)) for j in result.justifications)
    return result.test.output_tail if name == "test" else ""


def _properties(suite: ET.Element, report: dict[str, Any]) -> None:
    props = ET.SubElement(suite, "properties")
    scalars = {k: v for k, v in report.items() if not isinstance(v, (dict, list))}
    flat = {**scalars, **report["binding"], **{f"test_{k}": v for k, v in report["test"].items()}}
    flat.pop("test_output_tail")  # carried by the test testcase's <system-out>
    for name, value in flat.items():
        if value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        _el(props, "property", name=name, value=text)


def _testcases(suite: ET.Element, result: Result) -> dict[str, int]:
    """One testcase per check; returns how many failed, errored and were skipped."""
    counts = {"failure": 0, "error": 0, "skipped": 0, "": 0}
    for name, violations in group_violations(result).items():
        time = result.test.duration_s if name == "test" else 0.0
        case = _el(suite, "testcase", classname=SUITE, name=name, time=f"{time:.3f}")
        kind = _outcome(case, violations, result) if violations else _not_evaluated(case, name, result)
        counts[kind] += 1
        if output := _case_output(name, result):
            _el(case, "system-out", output)
    return counts


def to_element(result: Result) -> ET.Element:
    """The <testsuites> tree."""
    zero = {"tests": "0", "failures": "0", "errors": "0"}
    root = ET.Element("testsuites", {"name": SUITE, **zero})
    suite = _el(root, "testsuite", name=SUITE, **zero, skipped="0", time=f"{result.duration_s:.3f}")
    if result.started_at:
        suite.set("timestamp", xml_safe(result.started_at))
    _properties(suite, to_dict(result))
    counts = _testcases(suite, result)
    if result.warnings:
        _el(suite, "system-err", "\n".join(one_line(f"warning: {w}") for w in result.warnings))
    stats = {"tests": sum(counts.values()), "failures": counts["failure"], "errors": counts["error"]}
    for el in (root, suite):
        for key, value in stats.items():
            el.set(key, str(value))
    suite.set("skipped", str(counts["skipped"]))
    return root


def render(result: Result) -> str:
    """JUnit XML text with an XML declaration."""
    root = to_element(result)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
