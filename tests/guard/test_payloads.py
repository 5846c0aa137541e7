"""score-diff guard: recorded payloads per agent, both ways, through main() in-process."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

from scorer import main as cli
from scorer.decision_log import read
from tests.testing.guard import MANIFEST, Guarded, _payload, _transcript, observed, run_guard, transcript_dir
from tests.testing.repo import GitRepo

JAIL_INSTALLED = importlib.util.find_spec("scorer.jail") is not None

FIXTURES = Path(__file__).parent / "fixtures" / "guard"
CASES = sorted(str(p.relative_to(FIXTURES).with_suffix("")) for p in FIXTURES.glob("*/*.json"))


@pytest.fixture
def guarded(committed: GitRepo) -> Guarded:
    committed.manifest(**MANIFEST)
    return Guarded(committed)


def _fill(value: object, repo: Path) -> object:
    if isinstance(value, str):
        return value.replace("{repo}", str(repo))
    if isinstance(value, list):
        return [_fill(v, repo) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, repo) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", CASES)
def test_recorded_payload(guarded: Guarded, case: str):
    agent = case.split("/")[0]
    data = json.loads((FIXTURES / f"{case}.json").read_text())
    payload = _fill(data["payload"], guarded.repo.root)
    assert isinstance(payload, dict)
    code, out, err = guarded.send(payload, agent)
    expected = data["expect"]
    want = expected["action"]
    if agent not in ("claude", "cursor") and want == "ask":  # only these can ask; the others are told deny
        want = "deny"
    if agent == "claude" and want == "ask" and JAIL_INSTALLED and payload.get("tool_name") == "Bash":
        want = "jail"  # an unknown command runs rewritten into the job's jail (issue 28)
    assert observed(agent, code, out, err) == want, (out, err)
    row = guarded.last()
    codes = [v["code"] for v in row["violations"]]
    assert (codes[0] if codes else "ok") == expected["code"], row
    assert row["decision"] in ("allow", "deny", "ask") and row["agent"] == agent


def test_deny_says_what_to_do_and_never_to_widen_the_fence(guarded: Guarded):
    code, out, err = guarded.send(
        _payload(guarded, "Write", file_path=f"{guarded.repo.root}/other/b.py", content="x\n")
    )
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 2 and err.strip() == reason
    assert "other/b.py is not in allowed_paths [unlisted-path]" in reason
    assert "What to do: leave other/b.py unchanged; this job may change only: allowed/**." in reason
    assert "Do not edit the job manifest" in reason


def test_a_secret_is_never_echoed(guarded: Guarded):
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    code, out, err = guarded.send(
        _payload(guarded, "Write", file_path=f"{guarded.repo.root}/allowed/k.py", content=f"TOKEN = '{secret}'\n")
    )
    assert code == 2 and secret not in out + err and "ghp_****" in out
    assert secret not in json.dumps(guarded.last())


# -- the once-per-path, per-turn sensitive prompt -------------------------------


@pytest.fixture
def sensitive(committed: GitRepo) -> Guarded:
    committed.manifest(allowed_paths=["allowed/**", "Makefile"])
    return Guarded(committed)


def test_sensitive_path_prompts_once_per_turn_then_allows(sensitive: Guarded):
    write = _payload(sensitive, "Write", file_path=f"{sensitive.repo.root}/Makefile", content="all:\n")
    code, out, _ = sensitive.send(write)
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 2 and "Makefile is a sensitive path (build" in reason
    assert "JUSTIFICATION: <file>:<line>" in reason and "ROLLBACK:" in reason and "Blast-Radius: Makefile" in reason
    assert sensitive.send(write)[0] == 0  # the retry in the same turn
    assert sensitive.send(write)[0] == 0
    next_turn = {**write, "prompt_id": "p2"}
    assert sensitive.send(next_turn)[0] == 2  # a new prompt id: prompted again, nothing carried over
    assert sensitive.send(next_turn)[0] == 0


def test_without_prompt_ids_a_turn_ends_at_user_prompt_submit(sensitive: Guarded):
    write = _payload(sensitive, "Write", prompt=None, file_path=f"{sensitive.repo.root}/Makefile", content="all:\n")
    assert sensitive.send(write)[0] == 2
    assert sensitive.send(write)[0] == 0
    prompt = {
        "session_id": "s1",
        "cwd": str(sensitive.repo.root),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "go on",
    }
    assert sensitive.send(prompt) == (0, "", "")
    assert sensitive.send(write)[0] == 2
    other_session = {**write, "session_id": "s2"}
    assert sensitive.send(other_session)[0] == 2


@pytest.mark.parametrize(
    ("agent", "write", "prompt"),
    [
        (
            "gemini",
            {
                "hook_event_name": "BeforeTool",
                "tool_name": "write_file",
                "tool_input": {"file_path": "Makefile", "content": "all:\n"},
            },
            {"hook_event_name": "BeforeAgent", "prompt": "go on"},
        ),
        (
            "copilot",
            {"toolName": "edit", "toolArgs": json.dumps({"path": "Makefile", "new_str": "all:"})},
            {"prompt": "go on"},
        ),
    ],
)
def test_turns_end_at_the_agents_own_prompt_event(sensitive: Guarded, agent: str, write: dict, prompt: dict):
    """Neither sends a turn id: the sensitive prompt comes once per path until the user's next prompt."""
    session = {"session_id": "s1"} if agent == "gemini" else {"sessionId": "s1"}
    write = {**session, "cwd": str(sensitive.repo.root), **write}
    prompt = {**session, "cwd": str(sensitive.repo.root), **prompt}
    code, out, err = sensitive.send(write, agent)
    assert observed(agent, code, out, err) == "deny" and "Makefile is a sensitive path" in out
    assert sensitive.send(write, agent) == (0, "", "")  # the retry, in the same turn
    assert sensitive.send(prompt, agent) == (0, "", "")
    assert observed(agent, *sensitive.send(write, agent)) == "deny"  # a new turn grants nothing
    other = {**write, **({"session_id": "s2"} if agent == "gemini" else {"sessionId": "s2"})}
    assert observed(agent, *sensitive.send(other, agent)) == "deny"


