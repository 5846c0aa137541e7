"""Markdown review comment: verdict, binding facts, changed paths, violations, test tail.

Also the GitHub step summary (report.github.render_summary reuses `render`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ..codes import CODES
from ..model import FAIL, Result, TestOutcome
from .escape import escape_cell, fenced
from .facts import binding_facts, changed_row, verdict_line


def _heading(result: Result) -> str:
    if result.verdict == FAIL:
        icon = ":x:"
    elif result.shadow and result.violations:
        icon = ":warning:"
    else:
        icon = ":white_check_mark:"
    return f"## {icon} score-diff {verdict_line(result)}"


def _table(header: tuple[str, ...], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(escape_cell(c) for c in row) + " |" for row in rows)
    return lines


def _violations(result: Result) -> list[str]:
    label = "Would-fail violations" if result.shadow else "Violations"
    out = [f"### {label} ({len(result.violations)})", ""]
    if not result.violations:
        return [*out, "None."]
    rows = []
    hinted = any(v.hint or v.fix for v in result.violations)
    for v in result.violations:
        where = f"{v.path}:{v.line}" if v.path and v.line else (v.path or "-")
        title = CODES[v.code].title if v.code in CODES else v.code
        rows.append((v.code, title, where, v.hint, v.message, v.fix) if hinted else (v.code, title, where, v.message))
    header = (
        ("code", "title", "where", "what to do", "message", "fence option")
        if hinted
        else ("code", "title", "where", "message")
    )
    return out + _table(header, rows)


def _test(t: TestOutcome) -> list[str]:
    facts = [f"status: **{t.status}**"]
    if t.argv:
        facts.append(f"argv: {escape_cell(shlex.join(t.argv))}")
    if t.exit_code is not None:
        facts.append(f"exit code: {t.exit_code}")
    if t.status in ("passed", "failed", "timeout"):
        facts.append(f"duration: {t.duration_s:.1f}s")
    if t.reason:
        facts.append(f"reason: {escape_cell(t.reason)}")
    out = ["### Test", "", "; ".join(facts)]
    if t.output_tail:
        out += ["", "Output (tail):", "", fenced(t.output_tail)]
    return out


def render(result: Result) -> str:
    """The whole review comment, sections in reading order."""
    out = [_heading(result), ""]
    if result.description:
        out += [f"**Job:** {escape_cell(result.description)}", ""]
    out += _table(("fact", "value"), binding_facts(result))
    if result.changed:
        out += ["", f"### Changed paths ({len(result.changed)})", ""]
        out += _table(("path", "status", "+/-", "allowed"), [changed_row(c, result) for c in result.changed])
    out += ["", *_violations(result)]
    if result.justifications:
        rows = [(j.path, j.evidence, j.reason, j.rollback) for j in result.justifications]
        out += ["", "### Accepted blast-radius justifications", ""]
        out += _table(("path", "evidence", "reason", "rollback"), rows)
    out += ["", *_test(result.test)]
    if result.warnings:
        out += ["", "### Warnings", ""] + [f"- {escape_cell(w)}" for w in result.warnings]
    return "\n".join(out) + "\n"
