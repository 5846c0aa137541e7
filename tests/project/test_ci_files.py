"""The GitHub Action and the CI examples parse, and call score-diff only with real flags."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.main import parser
from tests.testing.ci import ACTION, _run_score_step, checkout, load

ROOT = Path(__file__).resolve().parents[2]
GITHUB_WORKFLOW = ROOT / "examples/github-workflow.yml"
GITHUB_TEST_WORKFLOW = ROOT / "examples/github-workflow-test.yml"
GITLAB_CI = ROOT / "examples/gitlab-ci.yml"
CI_FILES = [ACTION, GITHUB_WORKFLOW, GITHUB_TEST_WORKFLOW, GITLAB_CI]

# The real parser's long options: a CI file may only use flags the CLI accepts.
KNOWN_FLAGS = frozenset(
    opt for action in parser("score")._actions for opt in action.option_strings if opt.startswith("--")
)
# score-diff as a command: at the start of a line or after ; & | $( , possibly by path.
INVOCATION = re.compile(r"(?:^|[;&|]|\$\()\s*\"?(?:[^\s\"]*/)?score-diff(?=[\"\s]|$)", re.M)

LONG_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def shell_scripts(node: object) -> Iterator[str]:
    """Every `run:` script of GitHub steps and every `script:` entry of GitLab jobs."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            elif key in ("script", "before_script", "after_script") and isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
            else:
                yield from shell_scripts(value)
    elif isinstance(node, list):
        for item in node:
            yield from shell_scripts(item)


def invocations(path: Path) -> list[str]:
    """Scripts that run score-diff, with backslash line continuations joined."""
    scripts = (s.replace("\\\n", " ") for s in shell_scripts(load(path)))
    return [s for s in scripts if INVOCATION.search(s)]


@pytest.mark.parametrize("path", CI_FILES, ids=lambda p: p.name)
def test_parses_as_yaml_mapping(path):
    assert isinstance(load(path), dict)


# The example workflow calls score-diff through the action, whose inputs are checked below.
@pytest.mark.parametrize("path", [ACTION, GITLAB_CI], ids=lambda p: p.name)
def test_score_diff_called_only_with_known_flags(path):
    scripts = invocations(path)
    assert scripts, "no score-diff invocation found"
    unknown = {flag for s in scripts for flag in LONG_FLAG.findall(s)} - KNOWN_FLAGS
    assert unknown == set()


def test_invocation_pattern_is_not_fooled():
    assert INVOCATION.search("score-diff --base x")
    assert INVOCATION.search('rc=0\n"$RUNNER_TEMP/score-diff/bin/score-diff" "${args[@]}" || rc=$?')
    assert not INVOCATION.search('pip install "score-diff @ git+https://x"')
    assert not INVOCATION.search("mkdir -p score-diff-reports")


def test_action_is_composite_with_inputs():
    action = load(ACTION)
    assert action["name"] and action["description"]
    assert action["runs"]["using"] == "composite"
    assert {"manifest", "formats", "upload-sarif"} <= set(action["inputs"])
    assert action["inputs"]["manifest"]["default"] == "job_manifest.json"
    assert action["inputs"]["upload-sarif"]["default"] == "true"
    assert "fetch-depth 0" in action["description"]


def _steps_using(steps: list[dict], prefix: str) -> list[dict]:
    return [s for s in steps if str(s.get("uses", "")).startswith(prefix)]


def test_action_installs_itself_and_uploads_sarif_always():
    steps = load(ACTION)["runs"]["steps"]
    assert _steps_using(steps, "actions/setup-python@")
    # The action's own checkout, through the environment, never pasted into the script.
    (install,) = [s for s in steps if s.get("env", {}).get("SD_ACTION_PATH") == "${{ github.action_path }}"]
    assert '-I -m pip install "$SD_ACTION_PATH"' in install["run"]
    (upload,) = _steps_using(steps, "github/codeql-action/upload-sarif@v3")
    assert upload["if"].startswith("always()")
    (script,) = invocations(ACTION)
    assert all(f in script for f in ("--format github", "--format sarif --output", "--format text"))
    # Composite steps need an explicit shell.
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)


