"""Facts every format shows, in one place: the verdict line, the binding, the JSON shape."""

from __future__ import annotations

import shlex

from ..model import FAIL, ChangedPath, Justification, Result, TestOutcome, Violation

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any


def could_not_score_line(reason: str) -> str:
    """The verdict of a run that reached none: always a FAIL, with the code that stopped it."""
    return f"RESULT: FAIL (could not score: {reason})"


def verdict_line(result: Result) -> str:
    """The last line of every text report."""
    if result.shadow:
        n = len(result.violations)
        return f"RESULT: PASS (shadow: {n} would-fail)"
    if result.verdict == FAIL:
        if result.exit_code == 2:
            reason = result.violations[0].code if result.violations else "internal-error"
            return could_not_score_line(reason)
        return "RESULT: FAIL"
    if result.test.status == "skipped":
        return "RESULT: PASS (with test skipped)"
    return "RESULT: PASS"


def severity(result: Result) -> str:
    return "would-fail" if result.shadow else "error"


def changed_dict(c: ChangedPath, result: Result) -> dict[str, Any]:
    return {
        "path": c.path,
        "old_path": c.old_path,
        "status": c.status,
        "added": c.added,
        "removed": c.removed,
        "largest_hunk": c.largest_hunk,
        "hunks": len(c.hunks),
        "binary": c.binary,
        "symlink": c.symlink,
        "submodule": c.submodule,
        "untracked": c.untracked,
        "allowed": c.path in result.allowed,
    }


def violation_dict(v: Violation, result: Result) -> dict[str, Any]:
    return {
        "code": v.code,
        "hint": v.hint,
        "path": v.path,
        "line": v.line,
        "message": v.message,
        "fix": v.fix,
        "severity": severity(result),
    }


def test_dict(t: TestOutcome) -> dict[str, Any]:
    return {
        "status": t.status,
        "argv": list(t.argv),
        "exit_code": t.exit_code,
        "duration_s": round(t.duration_s, 3),
        "output_tail": t.output_tail,
        "reason": t.reason,
        "evidence": None if t.evidence is None else t.evidence._asdict(),
        "envelope": None
        if t.envelope is None
        else {k: list(v) if isinstance(v, tuple) else v for k, v in t.envelope._asdict().items()},
    }


def to_dict(result: Result) -> dict[str, Any]:
    """The JSON report (schemas/report.schema.json); every other format carries these facts."""
    return {
        "score_diff_version": result.version,
        "result": result.verdict,
        "exit_code": result.exit_code,
        "shadow": result.shadow,
        "job_id": result.job_id,
        "description": result.description,
        "mode": result.mode,
        "started_at": result.started_at,
        "duration_s": round(result.duration_s, 3),
        "binding": {
            "manifest_path": result.manifest_path,
            "manifest_sha256": result.manifest_sha256,
            "base": result.base,
            "head": result.head,
            "branch": result.branch,
            "change_digest": result.change_digest,
        },
        "changed": [changed_dict(c, result) for c in result.changed],
        "violations": [violation_dict(v, result) for v in result.violations],
        "test": test_dict(result.test),
        "justifications": [j._asdict() for j in result.justifications],
        "warnings": list(result.warnings),
    }


def binding_line(result: Result) -> str:
    """What this verdict is bound to, so a PASS cannot be carried over to another commit."""
    sha = (result.manifest_sha256 or "-")[:64]
    return (
        f"bound to: manifest {result.manifest_path or '-'} sha256 {sha}  base {result.base or '-'}  "
        f"head {result.head or '-'}  changes sha256 {result.change_digest or '-'}"
    )


def binding_facts(result: Result) -> list[tuple[str, str]]:
    """What the verdict is bound to, as (label, value) pairs; "-" where unknown."""
    t = result.test
    facts = [
        ("score-diff version", result.version),
        ("job", result.job_id),
        ("mode", result.mode),
        ("manifest", result.manifest_path),
        ("manifest sha256", result.manifest_sha256),
        ("base", result.base),
        ("head", result.head),
        ("branch", result.branch),
        ("change digest", result.change_digest),
        ("test argv", shlex.join(t.argv) if t.argv else None),
        ("test exit code", None if t.exit_code is None else str(t.exit_code)),
    ]
    return [(label, value or "-") for label, value in facts]


def changed_row(c: ChangedPath, result: Result) -> tuple[str, str, str, str]:
    """(path, status, +/-, allowed yes/no) for one changed path; renames show both sides."""
    name = f"{c.old_path} -> {c.path}" if c.old_path and c.old_path != c.path else c.path
    kinds = [k for k, on in (("binary", c.binary), ("symlink", c.symlink), ("submodule", c.submodule)) if on]
    counts = "binary" if c.binary else f"+{c.added} -{c.removed}"
    return (name, ", ".join([c.status, *kinds]), counts, "yes" if c.path in result.allowed else "no")


def changed_line(c: ChangedPath, result: Result) -> str:
    """One changed path on one plain-text line."""
    name, status, counts, allowed = changed_row(c, result)
    return f"{status} {counts} allowed={allowed} {name}"


def justification_line(j: Justification) -> str:
    """One accepted justification on one plain-text line."""
    return f"justified: {j.path} evidence {j.evidence} reason: {j.reason} rollback: {j.rollback}"