def test_sensitive_path_not_named_exactly_is_denied_outright(committed: GitRepo):
    committed.manifest(allowed_paths=["**"])
    g = Guarded(committed)
    write = _payload(g, "Write", file_path=f"{committed.root}/Makefile", content="all:\n")
    for _ in range(2):
        code, out, _ = g.send(write)
        assert code == 2 and "this job does not name exactly in allowed_paths" in out


@pytest.mark.parametrize(
    ("message", "allowed"),
    [
        ("1. JUSTIFICATION: allowed/a.py:2 the build must run it\n2. ROLLBACK: git checkout -- Makefile", True),
        ("Blast-Radius: Makefile\nJustification: allowed/a.py:1 needed\nRollback: git checkout -- Makefile", True),
        ("JUSTIFICATION: allowed/a.py:99 the build must run it\nROLLBACK: git checkout -- Makefile", False),
        ("JUSTIFICATION: allowed/a.py:2 needed", False),
        ("I will just change it.", False),
    ],
)
def test_retry_needs_the_justification_in_the_transcript(sensitive: Guarded, message: str, allowed: bool):
    where = transcript_dir("claude") / "t.jsonl"
    t = _transcript(where, "Makefile needs a target.")
    write = _payload(sensitive, "Write", transcript=t, file_path=f"{sensitive.repo.root}/Makefile", content="all:\n")
    assert sensitive.send(write)[0] == 2
    _transcript(where, message)
    code, out, _ = sensitive.send(write)
    assert (code == 0) is allowed, out
    if not allowed:
        assert sensitive.last()["violations"][0]["code"] == "bad-justification"


# -- hostile payloads and every error path ------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b"\xff\xfe",
        b"{" * 100000,
        b'{"cwd": 5}',
        b'{"tool_name": "Write", "cwd": "relative/dir", "tool_input": {}}',
        b'{"tool_name": "Write", "cwd": "/", "tool_input": "x"}',
    ],
)
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "copilot", "cursor"])
def test_invalid_payloads_deny_with_the_blocking_exit_code(guarded: Guarded, raw: bytes, agent: str):
    code, out, err = guarded.send(raw, agent)
    assert observed(agent, code, out, err) == "deny"
    assert "score-diff guard blocked this call" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "raw",
    [
        b'{"hook_event_name": "BeforeTool", "cwd": "{repo}", "tool_name": 7, "tool_input": {}}',
        b'{"hook_event_name": "BeforeTool", "cwd": "{repo}", "tool_name": "write_file", "tool_input": null}',
        b'{"hook_event_name": "BeforeTool", "cwd": ["{repo}"], "tool_name": "write_file", "tool_input": {}}',
        b'{"hook_event_name": "BeforeTool", "cwd": "{repo}", "session_id": 1, "tool_name": "read_file", "tool_input": {}}',
        b'{"hook_event_name": "BeforeTool", "cwd": "{repo}", "tool_name": "replace", "tool_input": {"file_path": 1}}',
    ],
)
def test_gemini_wrong_types_deny(guarded: Guarded, raw: bytes):
    code, out, err = guarded.send(raw.replace(b"{repo}", str(guarded.repo.root).encode()), "gemini")
    assert observed("gemini", code, out, err) == "deny" and guarded.last()["violations"][0]["code"] == "invalid-payload"


