"""README.md, docs/*.md and benchmarks/README.md show only commands, flags, links and manifests that are real."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from scorer.main import COMMANDS, _command, main, parser
from scorer.manifest.load import load_manifest
from tests.testing.docs import (
    DOCS,
    FENCE,
    MINIMAL,
    README,
    ROOT,
    SCHEMA,
    SHELL_LANGS,
    block,
    blocks,
    console,
    json_manifests,
    read,
    shape,
)

IDS = [str(p.relative_to(ROOT)) for p in DOCS]

INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.M)
HTML_ID = re.compile(r'<a id="([^"]+)"></a>')
# score-diff as a command, not score-diff-commit-msg, score-diff.sarif or the score-diff/score-diff repository.
INVOCATION = re.compile(r"(?<![\w./=-])score-diff(?![\w./-])")
LONG_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def prose(text: str) -> str:
    """The text outside fenced blocks."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lower-cased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = read(path)
    found: set[str] = set(HTML_ID.findall(text))
    seen: dict[str, int] = {}
    for m in HEADING.finditer(prose(text)):
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def command_lines(text: str) -> list[str]:
    """Every line of a shell or synopsis block (continuations joined) and every inline code span."""
    lines: list[str] = []
    for lang, body in blocks(text):
        if lang not in SHELL_LANGS:
            continue
        body = body.replace("\\\n", " ")
        if lang == "console":
            lines += [line[2:] for line in body.splitlines() if line.startswith("$ ")]
        else:
            for line in body.splitlines():
                if line[:1].isspace() and lines and not line.lstrip().startswith("$"):
                    lines[-1] += " " + line.strip()  # a synopsis continuation
                else:
                    lines.append(line)
    lines += INLINE.findall(prose(text))
    return [line for line in lines if "::" not in line]  # workflow commands in examples are output


def invocations(text: str) -> list[tuple[str, str]]:
    """(subcommand, the rest of the command) for every score-diff command shown."""
    found = []
    for line in command_lines(text):
        for m in INVOCATION.finditer(line):
            rest = re.split(r"\s(?:\||&&|;|#)|\)", line[m.end() :], maxsplit=1)[0]  # `a|b` is a choice
            words = rest.split()
            first = words[0].strip("[]") if words else ""
            name = first if first in COMMANDS else "score"
            found.append(("guard install" if words[:2] == ["guard", "install"] else name, rest))
    return found


def flags_of(name: str) -> set[str]:
    if name == "guard install":  # a parser of its own, built by the command; read its --help
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["guard", "install", "--help"])
        return set(LONG_FLAG.findall(out.getvalue())) | {"-h"}
    return {opt for action in parser(name)._actions for opt in action.option_strings}


ALL_FLAGS = frozenset(flag for name in [*COMMANDS, "guard install"] for flag in flags_of(name))


