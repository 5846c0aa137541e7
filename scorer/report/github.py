"""GitHub Actions workflow commands (annotations) and the job step summary.

Every line this renderer prints starts with a fixed `::command`; all data is
escaped so a path or message can never start a line of its own and smuggle in a
workflow command of its own choosing.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..codes import CODES
from ..model import Result, Violation
from . import markdown
from .escape import escape_data, escape_property
from .facts import binding_facts, changed_line, justification_line, verdict_line


def command(kind: str, message: str, properties: Mapping[str, str | None] | None = None) -> str:
    """One `::kind key=value,...::message` line; None-valued properties are left out."""
    props = properties or {}
    params = ",".join(f"{k}={escape_property(v)}" for k, v in props.items() if v is not None)
    return f"::{kind}{' ' + params if params else ''}::{escape_data(message)}"


def _annotation(v: Violation, kind: str) -> str:
    title = CODES[v.code].title if v.code in CODES else v.code
    props = {
        "file": v.path,
        "line": str(v.line) if v.path and v.line else None,
        "title": f"score-diff [{v.code}] {title}",
    }
    return command(kind, f"{v.message}\nDo: {v.hint}" if v.hint else v.message, props)


def _verdict(result: Result) -> str:
    facts = [f"{label}: {value}" for label, value in binding_facts(result)]
    if result.description:
        facts.insert(0, f"description: {result.description}")
    return command("notice", "\n".join([verdict_line(result), *facts]), {"title": "score-diff verdict"})


def _group(title: str, rows: list[str]) -> list[str]:
    """A collapsed log group; rows are escaped and indented so none can start a command.

    The runner strips leading blanks before looking for `::`, hence the dash.
    """
    if not rows:
        return []
    body = [f"- {escape_data(row)}" for row in rows]
    return [command("group", f"score-diff: {title} ({len(rows)})"), *body, "::endgroup::"]


def render(result: Result) -> str:
    """Annotations for violations and warnings, log groups for the rest, then the verdict."""
    kind = "warning" if result.shadow else "error"
    lines = [_annotation(v, kind) for v in result.violations]
    lines += [command("warning", w, {"title": "score-diff warning"}) for w in result.warnings]
    lines += _group("changed paths", [changed_line(c, result) for c in result.changed])
    justified = [justification_line(j) for j in result.justifications]
    lines += _group("accepted justifications", justified)
    lines.append(_verdict(result))
    return "\n".join(lines) + "\n"


def render_summary(result: Result) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: the same review comment as --format markdown."""
    return markdown.render(result)


def append_step_summary(result: Result, environ: Mapping[str, str]) -> None:
    """Append the summary to the file GITHUB_STEP_SUMMARY names; do nothing outside Actions."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write(render_summary(result))