@pytest.mark.parametrize(
    "raw",
    [
        b'{"cwd": "{repo}", "toolName": 7, "toolArgs": "{}"}',
        b'{"cwd": "{repo}", "toolName": "bash", "toolArgs": "[1]"}',
        b'{"cwd": "{repo}", "toolName": "bash", "toolArgs": "{\\"command\\": 1}"}',
        b'{"cwd": "{repo}", "sessionId": [], "toolName": "view", "toolArgs": "{}"}',
        b'{"cwd": "{repo}", "toolName": "bash"}',
        b'{"cwd": "relative", "toolName": "view", "toolArgs": "{}"}',
    ],
)
def test_copilot_wrong_types_deny(guarded: Guarded, raw: bytes):
    code, out, err = guarded.send(raw.replace(b"{repo}", str(guarded.repo.root).encode()), "copilot")
    assert (
        observed("copilot", code, out, err) == "deny" and guarded.last()["violations"][0]["code"] == "invalid-payload"
    )


def test_missing_manifest_denies(committed: GitRepo):
    g = Guarded(committed)
    committed.manifest_path = committed.scratch / "absent.json"
    code, _, err = g.send(_payload(g, "Write", file_path=f"{committed.root}/allowed/a.py", content="x\n"))
    assert code == 2 and "cannot read manifest" in err


def test_invalid_manifest_denies(committed: GitRepo):
    committed.manifest_path.write_text('{"job_id": "x"}')
    g = Guarded(committed)
    code, _, err = g.send(_payload(g, "Read", file_path="/x"), "codex")
    assert code == 2 and "manifest" in err


def test_not_a_repository_denies(guarded: Guarded, tmp_path: Path):
    payload = _payload(guarded, "Write", file_path=str(tmp_path / "x"), content="x")
    payload["cwd"] = str(tmp_path)
    code, _, err = guarded.send(payload)
    assert code == 2 and "not inside a git working tree" in err


def test_an_unexpected_exception_denies(guarded: Guarded, monkeypatch: pytest.MonkeyPatch):
    from scorer.guard import decide

    def boom(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(decide, "decide", boom)
    code, out, err = guarded.send(_payload(guarded, "Read", file_path="/x"))
    assert code == 2 and "unexpected RuntimeError: boom" in err
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_bad_command_line_still_blocks():
    code, _, err = run_guard(["--bogus"], b"{}")
    assert code == 2 and "blocked this call: bad command line" in err


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["--agent", "gemini", "--manifest", "m.json", "--log-db", "l.db", "--no-log", "--shadow"],
        ["--agent=codex", "--manifest=m.json", "--agent", "copilot"],
        ["--manifest", "--shadow"],
        ["--manifest="],
        ["--agent", "cursor"],
        ["--ag", "codex"],
        ["--shadow", "extra"],
        ["--log-db"],
        ["-h"],
    ],
)
def test_the_hooks_own_command_lines_read_as_argparse_reads_them(words: list[str]):
    """The guard reads its usual options without argparse (start-up cost); anything else goes to argparse."""
    from scorer.commands.guard import _hook_options, guard_parser

    quick = _hook_options(words)
    if quick is not None:
        assert vars(quick) == vars(guard_parser().parse_args(words))


@pytest.mark.parametrize(
    ("agent", "blocking_exit", "field"),
    [
        ("claude", 2, "hookSpecificOutput"),
        ("codex", 2, None),
        ("gemini", 2, "decision"),
        ("copilot", 0, "permissionDecision"),
    ],
)
def test_bad_command_line_blocks_in_the_agents_own_way(agent: str, blocking_exit: int, field: str | None):
    code, out, err = run_guard([f"--agent={agent}", "--bogus"], b"{}")
    assert code == blocking_exit and "blocked this call: bad command line" in err
    assert (field in json.loads(out)) if field else out == ""  # Copilot blocks only on the JSON, exit 0


