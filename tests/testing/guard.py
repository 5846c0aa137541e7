"""score-diff guard in-process: a repository to send hook payloads to, payloads and transcripts per agent, and how each agent reads the answer."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorer import main as cli
from scorer.decision_log import read
from scorer.guard.run import GuardOptions
from scorer.guard.serve import GuardServer
from tests.testing.repo import GitRepo


def run_guard(argv: list[str], raw: bytes) -> tuple[int, str, str]:
    """`score-diff guard ARGV` in-process with `raw` on stdin: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(["guard", *argv], stdout=out, stdin=io.TextIOWrapper(io.BytesIO(raw)))
    return code, out.getvalue(), err.getvalue()


MANIFEST = {"allowed_paths": ["allowed/**"], "forbidden_globs": ["**/.env"], "forbidden_substrings": ["eval("]}


class Guarded:
    """A committed repository with a manifest and a way to send it hook payloads."""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.db = repo.scratch / "log.sqlite3"

    def send(self, payload: dict | bytes | str, agent: str = "claude", *extra: str) -> tuple[int, str, str]:
        raw = (
            payload
            if isinstance(payload, bytes)
            else (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        )
        argv = ["--agent", agent, "--manifest", str(self.repo.manifest_path), "--log-db", str(self.db), *extra]
        return run_guard(argv, raw)

    def last(self) -> dict:
        return read(self.db, limit=1)[0]


def answer_action(agent: str, code: int, stdout: str) -> str:
    if not stdout.strip():
        assert code == 0
        return "allow"
    body = json.loads(stdout)
    decision = body["hookSpecificOutput"]["permissionDecision"]
    assert code == (2 if decision == "deny" else 0)
    if decision == "allow" and "updatedInput" in body["hookSpecificOutput"]:
        command = body["hookSpecificOutput"]["updatedInput"]["command"]
        assert " jail " in command and " -- bash -c " in command, command
        return "jail"  # allowed only as rewritten: inside the job's jail (docs/guard.md)
    return decision


def observed(agent: str, code: int, out: str, err: str) -> str:
    """What the agent makes of the answer, read the way its documentation says it reads one."""
    if agent == "codex":  # exit 2 with a reason on stderr blocks; stdout stays empty
        assert out == "" and (err.strip() != "") == (code == 2)
        return "deny" if code == 2 else "allow"
    if agent == "gemini":  # exit 2 blocks with stderr as the reason; the JSON says the same
        if code == 0:
            assert (out, err) == ("", "")
            return "allow"
        body = json.loads(out)
        assert code == 2 and body["decision"] == "deny" and body["reason"] + "\n" == err
        return "deny"
    if agent == "cursor":  # the JSON permission; a deny also exits 2 with the reason on stderr
        body = json.loads(out)
        if body["permission"] == "deny":
            assert code == 2 and body["agent_message"] + "\n" == err and body["user_message"] == body["agent_message"]
        else:
            assert code == 0 and err == "" and (body == {"permission": "allow"} or body["permission"] == "ask")
        return str(body["permission"])
    if agent == "copilot":  # only a JSON deny on exit 0 blocks; exit 2 would be a warning
        assert code == 0
        if not out:
            return "allow"
        body = json.loads(out)
        assert body["permissionDecision"] == "deny" and body["permissionDecisionReason"]
        return "deny"
    return answer_action(agent, code, out)


def _payload(
    g: Guarded,
    tool: str,
    session: str = "s1",
    prompt: str | None = "p1",
    transcript: str | None = None,
    **tool_input: object,
) -> dict:
    data: dict = {
        "session_id": session,
        "cwd": str(g.repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if prompt:
        data["prompt_id"] = prompt
    if transcript:
        data["transcript_path"] = transcript
    return data


def transcript_dir(agent: str) -> Path:
    """Where the agent keeps transcripts under the test's HOME: the only place the guard reads one."""
    import os

    sub = {"claude": ".claude/projects/-repo", "codex": ".codex/sessions/2026/12/01"}[agent]
    found = Path(os.environ["HOME"]) / sub
    found.mkdir(parents=True, exist_ok=True)
    return found


def _transcript(path: Path, *texts: str) -> str:
    lines = [{"type": "user", "message": {"role": "user", "content": "fix the build"}}]
    lines += [
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": t}]}} for t in texts
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


@contextlib.contextmanager
def serving(repo: GitRepo, log_db: str | None = None, **kwargs: Any) -> Iterator[GuardServer]:
    """`score-diff serve` for Claude Code on a loopback port of its own, in a thread; logged to
    `log_db` when one is given. Shut down and closed on the way out."""
    opts = GuardOptions("claude", str(repo.manifest_path), str(repo.root), log=log_db is not None, log_db=log_db)
    server = GuardServer(0, {"HOME": str(repo.scratch), "PATH": os.environ["PATH"]}, opts, **kwargs)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def write_payload(repo: GitRepo, path: str, session: str = "s") -> bytes:
    """Claude Code's PreToolUse payload for a Write of one small Python line to `path` in `repo`."""
    return json.dumps(
        {
            "session_id": session,
            "prompt_id": "p",
            "cwd": str(repo.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": f"{repo.root}/{path}", "content": "x = 1\n"},
        }
    ).encode()