# --- links and anchors ----------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_relative_link_resolves_to_a_file_and_anchor(path):
    broken = []
    for target in LINK.findall(INLINE.sub("", prose(read(path)))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no anchor #{anchor} in {dest.relative_to(ROOT)}")
    assert broken == []


def test_the_slug_matches_githubs():
    assert slug("Markdown (`--format markdown`)") == "markdown---format-markdown"
    assert slug("`sensitive_globs` and `sensitive_exempt`") == "sensitive_globs-and-sensitive_exempt"
    assert slug("Justifications (commit-message trailers)") == "justifications-commit-message-trailers"
    assert slug("Size limits, exactly") == "size-limits-exactly"


def test_readme_links_into_every_docs_page():
    linked = {t.partition("#")[0] for t in LINK.findall(read(README))}
    unlinked = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - linked
    assert unlinked == set(), "add each page to the README's Documentation list"


def test_readme_stays_a_front_door():
    assert len(read(README).splitlines()) <= 300
    text = read(README)
    assert text.index("## Quick start") < text.index("## Development")


# --- commands and flags -----------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_score_diff_command_shown_uses_real_flags(path):
    unknown = [
        (name, flag)
        for name, rest in invocations(read(path))
        for flag in LONG_FLAG.findall(rest)
        if flag not in flags_of(name)
    ]
    assert unknown == []


# Flags of other tools that the docs name in inline code.
OTHER_TOOLS_FLAGS = {
    "--no-verify",
    "--system-site-packages",  # python -m venv
    "--no-ext-diff",
    "--no-textconv",
    "--text",
    "--verbose",
    "--numstat",
    "--raw",
    "--exclude-per-directory",
    "--pathspec-from-file",
    "--no-index",
    "--keep",
    "--profile",
    "--runs",
    "--seed",
    "--cache-dir",
    "--no-literal",
    "--json",
    "--size",
    "--files",
    "--changed",
    "--untracked",
    "--dest",
    "--calls",
    "--baseline",
    "--cold",  # benchmarks/run.py's
    "--tracked",  # benchmarks/guard.py's
    "--junitxml",
    "--junit-xml",
    "--lf",
    "--sw",
    "--nf",  # pytest's, in docs/required-test.md
    "--collect-only",  # pytest's, in docs/required-test.md and codes.md
}


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_flag_named_in_inline_code_exists(path):
    spans = [s for s in INLINE.findall(prose(read(path))) if s.startswith("--")]
    unknown = {flag for s in spans for flag in LONG_FLAG.findall(s)} - ALL_FLAGS - OTHER_TOOLS_FLAGS
    assert unknown == set()


def test_cli_doc_names_every_subcommand_and_option():
    doc = read(ROOT / "docs/cli.md")
    for name in [*COMMANDS, "guard install"]:
        if name != "score":
            assert f"score-diff {name}" in doc, name
        for flag in flags_of(name) - {"-h", "--help"}:
            assert flag in doc, (name, flag)


@pytest.mark.parametrize("script", ["run", "generate", "guard"])
def test_benchmark_commands_use_real_flags(script):
    source = read(ROOT / f"benchmarks/{script}.py")
    shown = [line for path in DOCS for line in command_lines(read(path)) if f"benchmarks/{script}.py" in line]
    assert shown
    for line in shown:
        for flag in LONG_FLAG.findall(line.split(f"benchmarks/{script}.py", 1)[1].split("#")[0]):
            assert f'"{flag}"' in source, (line, flag)


def test_benchmark_readme_names_the_imports_the_harness_times():
    [imports] = re.findall(r'^RUNTIME_IMPORTS = "([^"]+)"$', read(ROOT / "benchmarks/run.py"), re.M)
    assert f'`python -c "{imports}"`, the `RUNTIME_IMPORTS` of `run.py`' in read(ROOT / "benchmarks/README.md")


def test_readme_install_and_demo_commands():
    text = read(README)
    assert "pip install . && score-diff demo" in text
    assert re.search(r"pip install [^\n]*'git\+https://github\.com/score-diff/score-diff@<commit>'", text)
    assert "pip install pre-commit /path/to/score-diff" in text


# --- hook configurations ----------------------------------------------------------------


HOOKS = {h["id"]: h for h in yaml.safe_load(read(ROOT / ".pre-commit-hooks.yaml"))}


def hook_configs() -> list[tuple[str, dict]]:
    found = []
    for path in DOCS:
        for lang, body in blocks(read(path)):
            if lang == "yaml" and "repos:" in body:
                found.append((str(path.relative_to(ROOT)), yaml.safe_load(body)))
    return found


def test_docs_show_hook_configs():
    assert any(where == "README.md" for where, _ in hook_configs())


@pytest.mark.parametrize(("where", "config"), hook_configs(), ids=[w for w, _ in hook_configs()])
def test_every_hook_config_shown_would_run(where, config):
    """Each hook's argv parses as pre-commit would call it: commit-msg hooks get the message file
    appended, other stages must not get file names (a stray word is a usage error)."""
    assert set(config["default_install_hook_types"]) == {"pre-commit", "commit-msg"}
    for repo in config["repos"]:
        for hook in repo["hooks"]:
            merged = {**HOOKS[hook["id"]], **hook}
            assert merged["always_run"] is True
            stages = merged["stages"]
            argv = shlex.split(merged["entry"]) + [str(a) for a in merged.get("args", [])]
            assert argv[0] == "score-diff"
            extra = ["MESSAGE_FILE"] if stages == ["commit-msg"] else []
            if repo["repo"] == "local":
                assert merged["language"] == "system"
                assert merged.get("pass_filenames", True) is bool(extra), hook["id"]
            name, rest = _command(argv[1:])
            parser(name).parse_args(rest + extra)  # raises UsageError on a flag that does not exist


def test_readme_local_hooks_mirror_the_published_ones():
    [config] = [c for where, c in hook_configs() if where == "README.md"]
    [local] = [r for r in config["repos"] if r["repo"] == "local"]
    shown = {h["id"]: h for h in local["hooks"]}
    assert set(shown) == set(HOOKS)
    for hook_id, hook in HOOKS.items():
        assert f"id: {hook_id}" in read(README)
        assert shown[hook_id]["entry"] == hook["entry"]
        assert shown[hook_id]["stages"] == hook["stages"]


# --- manifests shown --------------------------------------------------------------------


def test_docs_show_manifests():
    assert any(where == "README.md" and "job_id" in data for where, data in json_manifests())


@pytest.mark.parametrize(("where", "data"), json_manifests(), ids=[w for w, _ in json_manifests()])
def test_every_manifest_shown_validates(where, data, tmp_path):
    manifest = data if "job_id" in data else {**MINIMAL, **data}
    jsonschema.Draft202012Validator(SCHEMA).validate(manifest)
    (tmp_path / "m.json").write_text(json.dumps(manifest), encoding="utf-8")
    load_manifest(tmp_path / "m.json")  # the loader's own checks: globs and regexes compile


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_json_block_parses(path):
    for lang, body in blocks(read(path)):
        if lang == "json":
            json.loads(body)


# --- the quick start, followed literally ------------------------------------------------


def _normalised(text: str, root: Path) -> str:
    text = text.replace(str(root), "/home/you/project")
    text = re.sub(r"\b[0-9a-f]{7,64}…?", "<hex>", text)
    return re.sub(r"\.{3,}", "...", text).strip()


@pytest.mark.slow
def test_the_quick_start_works_as_written(tmp_path, monkeypatch):
    """From nothing to a blocked agent commit, doing only what the README says, with the real pre-commit."""
    import os
    import shutil
    import subprocess
    import sys

    bindir = str(Path(sys.executable).parent)
    if not shutil.which("score-diff", path=bindir) or not shutil.which("pre-commit", path=bindir):
        pytest.skip("score-diff and pre-commit are not installed beside this interpreter")
    root = tmp_path / "project"
    root.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(PATH=bindir + os.pathsep + env["PATH"], PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))

    def sh(command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(command, shell=True, cwd=root, env=env, capture_output=True, text=True)
        assert not check or proc.returncode == 0, (command, proc.stdout, proc.stderr)
        return proc

    # The project before score-diff: a buggy function and its test, on main.
    (root / "src").mkdir()
    (root / "tests").mkdir()
    (root / "src/pricing.py").write_text("def discount(price, percent):\n    return price * percent\n")
    (root / "tests/test_pricing.py").write_text(
        "from src.pricing import discount\n\n\ndef test_discount():\n    assert discount(200, 10) == 180\n"
    )
    sh("git init -q -b main && git add -A && git commit -q -m 'The project'")

    # Steps 1-5.
    (root / ".gitignore").write_text(block(README, "gitignore", ".venv/"))
    (root / "job_manifest.json").write_text(block(README, "json", '"job_id"'))
    [pin], shown = console(README, "score-diff pin")
    assert _normalised(sh(pin).stdout, root) == _normalised(shown, root)
    assert sh(pin).stdout.strip() == shown.replace("/home/you/project", str(root)).strip()  # the digest itself
    [check, _], shown = console(ROOT / "docs/manifest.md", "score-diff check-manifest")
    assert sh(check).stdout + sh("score-diff pin").stdout == shown.replace("/home/you/project", str(root)) + "\n"
    (root / ".pre-commit-config.yaml").write_text(block(README, "yaml", "repos:"))
    sh(block(README, "sh", "Fence for job").replace("\n", " && ").rstrip(" &"))

    # Step 6: the agent fixes the bug and also adds a file nobody named.
    (root / "src/pricing.py").write_text("def discount(price, percent):\n    return price * (100 - percent) / 100\n")
    (root / "src/helpers.py").write_text("x = 1\n")
    commands, shown = console(README, "git switch -c agent-")
    for command in commands[:-1]:
        sh(command)
    blocked = sh(commands[-1], check=False)
    assert blocked.returncode == 1
    assert _normalised(blocked.stdout + blocked.stderr, root) == _normalised(
        shown, root
    )  # git sends hook output to stderr

    # Inside the fence, with the test passing, the commit goes through; then step 7.
    sh("git rm -q --cached src/helpers.py && rm src/helpers.py")
    allowed = sh(commands[-1])
    assert "score-diff (agent job gate)...Passed" in _normalised(allowed.stdout + allowed.stderr, root)
    scored = sh("score-diff --base main")
    assert scored.stdout.rstrip().endswith("RESULT: PASS")


# --- outputs shown in docs/ ---------------------------------------------------------------


VERDICTS = [
    r"RESULT: PASS",
    r"RESULT: PASS \(with test skipped\)",
    r"RESULT: PASS \(shadow: (N|\d+) would-fail\)",
    r"RESULT: FAIL",
    r"RESULT: FAIL \(could not score: (?P<code><code>|[a-z-]+)\)",
    r"RESULT: PASS \(report binds to this merge\)",
    r"RESULT: FAIL \(report does not bind to this merge\)",
]


@pytest.mark.parametrize("path", DOCS, ids=IDS)
def test_every_verdict_line_shown_is_one_score_diff_writes(path):
    from scorer.codes import CODES
    from scorer.report.facts import could_not_score_line

    shown = [s for s in INLINE.findall(prose(read(path))) if s.startswith("RESULT:")]
    shown += [
        line.strip()
        for _, body in blocks(read(path))
        for line in body.splitlines()
        if line.strip().startswith("RESULT:")
    ]
    for line in shown:
        match = next((m for p in VERDICTS if (m := re.fullmatch(p, line))), None)
        assert match, line
        code = match.groupdict().get("code")
        if code and code != "<code>":
            assert code in {"usage", "interrupted"} or CODES[code].could_not_score, line
            assert could_not_score_line(code) == line


def _shown(path: Path, contains: str) -> list[str]:
    [body] = [b for _, b in blocks(read(path)) if contains in b]
    return body.rstrip("\n").splitlines()


def test_shadow_example_is_real_output(repo, monkeypatch):
    from tests.testing.repo import run_cli

    shown = _shown(ROOT / "docs/hooks-and-ci.md", "RESULT: PASS (shadow:")
    assert len(shown) == 4
    repo.write("src/pricing.py", "".join(f"# line {n}\n" for n in range(1, 12)))
    repo.write("tests/test_pricing.py", "".join(f"def test_t{n}():\n    pass\n\n\n" for n in range(3)))
    repo.commit("base")
    repo.write("src/pricing.py", "".join(f"# line {n}\n" for n in range(1, 12)) + "x = eval('1')\n")
    # The argv shown runs pytest: here `python` on PATH is this interpreter, so real pytest runs the
    # three tests and speaks the outcome stream score-diff holds the JUnit report against.
    bindir = repo.scratch / "bin"
    bindir.mkdir()
    (bindir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    (bindir / "python").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    repo.manifest(
        allowed_paths=["src/pricing.py"],
        forbidden_substrings=["eval("],
        mode="shadow",
        required_test=["python", "-m", "pytest", "tests/test_pricing.py", "-q"],
    )
    code, out = run_cli(["--repo", str(repo.root), "--manifest", str(repo.manifest_path), "--no-log"])
    assert code == 0
    lines = out.rstrip("\n").splitlines()
    assert [shape(line) for line in lines[-4:]] == [shape(line) for line in shown]


def test_log_example_is_real_output(repo):
    from tests.testing.repo import run_cli

    shown = _shown(ROOT / "docs/decision-log.md", "violation\n")
    repo.write("src/pricing.py", "a\n")
    repo.write("src/checkout.py", "a\n")
    base = repo.commit("base")
    repo.git("switch", "-q", "-c", "agent-x")
    repo.write("src/pricing.py", "b\n")
    repo.commit("fix")
    repo.manifest(job_id="fix-discount-2026-09-17", allowed_paths=["src/pricing.py"])
    log = repo.scratch / "log.sqlite3"
    assert (
        run_cli(
            ["--repo", str(repo.root), "--manifest", str(repo.manifest_path), "--base", base, "--log-db", str(log)]
        )[0]
        == 0
    )
    repo.write("src/checkout.py", "b\n")
    repo.commit("stray")
    assert (
        run_cli(
            ["--repo", str(repo.root), "--manifest", str(repo.manifest_path), "--base", base, "--log-db", str(log)]
        )[0]
        == 1
    )
    code, out = run_cli(["log", "--repo", str(repo.root), "--log-db", str(log)])
    assert code == 0
    assert [shape(line) for line in out.rstrip("\n").splitlines()] == [shape(line) for line in shown]


def test_action_inputs_table_matches_action_yml():
    action = yaml.safe_load(read(ROOT / "action.yml"))
    doc = read(ROOT / "docs/hooks-and-ci.md")
    rows = dict(re.findall(r"^\| `([\w-]+)` \| ([^|]+) \|", doc, re.M))
    assert set(rows) >= set(action["inputs"])
    for name, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        if default and not default.startswith("${{"):
            assert f"`{default}`" in rows[name], name
    assert set(action["outputs"]) == {"exit-code"} and "Output `exit-code`" in doc


def test_junit_testcase_table_matches_the_renderer():
    from scorer.report.junit import CHECKS

    doc = read(ROOT / "docs/formats.md")
    rows = re.findall(r"^\| `([\w-]+)` \| ((?:`[a-z-]+`(?:, )?)+) \|$", doc, re.M)
    assert {name: tuple(re.findall(r"`([a-z-]+)`", codes)) for name, codes in rows} == {
        name: tuple(codes) for name, codes in CHECKS.items()
    }


def test_export_redaction_examples_are_what_scrub_does():
    import collections

    from scorer.decision_log import scrub

    doc = read(ROOT / "docs/decision-log.md")
    examples = re.findall(r"^\| `(\w+)` \|[^|]+\| `([^`]+)` → `([^`]+)` \|$", doc, re.M)
    assert {kind for kind, _, _ in examples} == {"home", "email", "ip"}
    for kind, before, after in examples:
        counts: collections.Counter[str] = collections.Counter()
        assert scrub(before, counts) == after
        assert set(+counts) == {kind}
    for prose_example in ("`git@github.com` counts as an e-mail", "`1.2.3.4` counts as an IPv4"):
        assert prose_example in doc.replace("\n", " ")
    assert scrub("git@github.com", collections.Counter()) == "<email>"
    assert scrub("1.2.3.4", collections.Counter()) == "<ip>"


def test_module_map_names_every_module_and_subcommand():
    from scorer.main import COMMANDS

    doc = read(ROOT / "docs/development.md")
    for entry in sorted((ROOT / "scorer").iterdir()):
        if entry.name.startswith("__") or entry.suffix not in (".py", ""):
            continue
        named = f"scorer/{entry.name}/" if entry.is_dir() else f"scorer/{entry.name}"
        assert named in doc or f"`{entry.name}`" in doc, f"add {named} to the module map"
    for module in set(COMMANDS.values()):  # name -> module name under scorer/commands/
        assert f"`{module}`" in doc, f"add commands/{module}.py to the module map"


def test_readme_and_teams_name_the_commands_a_failing_tests_hint_names():
    from scorer.feedback.hints import annotate, scene_of
    from scorer.manifest.load import parse_manifest
    from scorer.model import Violation

    manifest = parse_manifest(json.dumps(MINIMAL).encode(), "m")
    scene = scene_of("worktree", [], head="a" * 40, base="BASE", manifest=manifest)
    [failed] = annotate([Violation("test-failed", "the required test failed")], scene)
    named = [c.replace("BASE", "<merge-base>") for c in re.findall(r"`(score-diff test[^`]*)`", failed.hint)]
    assert named == ["score-diff test --since <merge-base>", "score-diff test --spec --since <merge-base>"]
    assert f"`{named[1]}`" in read(README)
    assert all(f"`{c}`" in read(ROOT / "docs/teams.md") for c in named)
