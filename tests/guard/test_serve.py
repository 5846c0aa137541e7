"""score-diff serve (the sidecar) and score-diff guard install."""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer import main as cli
from scorer.commands.serve import make_server
from scorer.context import Context
from scorer.guard.serve import GuardServer, check_bind
from tests.testing.repo import GitRepo


@contextlib.contextmanager
def sidecar(repo: GitRepo, *extra: str) -> Iterator[int]:
    """The sidecar on an ephemeral loopback port, stopped (bounded) afterwards."""
    p = argparse.ArgumentParser()
    from scorer.commands.serve import add_arguments

    add_arguments(p)
    args = p.parse_args(
        ["--port", "0", "--manifest", str(repo.manifest_path), "--log-db", str(repo.scratch / "log.sqlite3"), *extra]
    )
    ctx = Context(
        environ={"HOME": str(repo.scratch)},
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        stdin=io.StringIO(),
        cwd=str(repo.root),
    )
    server = make_server(args, ctx)
    assert isinstance(server, GuardServer)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def post(port: int, body: bytes, agent: str = "claude", path: str | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path or f"/score?agent={agent}", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, json.loads(data) if data else {}


def write(repo: GitRepo, path: str, content: str = "x\n") -> bytes:
    return json.dumps(
        {
            "session_id": "s",
            "prompt_id": "p",
            "cwd": str(repo.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": f"{repo.root}/{path}", "content": content},
        }
    ).encode()


def decision(body: dict) -> str:
    return body.get("hookSpecificOutput", {}).get("permissionDecision", "allow")


def test_sidecar_answers_in_the_agents_format_with_200_even_for_deny(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**"])
    with sidecar(committed) as port:
        assert post(port, write(committed, "allowed/a.py")) == (200, {})
        status, body = post(port, write(committed, "other/b.py"))
        assert status == 200 and decision(body) == "deny"
        assert "other/b.py is not in allowed_paths" in body["hookSpecificOutput"]["permissionDecisionReason"]
        status, body = post(port, b"not json", "codex")
        assert status == 200 and decision(body) == "deny" and "additionalContext" not in body["hookSpecificOutput"]
        status, body = post(port, b"{}", path="/other")  # a wrong path is a deny too, never a 404
        assert status == 200 and decision(body) == "deny"


def test_sidecar_rereads_the_manifest_when_it_changes(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**"])
    with sidecar(committed) as port:
        assert decision(post(port, write(committed, "other/b.py"))[1]) == "deny"
        committed.manifest(allowed_paths=["allowed/**", "other/**"])
        assert decision(post(port, write(committed, "other/b.py"))[1]) == "allow"
        committed.manifest_path.write_text("{broken")
        assert decision(post(port, write(committed, "allowed/a.py"))[1]) == "deny"


def test_sidecar_refuses_a_request_without_a_bounded_length(committed: GitRepo):
    with sidecar(committed) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.putrequest("POST", "/score?agent=claude")
        conn.putheader("Content-Length", str(10**12))
        conn.endheaders()
        resp = conn.getresponse()
        body = json.loads(resp.read())
        conn.close()
        assert resp.status == 200 and decision(body) == "deny"


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "192.168.1.5", "example.com", "127.0.0.2"])
def test_serve_refuses_other_bind_addresses(address: str):
    with pytest.raises(ValueError, match=r"127\.0\.0\.1 only"):
        check_bind(address)
    out = io.StringIO()
    assert cli.main(["serve", "--bind", address, "--port", "0"], stdout=out) == 2
    assert "refusing to bind" in out.getvalue()


@pytest.mark.parametrize(("agent", "path"), [("claude", ".claude/settings.json"), ("codex", ".codex/hooks.json")])
def test_install_merges_and_keeps_the_users_hooks(committed: GitRepo, agent: str, path: str):
    target = committed.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}
    target.write_text(json.dumps({"model": "x", "hooks": {"PreToolUse": [mine]}}))
    for _ in range(2):  # a second install adds nothing
        assert cli.main(["guard", "install", "--agent", agent], stdout=io.StringIO(), cwd=str(committed.root)) == 0
    data = json.loads(target.read_text())
    assert data["model"] == "x" and data["hooks"]["PreToolUse"][0] == mine
    guard = {"matcher": "*", "hooks": [{"type": "command", "command": f"score-diff guard --agent {agent}"}]}
    assert data["hooks"]["PreToolUse"][1:] == [guard]
    assert data["hooks"]["UserPromptSubmit"] == [{"hooks": guard["hooks"]}]


def test_install_gemini_merges_into_project_settings(committed: GitRepo):
    target = committed.root / ".gemini" / "settings.json"
    target.parent.mkdir()
    mine = {"matcher": "write_file|replace", "hooks": [{"name": "lint", "type": "command", "command": "./lint.sh"}]}
    target.write_text(json.dumps({"hooksConfig": {"enabled": True}, "hooks": {"BeforeTool": [mine]}}))
    for _ in range(2):  # a second install adds nothing
        assert cli.main(["guard", "install", "--agent", "gemini"], stdout=io.StringIO(), cwd=str(committed.root)) == 0
    data = json.loads(target.read_text())
    guard = [{"type": "command", "command": "score-diff guard --agent gemini"}]
    assert data["hooksConfig"] == {"enabled": True} and data["hooks"]["BeforeTool"] == [
        mine,
        {"matcher": "*", "hooks": guard},
    ]
    assert data["hooks"]["BeforeAgent"] == [{"hooks": guard}]


def test_install_copilot_writes_its_own_hooks_file_and_merges_it(committed: GitRepo):
    hooks = committed.root / ".github" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "mine.json").write_text('{"version": 1, "hooks": {"preToolUse": []}}')
    target = hooks / "score-diff.json"
    mine = {"type": "command", "bash": "./audit.sh", "matcher": "bash"}
    target.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [mine], "sessionEnd": [mine]}}))
    for _ in range(2):
        assert cli.main(["guard", "install", "--agent", "copilot"], stdout=io.StringIO(), cwd=str(committed.root)) == 0
    data = json.loads(target.read_text())
    command = "score-diff guard --agent copilot"
    guard = {"type": "command", "bash": command, "powershell": command, "timeoutSec": 30}
    assert data == {
        "version": 1,
        "hooks": {"preToolUse": [mine, guard], "sessionEnd": [mine], "userPromptSubmitted": [guard]},
    }
    assert (hooks / "mine.json").read_text() == '{"version": 1, "hooks": {"preToolUse": []}}'


