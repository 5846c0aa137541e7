"""Every report format carries every fact of one rich Result, and each is valid for its consumer."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from scorer.codes import CODES
from scorer.model import (
    FAIL,
    PASS,
    ChangedPath,
    Hunk,
    Justification,
    Result,
    Violation,
)
from scorer.model import TestOutcome as Outcome
from scorer.report import FORMATS, render
from scorer.report import escape as render_escape
from scorer.report import github as render_github
from scorer.report import junit as render_junit
from scorer.report import markdown as render_markdown
from scorer.report import sarif as render_sarif

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((ROOT / "tests/schemas/sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

RENDER = {fmt: (lambda result, fmt=fmt: render(fmt, result)) for fmt in FORMATS}
FORMAT_NAMES = sorted(RENDER)

# Paths a hostile or careless job can create; each must survive every format.
SPACE = "docs/a b.md"
UNICODE = "src/ünïcødé ✓.py"
PUNCT = "data/a,b:c%d %0A.txt"
NEWLINE = "weird\nname.txt"
MARKUP = "odd|pipe`tick [x](y) #1.md"
RENAMED_FROM, RENAMED_TO = "src/old name.py", "src/new, name.py"
MANIFEST_SHA = "a1" * 32
BASE = "b2" * 20
HEAD = "c3" * 20
DIGEST = "d4" * 32
VERSION = "9.8.7"
TEST_ARGV = ("python", "-m", "pytest", "tests/a b")
TEST_EXIT = 117

# code -> (path, line): some with both, some with a path only, some with neither.
WHERE: dict[str, tuple[str | None, int | None]] = {
    "unlisted-path": (SPACE, None),
    "forbidden-path": (PUNCT, None),
    "hunk-too-large": (UNICODE, 40),
    "file-too-large": ("img/logo.png", None),
    "forbidden-token": (NEWLINE, 2),
    "binary-file": ("img/logo.png", None),
    "symlink": ("link", None),
    "submodule": ("vendor/lib", None),
    "unmerged": (MARKUP, None),
    "hidden-change": ("src/app.py", None),
    "manifest-changed": ("job_manifest.json", None),
    "sensitive-path": (RENAMED_TO, None),
    "bad-justification": ("docs/why.md", 7),
    "secret": ("src/app.py", 12),
    "risky-shell": ("scripts/install.sh", 3),
}


def rich_result(*, shadow: bool = False) -> Result:
    """One Result with every code, awkward paths, justifications and a failed test."""
    violations = tuple(
        Violation(
            code,
            f"{CODES[code].title}: 42 items, 100% odd, a:b, c\nsecond line",
            *WHERE.get(code, (None, None)),
        )
        for code in CODES
    )
    changed = (
        ChangedPath("src/app.py", "modified", added=3, removed=1, hunks=(Hunk(1, 1, 1, 3),)),
        ChangedPath(SPACE, "added", added=10),
        ChangedPath(UNICODE, "modified", added=50, removed=30, hunks=(Hunk(40, 30, 40, 50),)),
        ChangedPath(PUNCT, "added", added=1),
        ChangedPath(NEWLINE, "added", added=2),
        ChangedPath(MARKUP, "unmerged"),
        ChangedPath("img/logo.png", "modified", binary=True, size=2_000_000),
        ChangedPath("link", "added", symlink=True, symlink_target="/etc/passwd"),
        ChangedPath("vendor/lib", "modified", submodule=True),
        ChangedPath(RENAMED_TO, "renamed", old_path=RENAMED_FROM, added=1, removed=1),
    )
    test = Outcome("failed", TEST_ARGV, TEST_EXIT, 3.25, "E   assert 1 == 2\n```\n\x1b[31mFAILED\x1b[0m | x\n")
    justifications = (
        Justification("deploy/prod.yml", "docs/why.md:7", "rotate key | now", "git revert `abc`"),
        Justification("::stop-commands::pwn", "docs/why.md:8", "a name that looks like a command", "-"),
    )
    return Result(
        verdict=PASS if shadow else FAIL,
        exit_code=0 if shadow else 1,
        job_id="job-7",
        mode="range",
        violations=violations,
        changed=changed,
        test=test,
        base=BASE,
        head=HEAD,
        branch="agent-fix",
        change_digest=DIGEST,
        manifest_path="job_manifest.json",
        manifest_sha256=MANIFEST_SHA,
        allowed=frozenset({"src/app.py", SPACE}),
        justifications=justifications,
        warnings=("manifest has no test_timeout_s; using 600",),
        shadow=shadow,
        duration_s=4.5,
        version=VERSION,
        started_at="2024-05-01T12:00:00Z",
    )


# --- what a reader of each format gets back -------------------------------------------------

_GITHUB_LINE = re.compile(r"::(\w+)(?: ([^:]*))?::(.*)")
_GITHUB_ESCAPE = re.compile(r"%(25|0D|0A|3A|2C)")


def unescape_github(text: str) -> str:
    return _GITHUB_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def parse_github(out: str) -> list[tuple[str, dict[str, str], str]]:
    """Each workflow command as (kind, properties, message), unescaped as the runner does.

    Plain log lines are allowed only inside a group; they come back as kind "log".
    """
    commands: list[tuple[str, dict[str, str], str]] = []
    in_group = False
    for line in out.splitlines():
        m = _GITHUB_LINE.fullmatch(line)
        if not m:
            assert in_group and line.startswith("- "), f"stray line: {line!r}"
            commands.append(("log", {}, unescape_github(line[2:])))
            continue
        in_group = {"group": True, "endgroup": False}.get(m.group(1), in_group)
        props = dict(p.split("=", 1) for p in m.group(2).split(",")) if m.group(2) else {}
        commands.append((m.group(1), {k: unescape_github(v) for k, v in props.items()}, unescape_github(m.group(3))))
    return commands


def _json_strings(node: object) -> list[str]:
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in (k, *_json_strings(v))]
    if isinstance(node, list):
        return [s for item in node for s in _json_strings(item)]
    return [node if isinstance(node, str) else json.dumps(node)]


def readable(fmt: str, out: str) -> str:
    """The facts of a report as its consumer reads them, one string to search."""
    if fmt == "json":
        return "\n".join(_json_strings(json.loads(out)))
    if fmt == "sarif":
        strings = _json_strings(json.loads(out))
        return "\n".join(strings + [unquote(s) for s in strings])
    if fmt == "junit":
        root = ET.fromstring(out.encode("utf-8"))
        return "\n".join(t for el in root.iter() for t in (*el.attrib.values(), el.text or ""))
    if fmt == "github":
        return "\n".join(part for _, props, msg in parse_github(out) for part in (*props.values(), msg))
    return out


def as_written(fmt: str, fact: str) -> str:
    """How `fact` looks once the format has made it safe."""
    if fmt == "markdown":
        return render_escape.escape_cell(fact)
    if fmt in ("text", "junit"):  # junit: names and messages are single lines, only output keeps lines
        return render_escape.one_line(fact)
    return fact


def facts_of(result: Result) -> list[str]:
    out = [v.code for v in result.violations] + [v.path for v in result.violations if v.path]
    out += [p for c in result.changed for p in c.paths]
    out += [f for j in result.justifications for f in (j.path, j.evidence)]
    return out + list(result.warnings)


def binding_of(result: Result) -> list[str]:
    assert result.manifest_sha256 and result.base and result.head
    t = result.test
    return [
        result.manifest_sha256,
        result.base,
        result.head,
        result.change_digest,
        result.version,
        str(t.exit_code),
        *t.argv,
    ]


# --- nothing dropped ------------------------------------------------------------------------


@pytest.mark.parametrize("shadow", [False, True])
@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_every_code_path_justification_and_warning_survives(fmt, shadow):
    result = rich_result(shadow=shadow)
    text = readable(fmt, RENDER[fmt](result))
    missing = [f for f in facts_of(result) if as_written(fmt, f) not in text]
    assert missing == []


@pytest.mark.parametrize("shadow", [False, True])
@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_every_binding_fact_survives(fmt, shadow):
    result = rich_result(shadow=shadow)
    text = readable(fmt, RENDER[fmt](result))
    missing = [f for f in binding_of(result) if as_written(fmt, f) not in text]
    assert missing == []


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_empty_pass_renders(fmt):
    result = Result(verdict=PASS, exit_code=0, job_id=None, mode="worktree", version=VERSION)
    assert RENDER[fmt](result).endswith("\n")


# --- SARIF ----------------------------------------------------------------------------------


def _validate_sarif(out: str) -> dict:
    log = json.loads(out)
    validator = jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    validator.validate(log)
    return log


@pytest.mark.parametrize("shadow", [False, True])
def test_sarif_validates_and_locates_every_violation(shadow):
    result = rich_result(shadow=shadow)
    run = _validate_sarif(render_sarif.render(result))["runs"][0]
    results = run["results"]
    assert [r["ruleId"] for r in results] == list(CODES)
    assert {r["level"] for r in results} == {"note" if shadow else "error"}
    rules = run["tool"]["driver"]["rules"]
    for r in results:
        rule = rules[r["ruleIndex"]]
        assert rule["id"] == r["ruleId"]
        assert rule["helpUri"] == f"https://github.com/score-diff/score-diff/blob/main/docs/codes.md#code-{r['ruleId']}"
        assert len(r["locations"]) == 1  # code scanning drops results without a location


def test_sarif_locations_round_trip_paths_and_lines():
    result = rich_result()
    results = json.loads(render_sarif.render(result))["runs"][0]["results"]
    for v, r in zip(result.violations, results, strict=True):
        physical = r["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert unquote(physical["artifactLocation"]["uri"]) == (v.path or result.manifest_path)
        assert physical.get("region", {}).get("startLine") == (v.line if v.path else None)


def test_sarif_binds_run_to_the_facts():
    result = rich_result()
    run = json.loads(render_sarif.render(result))["runs"][0]
    facts = run["properties"]["scoreDiff"]
    assert facts["binding"]["manifest_sha256"] == MANIFEST_SHA
    assert (facts["binding"]["base"], facts["binding"]["head"]) == (BASE, HEAD)
    assert facts["test"]["argv"] == list(TEST_ARGV) and facts["test"]["exit_code"] == TEST_EXIT
    assert run["tool"]["driver"]["version"] == VERSION
    assert run["invocations"][0] == {
        "executionSuccessful": True,
        "exitCode": 1,
        "startTimeUtc": "2024-05-01T12:00:00Z",
        "toolExecutionNotifications": [{"level": "warning", "message": {"text": result.warnings[0]}}],
    }


def test_sarif_without_manifest_path_omits_location_for_pathless_violation():
    result = rich_result()._replace(manifest_path="/abs/job_manifest.json")
    results = json.loads(render_sarif.render(result))["runs"][0]["results"]
    pathless = [r for r, v in zip(results, result.violations, strict=True) if not v.path]
    assert pathless and all("locations" not in r for r in pathless)


def _prints(result: Result) -> list[str]:
    return [
        r["partialFingerprints"][render_sarif.FINGERPRINT_KEY]
        for r in render_sarif.to_sarif(result)["runs"][0]["results"]
    ]


def test_fingerprints_are_stable_unique_and_line_independent():
    result = rich_result()
    first = _prints(result)
    assert first == _prints(rich_result())
    assert len(set(first)) == len(first)
    moved = tuple(v._replace(line=v.line + 5 if v.line else None) for v in result.violations)
    assert _prints(result._replace(violations=moved)) == first


def test_fingerprints_keep_same_shaped_violations_apart():
    twice = (
        Violation("hunk-too-large", "hunk of 90 lines", "a.py", 1),
        Violation("hunk-too-large", "hunk of 95 lines", "a.py", 50),
    )
    result = rich_result()._replace(violations=twice)
    assert len(set(_prints(result))) == 2


def test_undecodable_path_bytes_survive_sarif_and_junit():
    path = "bad\udcff name.txt"  # a file name git gave us as bytes that are not UTF-8
    result = rich_result()._replace(violations=(Violation("unlisted-path", "x", path),))
    sarif = render_sarif.render(result)
    sarif.encode("ascii")
    (location,) = json.loads(sarif)["runs"][0]["results"][0]["locations"]
    uri = location["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "bad%FF%20name.txt"
    junit = ET.fromstring(render_junit.render(result).encode("utf-8"))
    assert "[unlisted-path] bad\\xff name.txt: x" in junit.find(".//failure").text


# --- GitHub ---------------------------------------------------------------------------------


@pytest.mark.parametrize("shadow", [False, True])
def test_github_annotations_round_trip(shadow):
    result = rich_result(shadow=shadow)
    commands = parse_github(render_github.render(result))
    assert [kind for kind, _, _ in commands].count("group") == 2
    annotations = commands[: len(result.violations)]
    for v, (kind, props, message) in zip(result.violations, annotations, strict=True):
        assert kind == ("warning" if shadow else "error")
        assert message == v.message
        assert props.get("file") == v.path
        assert props.get("line") == (str(v.line) if v.path and v.line else None)
        assert f"[{v.code}]" in props["title"]
    kind, props, message = commands[-1]
    assert kind == "notice" and message.splitlines()[0].startswith("RESULT: ")


def test_github_escaping_is_exact():
    assert render_github.escape_data("100%\r\n::x") == "100%25%0D%0A::x"
    assert render_github.escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"
    hostile = "x\n::add-mask::secret %0A"
    assert unescape_github(render_github.escape_property(hostile)) == hostile


def test_step_summary_appends_only_when_asked(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    result = rich_result()
    render_github.append_step_summary(result, {"GITHUB_STEP_SUMMARY": str(summary)})
    render_github.append_step_summary(result, {})
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + render_github.render_summary(result)


# --- JUnit ----------------------------------------------------------------------------------


def test_every_code_maps_to_exactly_one_check():
    mapped = [code for codes in render_junit.CHECKS.values() for code in codes]
    assert sorted(mapped) == sorted(CODES)


def _junit(result: Result) -> ET.Element:
    root = ET.fromstring(render_junit.render(result).encode("utf-8"))
    assert root.tag == "testsuites"
    return root


def test_junit_has_the_usual_fields_and_counts():
    suite = _junit(rich_result()).find("testsuite")
    assert {"name", "tests", "failures", "errors", "skipped", "time", "timestamp"} <= set(suite.attrib)
    cases = suite.findall("testcase")
    assert all({"classname", "name", "time"} <= set(c.attrib) for c in cases)
    assert [c.get("name") for c in cases] == list(render_junit.CHECKS)
    failures, errors = suite.findall("testcase/failure"), suite.findall("testcase/error")
    assert int(suite.get("tests")) == len(cases)
    assert (int(suite.get("failures")), int(suite.get("errors"))) == (len(failures), len(errors))
    errored = {c.get("name") for c in cases if c.find("error") is not None}
    assert errored == {render_junit.CHECK_OF_CODE[c] for c, code in CODES.items() if code.could_not_score}


def test_junit_failures_carry_all_their_violations():
    result = rich_result()
    suite = _junit(result).find("testsuite")
    for v in result.violations:
        case = suite.find(f"testcase[@name='{render_junit.CHECK_OF_CODE[v.code]}']")
        outcome = case.find("failure") if case.find("failure") is not None else case.find("error")
        assert v.code in outcome.get("type").split()
        assert f"[{v.code}]" in outcome.text


def test_junit_shadow_skips_instead_of_failing():
    suite = _junit(rich_result(shadow=True)).find("testsuite")
    assert (suite.get("failures"), suite.get("errors")) == ("0", "0")
    assert int(suite.get("skipped")) == len(render_junit.CHECKS)


def test_junit_skipped_test_and_could_not_score():
    skipped = Result(PASS, 0, None, "range", test=Outcome("skipped", reason="--skip-test"))
    suite = _junit(skipped).find("testsuite")
    assert suite.find("testcase[@name='test']/skipped").get("message") == "test skipped: --skip-test"
    broken = Result(FAIL, 2, None, "range", violations=(Violation("git-error", "git exploded"),))
    suite = _junit(broken).find("testsuite")
    assert suite.find("testcase[@name='git-state']/error") is not None
    assert suite.find("testcase[@name='path']/skipped").get("message").startswith("not evaluated")


def test_junit_properties_bind_the_result():
    suite = _junit(rich_result()).find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["manifest_sha256"] == MANIFEST_SHA and props["change_digest"] == DIGEST
    assert (props["base"], props["head"], props["score_diff_version"]) == (BASE, HEAD, VERSION)
    assert json.loads(props["test_argv"]) == list(TEST_ARGV) and props["test_exit_code"] == str(TEST_EXIT)


# --- Markdown -------------------------------------------------------------------------------

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def test_markdown_tables_keep_their_columns():
    out = render_markdown.render(rich_result())
    rows = [line for line in out.splitlines() if line.startswith("|")]
    widths = {len(_UNESCAPED_PIPE.findall(line)) for line in rows}
    assert widths == {3, 5}  # facts table has 2 columns, the others 4


def test_markdown_fence_outlasts_backticks_in_test_output():
    out = render_markdown.render(rich_result())
    assert "````text\nE   assert 1 == 2\n```\n\\x1b[31mFAILED\\x1b[0m | x\n````" in out


def test_markdown_heading_shows_verdict():
    assert render_markdown.render(rich_result()).startswith("## :x: score-diff RESULT: FAIL\n")
    shadow = render_markdown.render(rich_result(shadow=True))
    assert shadow.startswith(f"## :warning: score-diff RESULT: PASS (shadow: {len(CODES)} would-fail)\n")


# --- the documented examples are real output ------------------------------------------------

_EXAMPLE = re.compile(r"<!-- example: (\w+) -->\n(`{3,})[^\n]*\n(.*?)\n\2\n", re.S)


def example_result() -> Result:
    """The small Result docs/formats.md shows in every format."""
    return Result(
        verdict=FAIL,
        exit_code=1,
        job_id="fix-typo",
        mode="range",
        violations=(
            Violation(
                "unlisted-path",
                "setup.py is not in allowed_paths",
                "setup.py",
                hint="undo your change to setup.py (modified): run `git restore --source=4b825dc642cb6eb9a060e54bf8d6928"
                "8fbee4904 --staged --worktree -- setup.py && git commit -m 'Undo the change to setup.py'`; this "
                "job may change only: README.md",
                fix="if the job needs setup.py, add it to allowed_paths: 'setup.py'",
            ),
        ),
        description="Fix the typo in README.md.",
        changed=(
            ChangedPath("README.md", "modified", added=1, removed=1),
            ChangedPath("setup.py", "modified", added=2),
        ),
        test=Outcome("passed", ("pytest", "-q"), 0, 1.2),
        base="4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        head="9fceb02d0ae598e95dc970b74767f19372d61af8",
        branch="agent-fix-typo",
        change_digest="5e1f0c3d6b2a4978e8d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6978877665544aa",
        manifest_path="job_manifest.json",
        manifest_sha256="0c8f1a3e5b7d9f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
        allowed=frozenset({"README.md"}),
        duration_s=1.4,
        version="0.1.0",
        started_at="2024-05-01T12:00:00Z",
    )


def test_docs_examples_are_exact_output():
    docs = (ROOT / "docs/formats.md").read_text(encoding="utf-8")
    examples = {m.group(1): m.group(3) + "\n" for m in _EXAMPLE.finditer(docs)}
    assert sorted(examples) == ["github", "junit", "markdown", "sarif"]
    for fmt, shown in examples.items():
        assert shown == RENDER[fmt](example_result()), fmt


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_a_code_newer_than_the_tables_is_still_reported(fmt):
    result = rich_result()._replace(violations=(Violation("brand-new-check", "msg", "a.py", 3),))
    assert "brand-new-check" in readable(fmt, RENDER[fmt](result))


def test_could_not_score_is_an_unsuccessful_invocation():
    broken = Result(FAIL, 2, None, "range", violations=(Violation("git-error", "git exploded"),))
    log = _validate_sarif(render_sarif.render(broken))
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False