def test_action_never_pastes_inputs_into_shell():
    for script in shell_scripts(load(ACTION)):
        assert "${{ inputs." not in script


def _on(workflow: dict) -> dict:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert isinstance(on, dict)
    return on


def test_the_github_gate_comes_from_the_base_branch():
    """pull_request_target runs the workflow file as it is on the base branch: the pull request
    cannot edit the job that gates it. Its run may hold a write token, so it asks for read only."""
    workflow = load(GITHUB_WORKFLOW)
    assert set(_on(workflow)) == {"pull_request_target"}
    assert workflow["permissions"] == {"contents": "read"}
    assert list(workflow["jobs"]) == ["gate"]  # the test, which runs the pull request's code, is elsewhere
    gate = workflow["jobs"]["gate"]
    assert gate["if"] == "startsWith(github.head_ref, 'agent-')"
    assert invocations(GITHUB_WORKFLOW) == []  # only through the action


def test_the_github_test_runs_in_an_ordinary_pull_request_workflow():
    workflow = load(GITHUB_TEST_WORKFLOW)
    assert set(_on(workflow)) == {"pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["test"]["if"] == "startsWith(github.head_ref, 'agent-')"


@pytest.mark.parametrize("path", [GITHUB_WORKFLOW, GITHUB_TEST_WORKFLOW], ids=lambda p: p.name)
def test_github_workflows_check_out_the_head_by_id_and_pin_the_action_to_a_commit(path):
    for job in load(path)["jobs"].values():
        checkouts = _steps_using(job["steps"], "actions/checkout@")
        for one in checkouts:
            assert one["with"]["fetch-depth"] == 0
            assert one["with"]["persist-credentials"] is False
        assert checkouts[-1]["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
        (step,) = _steps_using(job["steps"], "score-diff/score-diff@")
        assert step["uses"] == "score-diff/score-diff@<commit>"  # a commit sha placeholder, as the README
        assert set(step["with"]) <= set(load(ACTION)["inputs"])


def test_the_github_gate_job_runs_the_test_in_the_jail_with_the_bases_dependencies():
    """pull_request_target may hold a write token and secrets (GitHub Security Lab, "Preventing
    pwn requests"): the head's code runs only after the base's dependencies are installed, only
    inside score-diff, and no step hands it a token or a secret."""
    steps = load(GITHUB_WORKFLOW)["jobs"]["gate"]["steps"]
    text = GITHUB_WORKFLOW.read_text(encoding="utf-8")
    assert "securitylab.github.com/research/github-actions-preventing-pwn-requests" in text
    base, head = _steps_using(steps, "actions/checkout@")
    assert "ref" not in base["with"]  # pull_request_target's own checkout: the base
    order = [s.get("uses", s.get("name")) for s in steps]
    install = order.index("Install the test's dependencies from the base")
    jail = order.index("Let the jail make user namespaces")
    assert order.index(base["uses"]) < install < jail < len(order) - 1 - order[::-1].index(head["uses"])
    # the built-in jail is Python's own unshare: a bwrap profile would not reach it (issue 26, item 6)
    assert steps[jail]["run"] == "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
    assert "bwrap" not in text and "bubblewrap" not in text
    (gate,) = _steps_using(steps, "score-diff/score-diff@")
    assert gate["with"]["skip-test"] == "false"  # the verdict comes from this job
    assert not any("secrets." in str(s) or "github.token" in str(s) or "GITHUB_TOKEN" in str(s) for s in steps)
    assert all("env" not in s for s in steps)  # nothing extra reaches any step, the test's least of all


def test_no_example_names_a_release_that_does_not_exist():
    for path in [*CI_FILES, ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "@v0.1.0" not in path.read_text(encoding="utf-8"), path


def test_gitlab_job_scores_agent_merge_requests():
    jobs = load(GITLAB_CI)
    header = GITLAB_CI.read_text(encoding="utf-8").split("score-diff-gate:")[0]
    assert "pipeline_config_strategy: inject_policy" in header  # the gate kept out of the project's reach
    assert "CI/CD configuration file" in header
    assert "kernel.apparmor_restrict_unprivileged_userns" in header  # a runner that can jail the test
    job = jobs["score-diff-gate"]
    assert str(job["variables"]["GIT_DEPTH"]) == "0"
    assert job["artifacts"]["when"] == "always"
    assert any("=~ /^agent-/" in rule["if"] for rule in job["rules"])
    assert job["artifacts"]["reports"]["junit"] == "score-diff-junit.xml"
    (gate_script,) = invocations(GITLAB_CI)
    assert '--base "$CI_MERGE_REQUEST_DIFF_BASE_SHA" --head "$CI_COMMIT_SHA"' in gate_script
    assert "--format junit --output score-diff-junit.xml" in gate_script and "--skip-test" not in gate_script
    # The dependencies come from the base's requirements file, read out of the base commit.
    installs = [line for line in job["before_script"] if "requirements" in line]
    assert installs and 'git show "$CI_MERGE_REQUEST_DIFF_BASE_SHA:requirements.txt"' in installs[0]
    assert not any("-r requirements.txt" in line for line in job["before_script"])


def test_action_script_builds_the_command_line(tmp_path):
    head = checkout(tmp_path)
    rc, argv, outputs = _run_score_step(
        tmp_path, formats="junit  json", shadow="true", manifest="ci/my manifest.json", head=head
    )
    assert (rc, outputs) == (1, "exit-code=1\n")
    out = "score-diff-reports"
    assert argv == [
        "--base", "b" * 40, "--manifest", "ci/my manifest.json", "--head", head, "--shadow",
        "--format", "github", "--format", "sarif", "--output", f"{out}/score-diff.sarif",
        "--format", "junit", "--output", f"{out}/score-diff.junit.xml",
        "--format", "json", "--output", f"{out}/score-diff.json",
        "--format", "text",
    ]  # fmt: skip
    assert (tmp_path / out).is_dir()


def test_action_script_refuses_to_run_without_a_base(tmp_path):
    rc, argv, outputs = _run_score_step(tmp_path, base="", head=checkout(tmp_path))
    assert (rc, argv, outputs) == (2, [], "exit-code=2\n")


def test_the_action_says_in_its_summary_which_layers_of_the_jail_held(tmp_path):
    import json
    import subprocess
    import sys

    (step,) = [s for s in load(ACTION)["runs"]["steps"] if s.get("name") == "Say which layers of the jail held"]
    (tmp_path / "score-diff" / "bin").mkdir(parents=True)
    (tmp_path / "score-diff" / "bin" / "python").symlink_to(sys.executable)
    report = tmp_path / "score-diff.json"
    envelope = {"policy": "required", "enforced": ["network: user+network namespace"], "missing": ["reads: `x`<b>"]}
    report.write_text(json.dumps({"test": {"envelope": {**envelope, "observed": ["a"]}}}), encoding="utf-8")
    summary = tmp_path / "summary.md"
    env = {
        "PATH": "/usr/bin:/bin",
        "RUNNER_TEMP": str(tmp_path),
        "SD_REPORT": str(report),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    subprocess.run(["bash", "-c", step["run"]], env=env, check=True)
    assert summary.read_text(encoding="utf-8").splitlines() == [
        "### The required test's jail (required)",
        "- held: network: user+network namespace",
        "- **missing**: reads: &#96;x&#96;&lt;b&gt;",
        "- attempts outside it: 1",
    ]
