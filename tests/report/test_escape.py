"""One escaping policy: a hostile path, message, job id, warning and test output rendered in
every format (and the decision log) must never reach the reader raw."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scorer.decision_log import export, format_records, read, record
from scorer.model import FAIL, ChangedPath, Justification, Result, Violation
from scorer.model import TestOutcome as Outcome
from scorer.report import FORMATS, render

# Everything a name may not do to a reader: reorder text (bidi override, isolate, mark),
# hide itself (zero-width, BOM, SGR 8), start a line of its own (LF, CR, NEL, LS, PS), and
# each format's markup: a Markdown image and link, a mention, a workflow command.
RAW = (
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\x1b",
    "\x85",
    "\u2028",
    "\u2029",
    "\x07",
    "\x9b",
)
HOSTILE = "src/" + "".join(RAW) + "gpj.exe\nRESULT: PASS\r::stop-commands::x\n<img src=x>[a](http://x) @org #1|`.py"
JOB = "job\u202eevil\u200d"


def hostile_result() -> Result:
    return Result(
        verdict=FAIL,
        exit_code=1,
        job_id=JOB,
        mode="worktree",
        violations=(
            Violation("unlisted-path", "modified: " + HOSTILE, HOSTILE, 3),
            Violation("forbidden-token", HOSTILE, None),
        ),
        changed=(ChangedPath(HOSTILE, "modified", added=1, removed=1), ChangedPath("ok.py", "added", old_path=HOSTILE)),
        test=Outcome("failed", ("python", HOSTILE), 1, 1.0, "E  assert in " + "".join(RAW), HOSTILE),
        head="a" * 40,
        branch="agent-" + HOSTILE,
        manifest_path=HOSTILE,
        manifest_sha256="b" * 64,
        justifications=(Justification(HOSTILE, HOSTILE + ":1", HOSTILE, HOSTILE),),
        warnings=(HOSTILE,),
        version="0",
        started_at="2026-12-01T00:00:00+00:00",
    )


def _no_raw(out: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in RAW if c in out})
    assert not found, f"raw characters reached the reader: {found}"
    assert "RESULT: PASS" not in [line.strip() for line in out.splitlines()]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_hostile_character_reaches_any_format(fmt: str) -> None:
    out = render(fmt, hostile_result())
    _no_raw(out)
    assert not re.search(r"^\s*::stop-commands::", out, re.M)  # no workflow command of the name's choosing


def test_text_report_keeps_its_verdict_last() -> None:
    assert render("text", hostile_result()).splitlines()[-1] == "RESULT: FAIL"


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_formats_keep_the_real_value_for_machines(fmt: str) -> None:
    data = json.loads(render(fmt, hostile_result()))
    report = data if fmt == "json" else data["runs"][0]["properties"]["scoreDiff"]
    assert report["binding"]["manifest_path"] == HOSTILE
    assert report["job_id"] == JOB


def test_markdown_markup_in_a_name_is_inert() -> None:
    out = render("markdown", hostile_result())
    assert not re.search(r"(?<!\\)<img|(?<!\\)\]\(http|(?<!\\)@org", out)
    assert "\\<img" in out  # shown, escaped


def test_github_lines_are_all_our_own_commands() -> None:
    out = render("github", hostile_result())
    ours = ("::error ", "::group::", "::endgroup::", "::notice ", "::warning ")
    assert all(line.startswith(ours) for line in out.splitlines() if line.startswith("::")), out
    assert all(line.startswith((*ours, "- ")) for line in out.splitlines()), out


def test_junit_is_well_formed_xml() -> None:
    ET.fromstring(render("junit", hostile_result()).encode("utf-8"))


def test_decision_log_text_json_and_export(tmp_path: Path) -> None:
    db = tmp_path / "log.sqlite3"
    assert record(db, hostile_result()) is None
    rows = read(db)
    for fmt in ("text", "json"):
        _no_raw(format_records(rows, fmt))
    out = tmp_path / "export.jsonl"
    export(db, out)
    _no_raw(out.read_text(encoding="utf-8"))