@pytest.mark.parametrize("agent", ["gemini", "copilot"])
def test_a_crash_outside_the_pipeline_still_blocks(agent: str, monkeypatch: pytest.MonkeyPatch, capsys):
    from scorer.commands import guard as command

    def boom(*args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(command, "run_argv", boom)
    code = command.run_hook(["--agent", agent])
    out, err = capsys.readouterr()
    assert "blocked this call: unexpected RuntimeError" in err
    if agent == "copilot":
        assert code == 0 and json.loads(out)["permissionDecision"] == "deny"
    else:
        assert code == 2 and json.loads(out)["decision"] == "deny"


def test_huge_content_is_checked_not_skipped(guarded: Guarded):
    content = "x = 1\n" * 200_000 + "eval(2)\n"
    code, out, _ = guarded.send(
        _payload(guarded, "Write", file_path=f"{guarded.repo.root}/allowed/big.py", content=content)
    )
    assert code == 2 and "forbidden-token" in out


def test_symlinked_directory_out_of_the_repository(guarded: Guarded, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    guarded.repo.symlink("allowed/link", str(outside))
    code, out, _ = guarded.send(
        _payload(guarded, "Write", file_path=f"{guarded.repo.root}/allowed/link/x.py", content="x\n")
    )
    assert code == 2 and "outside-repo" in out


def test_symlinked_file_into_an_unlisted_path(guarded: Guarded):
    guarded.repo.symlink("allowed/alias.py", "../other/b.py")
    code, out, _ = guarded.send(
        _payload(guarded, "Edit", file_path=f"{guarded.repo.root}/allowed/alias.py", old_string="alpha", new_string="a")
    )
    assert code == 2 and "other/b.py is not in allowed_paths" in out


def test_scratch_roots_allow_writes_outside(committed: GitRepo, tmp_path: Path):
    scratch = tmp_path / "job-tmp"
    scratch.mkdir()
    committed.manifest(allowed_paths=["allowed/**"], scratch_roots=[str(scratch)])
    g = Guarded(committed)
    assert g.send(_payload(g, "Write", file_path=str(scratch / "notes.txt"), content="x\n"))[0] == 0
    assert g.send(_payload(g, "Bash", command=f"echo x > {scratch}/a && echo y > {tmp_path}/b"))[0] == 2


def test_copilot_create_is_allowed_only_when_the_manifest_lists_it(committed: GitRepo):
    """Copilot documents no argument of create: the guard cannot check it, so a team opts in or it is denied."""
    create = {"sessionId": "s", "cwd": str(committed.root), "toolName": "create", "toolArgs": '{"path": "x"}'}
    committed.manifest(allowed_paths=["allowed/**"])
    g = Guarded(committed)
    code, out, err = g.send(create, "copilot")
    assert observed("copilot", code, out, err) == "deny" and "guard_allowed_tools" in out
    committed.manifest(allowed_paths=["allowed/**"], guard_allowed_tools=["create"])
    assert g.send(create, "copilot") == (0, "", "")


def test_shadow_mode_allows_and_logs_what_it_would_have_done(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**"], mode="shadow")
    g = Guarded(committed)
    assert g.send(_payload(g, "Write", file_path=f"{committed.root}/other/b.py", content="x\n")) == (0, "", "")
    row = g.last()
    assert row["decision"] == "would-block" and row["shadow"] and row["violations"][0]["code"] == "unlisted-path"
    assert g.send(_payload(g, "Write", file_path=f"{committed.root}/allowed/a.py", content="x\n"))[0] == 0
    assert g.last()["decision"] == "shadow-only"


def test_guard_option_shadow(guarded: Guarded):
    code, out, _ = guarded.send(_payload(guarded, "Bash", command="eval x"), "claude", "--shadow")
    assert (code, out) == (0, "") and guarded.last()["decision"] == "would-jail"


def test_log_and_export_show_guard_rows(guarded: Guarded):
    guarded.send(_payload(guarded, "Write", file_path=f"{guarded.repo.root}/other/b.py", content="x\n"))
    out = io.StringIO()
    assert cli.main(["log", "--log-db", str(guarded.db)], stdout=out) == 0
    assert "guard deny  claude PreToolUse Write" in out.getvalue() and "other/b.py" in out.getvalue()
    target = guarded.repo.scratch / "export.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["export", "--log-db", str(guarded.db), "--out", str(target)], stdout=io.StringIO()) == 0
    row = json.loads(target.read_text().splitlines()[-1])
    assert row["mode"] == "guard" and row["tool"] == "Write" and row["paths"] == ["other/b.py"]


def test_scoring_rows_and_guard_rows_share_one_log(guarded: Guarded):
    guarded.send(_payload(guarded, "Read", file_path="/x"))
    guarded.repo.write("allowed/a.py", "changed\n")
    guarded.repo.score("--log-db", str(guarded.db))
    rows = read(guarded.db)
    assert [r["mode"] for r in rows] == ["worktree", "guard"] and "agent" not in rows[0]


def test_a_forged_validation_cache_in_the_git_dir_does_not_loosen_the_fence(guarded: Guarded):
    """Anything under .git is the job's to write: the guard validates the manifest itself, every call."""
    import hashlib

    write = _payload(guarded, "Write", file_path=f"{guarded.repo.root}/other/b.py", content="x\n")
    sha = hashlib.sha256(guarded.repo.manifest_path.read_bytes()).hexdigest()
    forged = {
        "sha256": sha,
        "source": str(guarded.repo.manifest_path),
        "fields": {"job_id": "j", "allowed_paths": ["**"], "required_test": ["true"]},
    }
    cache = guarded.repo.root / ".git" / "score-diff" / "guard-manifest.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(forged))
    assert guarded.send(write)[0] == 2
    guarded.repo.manifest(allowed_paths=["allowed/**", "other/**"])
    assert guarded.send(write)[0] == 0  # the manifest's own bytes decide, re-read on every call


def test_a_write_call_imports_no_parser_it_does_not_use(guarded: Guarded):
    """The hook's cost is its imports: argparse, git's output parser, tree-sitter and the transcript reader stay out."""
    import subprocess
    import sys

    payload = json.dumps(_payload(guarded, "Write", file_path=f"{guarded.repo.root}/allowed/n.py", content="x\n"))
    probe = (
        "import io, sys; from scorer import entry; _, manifest, db, payload = sys.argv; "
        "sys.argv = ['score-diff', 'guard', '--agent', 'claude', '--manifest', manifest, '--log-db', db]; "
        "sys.stdin = io.TextIOWrapper(io.BytesIO(payload.encode())); code = entry.main(); "
        "unused = ('argparse', 'scorer.inspection.gitparse', 'tree_sitter', 'scorer.guard.transcript', 'scorer.main'); "
        "print(code, [m for m in unused if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(guarded.repo.manifest_path), str(guarded.db), payload],
        capture_output=True,
        text=True,
        cwd=guarded.repo.root,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "0 []", out
    assert guarded.last()["decision"] == "allow"


def test_console_entry_runs_the_guard_without_the_other_subcommands(guarded: Guarded, monkeypatch):
    import sys

    from scorer import entry

    payload = json.dumps(_payload(guarded, "Read", file_path="/x")).encode()
    monkeypatch.setattr(sys, "argv", ["score-diff", "guard", "--manifest", str(guarded.repo.manifest_path), "--no-log"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
    monkeypatch.delitem(sys.modules, "scorer.main", raising=False)
    assert entry.main() == 0
    assert "scorer.main" not in sys.modules


def _write_call(repo: GitRepo, rel: str) -> dict:
    return {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": f"{repo.root}/{rel}", "content": "x = 1\n"},
    }


def _guard_default_manifest(repo: GitRepo, rel: str) -> int:
    """The guard as installed: no --manifest, so it finds the fence the way scoring does."""
    return run_guard(["--agent", "claude", "--no-log"], json.dumps(_write_call(repo, rel)).encode())[0]


def test_the_guard_judges_by_the_committed_manifest_not_a_loosened_copy_on_disk(committed: GitRepo) -> None:
    committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
    committed.commit("the approved fence")
    assert _guard_default_manifest(committed, "other/b.py") == 2
    committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["**"])  # the agent loosens it
    assert _guard_default_manifest(committed, "other/b.py") == 2
    assert _guard_default_manifest(committed, "allowed/a.py") == 0


def test_the_guard_takes_the_jobs_own_manifest_from_the_branch(committed: GitRepo) -> None:
    committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["**"])
    committed.write_manifest(committed.root / ".score-diff/jobs/fix.json", job_id="fix", allowed_paths=["allowed/**"])
    committed.commit("a loose default and job fix's own fence")
    committed.git("checkout", "-q", "-b", "agent-fix")
    assert _guard_default_manifest(committed, "other/b.py") == 2  # job fix's fence, not the default
    committed.git("checkout", "-q", "-b", "other-work")
    assert _guard_default_manifest(committed, "other/b.py") == 0  # no job named: the default manifest