@pytest.mark.parametrize(
    ("agent", "path", "content"),
    [
        ("copilot", ".github/hooks/score-diff.json", '{"version": 2, "hooks": {}}'),
        ("gemini", ".gemini/settings.json", '{"hooks": {"BeforeTool": {}}}'),
        ("gemini", ".gemini/settings.json", "[]"),
    ],
)
def test_install_refuses_a_file_it_cannot_merge(committed: GitRepo, agent: str, path: str, content: str):
    target = committed.root / path
    target.parent.mkdir(parents=True)
    target.write_text(content)
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", agent], stdout=out, cwd=str(committed.root)) == 2
    assert "cannot merge" in out.getvalue() and target.read_text() == content


@pytest.mark.parametrize(("agent", "path"), [("gemini", ".gemini"), ("copilot", ".github")])
def test_install_print_writes_nothing_for_every_agent(committed: GitRepo, agent: str, path: str):
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", agent, "--print"], stdout=out, cwd=str(committed.root)) == 0
    assert "score-diff guard --agent " + agent in out.getvalue() and not (committed.root / path).exists()


@pytest.mark.parametrize(
    "argv",
    [[a] for a in ("claude", "codex", "gemini", "copilot", "cursor")]
    + [["claude", "--sidecar"], ["codex", "--no-sandbox"]],
)
def test_install_print_is_one_json_document_ending_in_one_newline(committed: GitRepo, argv: list[str]):
    """Issue 27 item 9: `--print > file` (or a shell prompt after it) needs the final newline."""
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", *argv, "--print"], stdout=out, cwd=str(committed.root)) == 0
    text = out.getvalue()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert isinstance(json.loads(text), dict)


def test_sidecar_answers_gemini_and_copilot_in_their_formats(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**"])
    gemini = {"session_id": "g", "cwd": str(committed.root), "hook_event_name": "BeforeTool", "tool_name": "write_file"}
    copilot = {"sessionId": "c", "cwd": str(committed.root), "toolName": "edit"}
    with sidecar(committed) as port:
        ok = {**gemini, "tool_input": {"file_path": "allowed/a.py", "content": "x\n"}}
        assert post(port, json.dumps(ok).encode(), "gemini") == (200, {})
        bad = {**gemini, "tool_input": {"file_path": "other/b.py", "content": "x\n"}}
        status, body = post(port, json.dumps(bad).encode(), "gemini")
        assert status == 200 and body["decision"] == "deny" and "other/b.py" in body["reason"]
        bad = {**copilot, "toolArgs": json.dumps({"path": "other/b.py", "new_str": "x"})}
        status, body = post(port, json.dumps(bad).encode(), "copilot")
        assert (
            status == 200 and body["permissionDecision"] == "deny" and "other/b.py" in body["permissionDecisionReason"]
        )
        assert post(port, b"[]", "copilot")[1]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    "path", [".gemini/settings.json", ".github/hooks/score-diff.json", ".github/copilot/settings.json"]
)
def test_gemini_and_copilot_configuration_are_sensitive_for_the_diff_gate(committed: GitRepo, path: str):
    committed.manifest(allowed_paths=["allowed/**", path])
    committed.write(path, "{}\n")
    out = committed.score()
    assert path in out.paths("sensitive-path")


def test_install_print_writes_nothing(committed: GitRepo):
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", "claude", "--print"], stdout=out, cwd=str(committed.root)) == 0
    assert json.loads(out.getvalue())["hooks"]["PreToolUse"][0]["matcher"] == "*"
    assert not (committed.root / ".claude").exists()


def test_agent_configuration_is_a_sensitive_path_for_the_diff_gate(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**", ".claude/settings.json"])
    committed.write(".claude/settings.json", "{}\n")
    out = committed.score()
    assert "sensitive-path" in out.codes and ".claude/settings.json" in out.paths("sensitive-path")


def test_sensitive_state_lives_in_the_git_directory(committed: GitRepo, tmp_path: Path):
    committed.manifest(allowed_paths=["allowed/**", "Makefile"])
    with sidecar(committed) as port:
        assert decision(post(port, write(committed, "Makefile"))[1]) == "deny"
        assert decision(post(port, write(committed, "Makefile"))[1]) == "allow"
    state = json.loads((committed.root / ".git" / "score-diff" / "guard-turns.json").read_text())
    assert state["s"]["prompted"] == ["Makefile"] and state["s"]["turn"] == "id:p"
