"""Hints: every violation tells the agent what to do next, never to move its fence, and the
command it names really makes the violation go away."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.codes import CODES
from scorer.feedback import hints
from scorer.manifest.load import Manifest
from scorer.model import ChangedPath, Violation
from tests.testing.hints import WORKTREE_STATUSES, _setup_worktree
from tests.testing.repo import GitRepo, run_cli

MANIFEST = Manifest(
    "job",
    ("src/**",),
    ("pytest", "-q"),
    description="Fix the bug.",
    max_files_changed=2,
    max_hunk_lines=10,
    test_timeout_s=60.0,
)
# What a hint may never tell the agent: to edit its fence (the manifest, its pin, the hooks) or
# to get around the gate. The `fix` field, for the manifest's author, may say these things.
FENCE_WORDS = re.compile(
    r"allowed_paths|forbidden_globs|allowed_fingerprints|sensitive_exempt|disabled_detectors|protected_tests"
    r"|always_run_test|max_\w+|allow_(binary|symlinks|submodules)|scratch_roots|guard_allowed_tools"
    r"|manifest|\.sha256|--no-verify|hooksPath|core\.hooks|pre-commit-config|\.claude|settings\.json"
    r"|edit the fence|widen|SKIP=|HUSKY",
    re.IGNORECASE,
)
# Each code with a message as its check writes it.
MESSAGES = {
    "empty-diff": ("nothing changed: an empty result is not a finished job", None, None),
    "unlisted-path": ("modified: not in allowed_paths", "docs/a.md", None),
    "forbidden-path": ("added: matches forbidden_globs", ".env", None),
    "too-many-files": ("3 paths changed; max_files_changed is 2", None, None),
    "hunk-too-large": ("hunk of 12 lines (+12 -0); max_hunk_lines is 10", "src/a.py", 4),
    "diff-too-large": ("130 lines changed; max_changed_lines is 120", None, None),
    "file-too-large": ("300000 bytes; max_file_bytes is 200000", "src/a.py", None),
    "forbidden-token": ("added line contains forbidden substring 'eval('", "src/a.py", 3),
    "unreadable-encoding": ("Python source declares an encoding the scorer cannot decode", "src/a.py", None),
    "binary-file": ("binary content cannot be checked for tokens", "src/a.bin", None),
    "symlink": ("symlink to 'b'", "src/link", None),
    "submodule": ("submodule or nested repository changed", "src/vendor", None),
    "unmerged": ("unresolved merge conflict in the index", "src/a.py", None),
    "merge-conflict": ("merging this branch into the base conflicts here", "src/a.py", None),
    "hidden-change": ("the index flag assume-unchanged hides a change to this file", "src/a.py", None),
    "manifest-changed": ("the job may not edit its own manifest", "job_manifest.json", None),
    "manifest-invalid": ("job_manifest.json: unknown key 'x'", None, None),
    "manifest-hash-mismatch": ("job_manifest.json has sha256 1, but it is pinned to 2", None, None),
    "sensitive-path": (
        "src/auth.py is a sensitive path (auth: ...); add to the commit message: ...",
        "src/auth.py",
        None,
    ),
    "bad-justification": ("src/auth.py: evidence 'x' is not <file>:<line>", "src/auth.py", None),
    "secret": ("aws-access-key: AKIA… (fingerprint sha256:0123456789abcdef)", "src/a.py", 2),
    "risky-shell": ("curl-pipe-shell: curl … | sh", "src/install.sh", 1),
    "test-failed": ("pytest -q: exited 1", None, None),
    "test-timeout": ("pytest -q: ran past 60 s", None, None),
    "test-empty": (
        "pytest -q: exited 0, but it wrote no test report (/tmp/x/pytest.xml): no evidence that any test ran",
        None,
        None,
    ),
    "test-side-effect": (
        "the required test created this file (not ignored): the tree it left is not the one that was scored",
        "build/out.txt",
        None,
    ),
    "test-weakened": ("test_total no longer reaches the assertion `assert total() == 3`", "tests/test_a.py", 7),
    "test-missing": ("the base's test tests/test_a.py::test_total[1-2] was skipped", "tests/test_a.py", None),
    "test-base-unrunnable": ("the base's tests could not be run on the base: no record was written", "-", None),
    "test-evidence-tampered": ("the evidence disagrees: the process exited 0, but the stream has no end", "-", None),
    "test-lenient-comparison": ("tests/test_a.py::test_total: decided by calc:_Text (__eq__)", "-", None),
    "test-config-unpredicted": ("pytest took tox.ini, where the fence predicted setup.cfg", "-", None),
    "test-unstable": ("tests/test_a.py::test_total passed, then failed in reverse order", "tests/test_a.py", None),
    "test-runner-reached": ("registers an atexit handler that calls os._exit", "src/calc.py", 3),
    "runner-shadowed": ("src/pytest/ is named like the test runner pytest", "src/pytest/__main__.py", None),
    "test-config-changed": (
        "changes how pytest collects or reports tests (a conftest.py or pytest.ini)",
        "tests/conftest.py",
        None,
    ),
    "test-runner-detected": ("looks for 'pytest' in sys.modules: code that behaves differently", "src/a.py", 3),
    "constant-equality": ("Money.__eq__ always returns True: no comparison with it can fail", "src/a.py", 9),
    "special-cased-input": ("returns 'b' when given 'a b': a base test's own input", "src/a.py", 4),
    "flipped-test-special-cased": ("holds 'a b' and 'b' together: the input and the expected value", "src/a.py", 4),
    "test-envelope": ("the required test connected to 192.0.2.1:443: outside its envelope", None, None),
    "test-envelope-unavailable": ("test_envelope is required and network cannot be enforced", None, None),
    "git-error": ("'main' is not a commit in this repository", None, None),
    "internal-error": ("unexpected KeyError: 'x'", None, None),
}
STATUSES = {
    "modified": ChangedPath("docs/a.md", "modified"),
    "added": ChangedPath("docs/a.md", "added"),
    "untracked": ChangedPath("docs/a.md", "added", untracked=True),
    "deleted": ChangedPath("docs/a.md", "deleted"),
    "renamed": ChangedPath("docs/a.md", "renamed", old_path="docs/old.md"),
}
SCENES = {
    **{
        f"worktree-{k}": hints.scene_of(
            hints.WORKTREE, [c], "f" * 40, manifest=MANIFEST, manifest_rel="job_manifest.json"
        )
        for k, c in STATUSES.items()
    },
    "range": hints.scene_of(
        hints.RANGE,
        list(STATUSES.values())[:1],
        "f" * 40,
        "e" * 40,
        {"docs/a.md": "d" * 40},
        MANIFEST,
        "job_manifest.json",
    ),
    "tool-call": hints.Scene(hints.TOOL_CALL, manifest=MANIFEST, manifest_rel="job_manifest.json"),
}


def test_the_message_table_covers_every_code():
    assert set(MESSAGES) == set(CODES)


def _all_hints() -> list[tuple[str, str, str, str]]:
    out = []
    for code, (message, path, line) in MESSAGES.items():
        for name, scene in SCENES.items():
            hint, fix = hints.hint_for(Violation(code, message, path, line), scene)
            out.append((code, name, hint, fix))
    return out


@pytest.mark.parametrize(("code", "scene", "hint", "fix"), _all_hints(), ids=lambda x: x if len(x) < 30 else "")
def test_every_code_has_a_hint_in_every_scene(code, scene, hint, fix):
    assert hint and hint[0].islower() and len(hint) > 20


def without_restores(hint: str) -> str:
    """A hint with its undo commands and "restore <path>" phrases taken out: putting the fence back is
    the one thing a hint may say about the manifest."""
    hint = re.sub(r"`git (restore|stash push) [^`]*`", "", hint)
    return re.sub(r"\brestore \S+", "", hint)


@pytest.mark.parametrize(("code", "scene", "hint", "fix"), _all_hints(), ids=lambda x: x if len(x) < 30 else "")
def test_no_hint_tells_the_agent_to_move_its_fence(code, scene, hint, fix):
    assert not FENCE_WORDS.search(without_restores(hint)), hint


def test_a_fix_may_speak_to_the_manifests_author():
    fixes = {code: fix for code, scene, _, fix in _all_hints() if scene == "worktree-modified"}
    assert "allowed_paths" in fixes["unlisted-path"]
    assert "sha256:0123456789abcdef" in fixes["secret"] and "allowed_fingerprints" in fixes["secret"]
    assert "always win" in fixes["forbidden-path"]


def test_the_truncation_line_has_a_hint():
    v = Violation("forbidden-token", "... and 7 more forbidden-token violations not listed")
    assert hints.hint_for(v, SCENES["range"])[0].startswith("fix the forbidden-token violations listed above")


@pytest.mark.parametrize(
    ("path", "word"),
    [
        ("a b.py", "'a b.py'"),
        ("it's.py", "'it'\"'\"'s.py'"),
        ("*.py", "':(literal)*.py'"),
        (":odd", "':(literal):odd'"),
        ("$(rm -rf x).py", "'$(rm -rf x).py'"),
    ],
)
def test_paths_are_one_shell_word_that_git_reads_literally(path, word):
    scene = hints.scene_of(hints.WORKTREE, [ChangedPath(path, "modified")], "f" * 40)
    assert hints.undo_command(path, scene) == f"git stash push --include-untracked -- {word}"


# -- each hint's command, applied, makes the violation go away -------------------------------------


def command_in(hint: str) -> str:
    """The command a hint says to run."""
    m = re.search(r"run `([^`]+)`", hint)
    assert m, hint
    return m.group(1)


def apply(repo: GitRepo, hint: str) -> None:
    proc = subprocess.run(
        command_in(hint), shell=True, cwd=repo.root, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("status", WORKTREE_STATUSES)
def test_worktree_undo_hint_removes_the_violation(committed: GitRepo, status: str):
    _setup_worktree(committed, status)
    before = committed.score()
    path_violations = [v for v in before.report["violations"] if v["code"] == "unlisted-path"]
    assert path_violations and before.exit_code == 1
    apply(committed, path_violations[0]["hint"])
    after = committed.score()
    assert (after.exit_code, after.last_line) == (0, "RESULT: PASS (with test skipped)"), after.text


@pytest.mark.parametrize("status", ["modified", "added", "deleted", "renamed"])
def test_base_mode_undo_hint_removes_the_violation_and_names_the_commit(committed: GitRepo, status: str):
    base = committed.git("rev-parse", "HEAD").stdout.strip()
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "one\ntwo\nthree\nfour\n")
    committed.commit("real work")
    {
        "modified": lambda: committed.write("other/b.py", "alpha\nBETA\n"),
        "added": lambda: committed.write("other/new.py", "new\n"),
        "deleted": lambda: committed.remove("other/b.py"),
        "renamed": lambda: committed.git("mv", "other/b.py", "other/c.py"),
    }[status]()
    stray = committed.commit("stray edit")
    committed.write("allowed/a.py", "one\ntwo\nthree\nfour\nfive\n")
    committed.commit("more real work")
    before = committed.score("--base", "main")
    [v, *_] = [v for v in before.report["violations"] if v["code"] == "unlisted-path"]
    assert f"(it came in with commit {stray})" in v["hint"]
    assert f"--source={base}" in v["hint"]
    apply(committed, v["hint"])
    after = committed.score("--base", "main")
    assert (after.exit_code, after.last_line) == (0, "RESULT: PASS (with test skipped)"), after.text


def test_a_staged_only_version_hint_stages_what_was_scored(committed: GitRepo):
    committed.write("allowed/a.py", "staged\n")
    committed.git("add", "allowed/a.py")
    committed.write("allowed/a.py", "one\ntwo\nthree\nfour\n")
    before = committed.score()
    [v] = [v for v in before.report["violations"] if v["code"] == "hidden-change"]
    apply(committed, v["hint"])
    assert committed.score().exit_code == 0


def test_an_index_flag_hint_clears_it(committed: GitRepo):
    committed.git("update-index", "--assume-unchanged", "allowed/a.py")
    committed.write("allowed/a.py", "hidden\n")
    [v] = [v for v in committed.score().report["violations"] if v["code"] == "hidden-change"]
    apply(committed, v["hint"])
    out = committed.score()
    assert out.exit_code == 0 and "allowed/a.py" in out.changed


# -- the messages the issue named --------------------------------------------------------------


def test_env_file_is_not_told_to_be_listed(committed: GitRepo):
    committed.manifest(forbidden_globs=["**/.env"])
    committed.write("allowed/a.py", "fixed\n")
    committed.write(".env", "TOKEN=1\n")
    out = committed.score()
    assert out.codes == {"forbidden-path", "sensitive-path"}
    forbidden, sensitive = out.report["violations"]
    assert "name it exactly" not in forbidden["message"] + sensitive["message"]
    assert forbidden["hint"].startswith(
        "undo your change to .env (untracked): run `git stash push --include-untracked -- .env`"
    )
    assert sensitive["hint"] == "undoing your change to .env (the hint for its forbidden-path) removes this too"
    assert (
        "  -> do: undo your change to .env (untracked): run `git stash push --include-untracked -- .env`; this job may never change it; "
        "this job may change only: allowed/**" in out.text
    )


def test_unlisted_path_hint_lists_what_is_allowed(committed: GitRepo):
    committed.write("other/b.py", "changed\n")
    out = committed.score()
    [v] = out.report["violations"]
    assert v["hint"] == (
        "undo your change to other/b.py (modified): run "
        "`git stash push --include-untracked -- other/b.py`; this job may change only: "
        "allowed/**"
    )
    assert v["fix"] == "if the job needs other/b.py, add it to allowed_paths: 'other/b.py'"


def test_empty_diff_after_a_commit_says_committed_work_is_scored_with_base(committed: GitRepo):
    committed.write("allowed/a.py", "done\n")
    committed.commit("the work")
    out = committed.score()
    [v] = out.report["violations"]
    assert v["code"] == "empty-diff" and "score-diff --base" in v["hint"]


def test_secret_hint_says_remove_not_allow(committed: GitRepo):
    committed.write("allowed/a.py", 'KEY = "AKIAIOSFODNN7EXAMPLQ"\n')
    out = committed.score()
    [v] = [v for v in out.report["violations"] if v["code"] == "secret"]
    assert v["hint"].startswith("remove the credential from line 1 of allowed/a.py (do not allow it")
    assert "allowed_fingerprints" in v["fix"]


def test_the_description_is_in_every_report(committed: GitRepo):
    committed.manifest(description="Fix the typo in a.py.")
    committed.write("allowed/a.py", "fixed\n")
    out = committed.score()
    assert out.report["description"] == "Fix the typo in a.py."
    assert out.text.splitlines()[1] == "description: Fix the typo in a.py."


@pytest.mark.parametrize("always", [False, True])
def test_always_run_test_reports_the_test_in_the_same_round(committed: GitRepo, always: bool):
    committed.manifest(required_test=[sys.executable, "-c", "raise SystemExit(3)"], always_run_test=always)
    committed.write("other/b.py", "stray\n")
    out = committed.score(skip_test=False)
    assert out.report["test"]["status"] == ("failed" if always else "not-run")
    assert out.codes == ({"unlisted-path", "test-failed"} if always else {"unlisted-path"})
    assert out.last_line == "RESULT: FAIL"


def test_a_secret_in_a_path_is_masked_in_the_hint_too(committed: GitRepo):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    committed.write(f"other/{token}.txt", "x\n")
    out = committed.score()
    assert token not in out.text and token not in json.dumps(out.report)
    [v] = [v for v in out.report["violations"] if v["code"] == "unlisted-path"]
    assert v["hint"].startswith("undo your change to other/") and v["fix"]


# -- score-diff fence -------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_shows_the_real_fence_of_the_example_manifest():
    from scorer.feedback.fence import fence_facts, render_markdown
    from scorer.manifest.load import load_manifest

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("## Tell the agent its fence", 1)[1].split("````markdown\n", 1)[1].split("\n````\n", 1)[0]
    assert shown + "\n" == render_markdown(fence_facts(load_manifest(ROOT / "job_manifest.example.json")))


def test_fence_prints_the_committed_fence_as_markdown_and_json(committed: GitRepo):
    manifest = committed.write_manifest(
        committed.root / "job_manifest.json",
        description="Fix a.py.",
        allowed_paths=["allowed/a.py", "migrations/0001.sql"],
        forbidden_globs=["**/.env"],
        max_hunk_lines=10,
        forbidden_substrings=["eval("],
        required_test=["python", "-m", "pytest", "allowed/a.py"],
    )
    committed.commit("the fence")
    code, out = run_cli(["fence", "--repo", str(committed.root)])
    assert code == 0
    assert out.startswith(
        "# Your job: test-job\nFix a.py.\n\n- **Change only:** `allowed/a.py`, `migrations/0001.sql`\n"
    )
    assert "`Blast-Radius: migrations/0001.sql`" in out and "at most 10 added+removed lines per hunk" in out
    assert "- **Tests you may add to, never weaken:** `allowed/a.py`" in out
    code, out = run_cli(["fence", "--repo", str(committed.root), "--format", "json"])
    facts = json.loads(out)
    assert code == 0 and facts["sensitive_allowed_paths"][0]["path"] == "migrations/0001.sql"
    assert facts["required_test"]["command"] == "python -m pytest allowed/a.py"
    assert manifest.exists()


def test_the_guard_hands_the_fence_over_at_claude_session_start(committed: GitRepo):
    from tests.testing.guard import run_guard

    committed.manifest(allowed_paths=["allowed/**"], description="Fix a.py.")
    payload = {"session_id": "s1", "cwd": str(committed.root), "hook_event_name": "SessionStart", "source": "startup"}
    argv = ["--agent", "claude", "--manifest", str(committed.manifest_path), "--no-log"]
    code, out, err = run_guard(argv, json.dumps(payload).encode())
    body = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and err == "" and body["hookEventName"] == "SessionStart"
    assert body["additionalContext"].startswith("# Your job: test-job\nFix a.py.\n\n- **Change only:** `allowed/**`")


def test_guard_refusals_use_the_same_hints(committed: GitRepo):
    from tests.testing.guard import run_guard

    committed.manifest(allowed_paths=["allowed/**"], forbidden_globs=["**/.env"])
    payload = {
        "session_id": "s1",
        "cwd": str(committed.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": f"{committed.root}/.env", "content": "A=1\n"},
    }
    argv = ["--agent", "claude", "--manifest", str(committed.manifest_path), "--no-log"]
    code, out, _ = run_guard(argv, json.dumps(payload).encode())
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    scene = hints.Scene(hints.TOOL_CALL, manifest=Manifest("test-job", ("allowed/**",), ("true",)))
    expected = hints.hint_for(Violation("forbidden-path", "matches forbidden_globs", ".env"), scene)[0]
    assert code == 2 and f"What to do: {expected}" in reason


def test_a_run_that_could_not_score_says_what_to_do(committed: GitRepo):
    committed.manifest_path.write_text("{not json", encoding="utf-8")
    out = committed.score()
    [v] = out.report["violations"]
    assert out.exit_code == 2 and v["code"] == "manifest-invalid"
    assert v["hint"].startswith("stop and tell the user that score-diff cannot read this job's fence")
    assert "  -> do: stop and tell the user" in out.text


def test_an_edited_committed_manifest_is_restored_and_every_other_violation_still_reported(committed: GitRepo):
    manifest = committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
    committed.commit("the fence")
    committed.write_manifest(manifest, allowed_paths=["**"])  # the job loosens its own fence on disk
    committed.write("other/b.py", "stray\n")
    out = committed.score(manifest=manifest)
    assert out.codes == {"manifest-changed", "unlisted-path", "sensitive-path"}, out.text
    [v] = [v for v in out.report["violations"] if v["code"] == "manifest-changed"]
    assert v["hint"] == (
        "restore job_manifest.json: the job may not change its own fence. Run "
        "`git stash push --include-untracked -- job_manifest.json`"
    )


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit", "markdown"])
def test_every_format_shows_the_description_and_the_hint(committed: GitRepo, fmt: str):
    committed.manifest(description="Fix the typo in a.py.")
    committed.write("other/b.py", "stray\n")
    code, out = run_cli(
        [
            "--repo",
            str(committed.root),
            "--manifest",
            str(committed.manifest_path),
            "--skip-test",
            "--no-log",
            "--format",
            fmt,
        ]
    )
    assert code == 1
    assert "Fix the typo in a.py." in out
    assert "git stash push --include-untracked -- other/b.py" in out


def test_a_session_start_is_never_blocked_even_without_a_readable_fence(committed: GitRepo):
    from tests.testing.guard import run_guard

    committed.manifest_path.write_text("{not json", encoding="utf-8")
    payload = {"session_id": "s1", "cwd": str(committed.root), "hook_event_name": "SessionStart"}
    argv = ["--agent", "claude", "--manifest", str(committed.manifest_path), "--no-log"]
    assert run_guard(argv, json.dumps(payload).encode()) == (0, "", "")


def test_guard_install_adds_the_session_start_hook_for_claude(committed: GitRepo):
    import io

    from scorer import main as cli

    assert cli.main(["guard", "install", "--agent", "claude"], stdout=io.StringIO(), cwd=str(committed.root)) == 0
    data = json.loads((committed.root / ".claude/settings.json").read_text())
    assert data["hooks"]["SessionStart"] == [
        {"hooks": [{"type": "command", "command": "score-diff guard --agent claude"}]}
    ]


def test_a_test_failure_names_the_command_that_reproduces_the_gates_run() -> None:
    from scorer.feedback.hints import annotate, scene_of
    from scorer.manifest.load import parse_manifest
    from scorer.model import Violation

    manifest = parse_manifest(
        b'{"job_id": "j", "allowed_paths": ["src/**"], "required_test": ["python3", "-m", "pytest", "-q"]}', "m"
    )
    failed = [Violation("test-failed", "the required test failed")]
    [hook] = annotate(failed, scene_of("worktree", [], head="a" * 40, base="b" * 40, manifest=manifest))
    assert f"run `score-diff test --since {'b' * 40}` (it runs `python3 -m pytest -q` exactly as the gate did)" in (
        hook.hint
    )
    [plain] = annotate(failed, scene_of("worktree", [], head="a" * 40, manifest=manifest))
    assert "run `score-diff test` (it runs" in plain.hint


def test_a_weakened_test_is_restored_alone_and_the_new_tests_kept() -> None:
    from scorer.feedback.hints import annotate, scene_of
    from scorer.manifest.load import parse_manifest
    from scorer.model import Violation

    manifest = parse_manifest(b'{"job_id": "j", "allowed_paths": ["tests/**"], "required_test": ["true"]}', "m")
    weakened = [Violation("test-weakened", "test_discount lost an assertion", "tests/test_p.py")]
    [v] = annotate(weakened, scene_of("worktree", [], head="a" * 40, base="b" * 40, manifest=manifest))
    assert "keep your new tests" in v.hint and f"`git show {'b' * 40}:tests/test_p.py`" in v.hint
    assert "your new tests go with it" in v.hint  # the whole-file undo is named for what it costs
