"""Markdown review comment: verdict, binding facts, changed paths, violations, test tail.

Also the GitHub step summary (render_github.render_summary reuses `render`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from .codes import CODES
from .model import FAIL, ChangedPath, Justification, Result, TestOutcome
from .render import verdict_line

# Characters that start Markdown or HTML markup, GitHub issue references (#1) or
# mentions (@team): escaped, a hostile path cannot become a link, an image, a
# ping or a broken table.
_MARKUP = re.compile(r"([\\`*_\[\]<>|#!~&@])")
_NEWLINE = re.compile(r"\r\n?|\n")
_BACKTICKS = re.compile(r"`+")
# Characters no reader can see or XML 1.0 cannot hold: control bytes (terminal
# colour codes in test output), lone surrogates from undecodable file names.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _show(m: re.Match[str]) -> str:
    cp = ord(m.group(0))
    if 0xDC80 <= cp <= 0xDCFF:  # surrogateescape: show the original byte
        return f"\\x{cp - 0xDC00:02x}"
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def printable(text: str) -> str:
    """`text` with invisible and XML-forbidden characters written as backslash escapes."""
    return _INVISIBLE.sub(_show, text)


def escape_cell(text: str) -> str:
    """Text made safe for one GFM table cell or list item: markup escaped, newlines as <br>."""
    return _NEWLINE.sub("<br>", _MARKUP.sub(r"\\\1", printable(text)))


def fenced(text: str, info: str = "text") -> str:
    """A fenced code block longer than any backtick run inside, so the text cannot close it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{printable(text).rstrip(chr(10))}\n{fence}"


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


def _violations(result: Result) -> list[str]:
    label = "Would-fail violations" if result.shadow else "Violations"
    out = [f"### {label} ({len(result.violations)})", ""]
    if not result.violations:
        return [*out, "None."]
    rows = []
    for v in result.violations:
        where = f"{v.path}:{v.line}" if v.path and v.line else (v.path or "-")
        title = CODES[v.code].title if v.code in CODES else v.code
        rows.append((v.code, title, where, v.message))
    return out + _table(("code", "title", "where", "message"), rows)


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
