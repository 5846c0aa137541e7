"""Every fenced example of README.md and docs/*.md (a score-diff command, a manifest, a pre-commit
config) is run by a named test, or the table says why it cannot be; the CI, log and teams commands
shown are run as written."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

from scorer.main import main
from tests.testing.docs import (
    README,
    ROOT,
    SCHEMA,
    SHELL_LANGS,
    blocks,
    console,
    json_manifests,
    manifest_label,
    read,
    shape,
)

# --- every fenced example: run by a test, or why it cannot be -------------------------------------

EXAMPLE_DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
# score-diff where a shell runs it: first on the line, after `&&`, `|`, `;`, `{`, `(` or `exec`; and
# `python -m scorer`. Not a word inside an argument (`git commit -m "score-diff: job fence"`).
SCORE_DIFF = re.compile(r"(?:^|[;&|({]\s*|\bexec\s+)score-diff(?![\w./-])|(?<![\w-])-m scorer\b")
STARTS_COMMAND = re.compile(r"(?:exec\s+)?(?:\S*python[\d.]*\s+-m scorer\b|score-diff(?![\w./-]))")
SYNOPSIS = re.compile(r"\s\[[^\]]+\]")  # `[--job ID]`, `[the same options]`: a grammar to read, not to run
NEWCOMER = "tests/e2e/test_newcomer.py::test_the_newcomer_path"  # pastes the README's set-up block
QUICK_START = "tests/project/test_docs.py::test_the_quick_start_works_as_written"
VALIDATED = "tests/project/test_docs.py::test_every_manifest_shown_validates"
CI_SHOWN = "tests/project/test_docs_examples.py::test_the_ci_and_log_commands_shown_run_as_written"
TEAMS_SHOWN = "tests/project/test_docs_examples.py::test_the_teams_commands_shown_run_as_written"
# (document, example) -> the tests that run it. A command is its line, comments and `&&` dropped;
# a manifest is `manifest <job_id>`, or `manifest {keys}` for a part of one.
RUN_BY: dict[tuple[str, str], tuple[str, ...]] = {
    ("README.md", "pip install . && score-diff demo"): (
        "tests/project/test_project.py::test_demo_walkthrough_behaves_as_the_readme_says",
    ),
    ("README.md", "score-diff init --hooks pre-commit"): (NEWCOMER,),
    ("README.md", "score-diff pin"): (NEWCOMER, QUICK_START),
    ("README.md", "score-diff doctor"): (NEWCOMER,),
    ("README.md", "manifest fix-discount"): (QUICK_START, VALIDATED),
    ("docs/decision-log.md", "score-diff export --out decisions.jsonl"): (CI_SHOWN,),
    ("docs/detectors.md", "manifest {allowed_fingerprints}"): (VALIDATED,),
    (
        "docs/formats.md",
        "score-diff --base origin/main --format text --format sarif --output score-diff.sarif --format junit "
        "--output junit.xml",
    ): (CI_SHOWN,),
    (
        "docs/hooks-and-ci.md",
        "score-diff verify-report score-diff.json --base origin/main --head HEAD --manifest job_manifest.json",
    ): (CI_SHOWN,),
    ("README.md", "pre-commit config: local"): (QUICK_START,),
    ("docs/hooks-and-ci.md", "pre-commit config: local"): (
        "tests/project/test_docs_examples.py::test_the_local_hook_config_shown_is_the_one_init_writes",
        NEWCOMER,  # init's config, in the real pre-commit
    ),
    ("docs/manifest.md", "score-diff check-manifest"): (QUICK_START,),
    ("docs/manifest.md", "score-diff pin"): (QUICK_START,),
    ("docs/teams.md", "score-diff jobs --base main"): (TEAMS_SHOWN,),
    ("docs/teams.md", "score-diff init"): (TEAMS_SHOWN,),
    ("docs/teams.md", "exec /opt/score-diff/bin/python -m scorer pre-receive --base refs/heads/main"): (
        "tests/test_server.py::test_decoy_push_is_rejected_and_the_fix_accepted",  # the hook, by its interpreter
    ),
}
# (document, example) -> why no test runs it as written.
NOT_RUNNABLE: dict[tuple[str, str], str] = {
    ("docs/hooks-and-ci.md", "pre-commit config: https://github.com/score-diff/score-diff"): "needs GitHub: "
    "pre-commit clones the repository at `rev`; test_every_hook_config_shown_would_run parses each hook's "
    "command line as pre-commit would call it, and the published hooks are .pre-commit-hooks.yaml's",
}
# Lines that match SYNOPSIS are the commands' grammar (docs/cli.md's synopsis, `score-diff log [--job ID] ...`):
# not runnable as written; their options are checked by tests/project/test_docs_cli.py and by
# test_every_score_diff_command_shown_uses_real_flags.


def _example_line(line: str) -> str:
    """A shell line as the table names it: no comment, no `&&` chaining it to the next, one space."""
    line = re.sub(r"\s#\s.*$", "", line).strip()
    line = re.sub(r"\s*(&&|\|\||;)\s*$", "", line).strip(" {}")
    return " ".join(line.split())


def fenced_examples(path: Path) -> list[str]:
    """Each score-diff command line of a shell block (a console block's `$ ` lines; in a block of any
    other language, zsh or powershell or output, the lines that start with the command), each
    manifest and each pre-commit config shown in `path`; synopses left out."""
    found: list[str] = []
    for lang, body in blocks(read(path)):
        if lang == "json":
            label = manifest_label(json.loads(body))
            found += [label] if label else []
            continue
        if lang == "yaml" and "repos:" in body:  # a pre-commit config: its hooks are score-diff commands
            found += [f"pre-commit config: {r['repo']}" for r in yaml.safe_load(body)["repos"]]
            continue
        lines = [line.strip() for line in body.replace("\\\n", " ").splitlines()]
        if lang == "console":
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        elif lang not in SHELL_LANGS - {"", "text"}:  # output, listings, other shells: a command starts the line
            lines = [line for line in lines if STARTS_COMMAND.match(line)]
        for line in map(_example_line, lines):
            if SCORE_DIFF.search(line) and not SYNOPSIS.search(line):
                found.append(line.removeprefix("$ "))
    return list(dict.fromkeys(found))


def _shown_examples() -> set[tuple[str, str]]:
    return {(str(p.relative_to(ROOT)), example) for p in EXAMPLE_DOCS for example in fenced_examples(p)}


def test_every_fenced_example_is_run_by_a_test_or_says_why_not():
    shown = _shown_examples()
    assert not set(RUN_BY) & set(NOT_RUNNABLE)
    assert sorted(shown - set(RUN_BY) - set(NOT_RUNNABLE)) == [], "add each new example to RUN_BY or NOT_RUNNABLE"
    assert sorted((set(RUN_BY) | set(NOT_RUNNABLE)) - shown) == [], "an example the docs no longer show"


def test_every_test_the_table_names_exists():
    import ast

    for tests in RUN_BY.values():
        for test in tests:
            file, _, name = test.partition("::")
            tree = ast.parse(read(ROOT / file))
            assert name in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, test


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```sh\nscore-diff frobnicate --now\n```\n", ["score-diff frobnicate --now"]),  # must be listed
        ("```\nscore-diff frobnicate\n```\n", ["score-diff frobnicate"]),  # no language tag: still a command
        ("~~~sh\nscore-diff frobnicate\n~~~\n", ["score-diff frobnicate"]),  # a tilde fence is a fence too
        ("```zsh\nscore-diff frobnicate\n```\n", ["score-diff frobnicate"]),  # a shell the table does not name
        ("```python\nrun(['score-diff'])\n```\n", []),  # code that names it, not a command
        ("```bash\n  score-diff pin &&   # 3. pin it\n```\n", ["score-diff pin"]),
        ("```console\n$ python -m scorer jobs\noutput\n```\n", ["python -m scorer jobs"]),
        ("```sh\nscore-diff log [--job ID]\n```\n", []),  # a synopsis
        ("```console\n$ git commit\nscore-diff (agent job gate)....Failed\n```\n", []),  # output, not a command
        ("```\n::group::score-diff: changed paths (2)\n```\n", []),  # output
        ("```yaml\nentry: score-diff\n```\n", []),  # a fragment, not a config
        ('```json\n{"job_id": "x", "allowed_path": ["a"]}\n```\n', ["manifest x"]),  # misspelt: still validated
        ('```json\n{"hooks": {}}\n```\n', []),  # an agent's settings, not a manifest
        ("```yaml\nrepos:\n  - repo: local\n    hooks: []\n```\n", ["pre-commit config: local"]),
    ],
)
def test_what_counts_as_a_fenced_example(text, expected, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(text, encoding="utf-8")
    assert fenced_examples(doc) == expected


def test_a_manifest_with_a_misspelt_key_is_validated_and_fails(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text('```json\n{"job_id": "x", "allowed_path": ["a"], "required_test": ["true"]}\n```\n', "utf-8")
    [(_, data)] = json_manifests([doc])  # before, a block with a key no manifest has was not a manifest
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(data)


def _run_shown(doc: str, prefix: str, cwd: Path) -> tuple[int, str]:
    """The example of `doc` that starts with `prefix`, run as written (its words after `score-diff`) in `cwd`."""
    [example] = [e for d, e in _shown_examples() if d == doc and e.startswith(prefix)]
    out = io.StringIO()
    code = main(shlex.split(example)[1:], stdout=out, cwd=str(cwd))
    return code, out.getvalue()


def test_the_ci_and_log_commands_shown_run_as_written(repo):
    from tests.testing.repo import PASSING_TEST

    repo.write("src/pricing.py", "A = 1\n")
    repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["src/**"], required_test=PASSING_TEST)
    repo.commit("the project and its fence")
    clone = repo.scratch / "ci"
    repo.git("clone", "-q", str(repo.root), str(clone))
    repo.git("switch", "-q", "-c", "agent-fix", cwd=clone)
    (clone / "src/pricing.py").write_text("A = 2\n", encoding="utf-8")
    repo.git("commit", "-q", "-am", "fix", "--no-verify", cwd=clone)
    code, out = _run_shown("docs/formats.md", "score-diff --base origin/main", clone)
    assert (code, out.rstrip().splitlines()[-1]) == (0, "RESULT: PASS"), out
    assert json.loads((clone / "score-diff.sarif").read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert (clone / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")
    assert main(["--base", "origin/main", "--format", "json", "--output", "score-diff.json"], cwd=str(clone)) == 0
    code, out = _run_shown("docs/hooks-and-ci.md", "score-diff verify-report", clone)
    assert code == 0, out
    code, out = _run_shown("docs/decision-log.md", "score-diff export", clone)
    assert code == 0, out
    rows = (clone / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2 and all(json.loads(row)["verdict"] == "PASS" for row in rows)


def test_the_teams_commands_shown_run_as_written(repo):
    repo.write("src/pricing.py", "A = 1\n")
    repo.write("tests/test_pricing.py", "def test_a():\n    assert True\n")
    repo.commit("the project")
    code, out = _run_shown("docs/teams.md", "score-diff init", repo.root)
    assert code == 0 and "wrote job_manifest.json" in out, out
    for job in ("bump-deps", "fix-discount"):
        repo.write_manifest(repo.root / f".score-diff/jobs/{job}.json", job_id=job, allowed_paths=["src/**"])
    assert main(["pin", "--manifest", ".score-diff/jobs/fix-discount.json"], cwd=str(repo.root)) == 0
    repo.commit("two jobs")
    repo.git("branch", "agent-fix-discount")
    repo.git("update-ref", "refs/remotes/origin/agent-fix-discount", "HEAD")
    code, out = _run_shown("docs/teams.md", "score-diff jobs --base main", repo.root)
    assert code == 0, out
    shown = console(ROOT / "docs/teams.md", "score-diff jobs --base main")[1]
    assert [shape(line) for line in out.rstrip("\n").splitlines()] == [shape(line) for line in shown.splitlines()]


def test_the_local_hook_config_shown_is_the_one_init_writes():
    from scorer.setup.hooks import pre_commit_config

    [shown] = [b for lg, b in blocks(read(ROOT / "docs/hooks-and-ci.md")) if lg == "yaml" and "repo: local" in b]
    assert yaml.safe_load(shown) == yaml.safe_load(pre_commit_config(["agent-*"], "main"))
