"""The text report: what a person, a hook's output and an agent's tool result show."""

from __future__ import annotations

from ..model import Result, TestOutcome
from .escape import one_line
from .facts import binding_line, verdict_line


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
        ran = f", {t.evidence.tests} tests ran" if t.evidence is not None and t.evidence.tests is not None else ""
        return f"test: {t.status} ({argv}, exit {t.exit_code}, {t.duration_s:.1f}s{ran})"
    return f"test: {t.status}" + (f" ({t.reason})" if t.reason else "")


def render(result: Result) -> str:
    """The human report; the last line is always the verdict."""
    out = [f"score-diff {result.version}  job: {result.job_id or '-'}  mode: {result.mode}"]
    if result.description:
        out.append(f"description: {result.description}")
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
        if v.hint:  # what the agent reads next: the one thing to do about it
            out.append(f"  -> do: {v.hint}")
    out.append(_test_line(result.test))
    if result.test.output_tail and result.test.status in ("failed", "timeout"):
        out.append("test output (tail):")
        out.extend("  | " + line for line in result.test.output_tail.splitlines())
    out.append(verdict_line(result))
    return "\n".join(map(one_line, out)) + "\n"
