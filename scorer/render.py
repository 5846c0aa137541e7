"""Renderers: turn one Result into text or JSON. They format; they never decide."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .model import FAIL, ChangedPath, Result, TestOutcome, Violation

# What would let a file name or the test's output rewrite a terminal or a CI log: C0 and C1
# controls (ESC starts cursor moves and SGR 8, which hides everything printed after it; CR
# returns over a line already shown), line and paragraph separators, bidirectional overrides,
# and lone surrogates from undecodable names. Tab stays.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escaped(m: re.Match[str]) -> str:
    char = m.group(0)
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """`text` as one printable line: a name cannot start a line of its own (`RESULT: PASS`,
    a `::workflow-command::`) or hide the verdict after it."""
    return _UNSAFE.sub(_escaped, text)


def printable_lines(text: str) -> str:
    """Multi-line text, each line made printable; a CR that ends a line (CRLF files) is kept."""
    return "\n".join(one_line(line[:-1]) + "\r" if line.endswith("\r") else one_line(line)
                     for line in text.split("\n"))


def verdict_line(result: Result) -> str:
    """The last line of every text report."""
    if result.shadow:
        n = len(result.violations)
        return f"RESULT: PASS (shadow: {n} would-fail)"
    if result.verdict == FAIL:
        if result.exit_code == 2:
            reason = result.violations[0].code if result.violations else "could not score"
            return f"RESULT: FAIL (could not score: {reason})"
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
    return {"code": v.code, "path": v.path, "line": v.line, "message": v.message, "severity": severity(result)}


def test_dict(t: TestOutcome) -> dict[str, Any]:
    return {
        "status": t.status,
        "argv": list(t.argv),
        "exit_code": t.exit_code,
        "duration_s": round(t.duration_s, 3),
        "output_tail": t.output_tail,
        "reason": t.reason,
    }


def to_dict(result: Result) -> dict[str, Any]:
    """The JSON report (schemas/report.schema.json); every other format carries these facts."""
    return {
        "score_diff_version": result.version,
        "result": result.verdict,
        "exit_code": result.exit_code,
        "shadow": result.shadow,
        "job_id": result.job_id,
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


def render_json(result: Result) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


def _changed_rows(result: Result) -> list[str]:
    rows = []
    for c in result.changed:
        name = f"{c.old_path} -> {c.path}" if c.old_path and c.old_path != c.path else c.path
        counts = "binary" if c.binary else f"+{c.added} -{c.removed}"
        flag = "ok" if c.path in result.allowed else "--"
        rows.append((flag, c.status, counts, name))
    widths = [max((len(r[i]) for r in rows), default=0) for i in range(3)]
    return ["  " + "  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]


def _test_line(t: TestOutcome) -> str:
    argv = " ".join(t.argv)
    if t.status in ("passed", "failed", "timeout"):
        return f"test: {t.status} ({argv}, exit {t.exit_code}, {t.duration_s:.1f}s)"
    return f"test: {t.status}" + (f" ({t.reason})" if t.reason else "")


def binding_line(result: Result) -> str:
    """What this verdict is bound to, so a PASS cannot be carried over to another commit."""
    sha = (result.manifest_sha256 or "-")[:64]
    return (f"bound to: manifest sha256 {sha}  base {result.base or '-'}  head {result.head or '-'}  "
            f"changes sha256 {result.change_digest or '-'}")


def render_text(result: Result) -> str:
    """The human report; the last line is always the verdict."""
    out = [f"score-diff {result.version}  job: {result.job_id or '-'}  mode: {result.mode}"]
    if result.exit_code != 2:
        out.append(binding_line(result))
    if result.changed:
        out.append(f"changed paths ({len(result.changed)}):")
        out.extend(_changed_rows(result))
    out.extend(f"warning: {w}" for w in result.warnings)
    for j in result.justifications:
        out.append(f"justified: {j.path}  evidence {j.evidence}  rollback: {j.rollback}")
    label = "WOULD-FAIL" if result.shadow else "FAIL"
    for v in result.violations:
        where = f"{v.path}:{v.line}" if v.path and v.line else (v.path or "-")
        out.append(f"{label} [{v.code}] {where}: {v.message}")
    out.append(_test_line(result.test))
    if result.test.output_tail and result.test.status in ("failed", "timeout"):
        out.append("test output (tail):")
        out.extend("  | " + line for line in result.test.output_tail.splitlines())
    out.append(verdict_line(result))
    return "\n".join(map(one_line, out)) + "\n"


def _lazy(module: str) -> Callable[[Result], str]:
    """Import a format's module only when it is asked for: the hook path stays fast."""

    def render(result: Result) -> str:
        import importlib

        func: Callable[[Result], str] = importlib.import_module(f"scorer.{module}").render
        return func(result)

    return render


RENDERERS: dict[str, Callable[[Result], str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": _lazy("render_sarif"),
    "github": _lazy("render_github"),
    "junit": _lazy("render_junit"),
    "markdown": _lazy("render_markdown"),
}
