"""score-diff serve under hostile and busy clients, over real loopback sockets.

Every refusal is the agent's deny in an HTTP 200 (a non-2xx answer lets Claude Code run the
call); requests are decided in parallel; threads are capped (and kept between requests) and sockets time out.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import threading
from typing import Any

import pytest

from scorer.guard import serve
from tests.testing.guard import serving
from tests.testing.guard import write_payload as payload
from tests.testing.repo import GitRepo


def exchange(port: int, request: bytes) -> tuple[str, dict[str, Any]]:
    """Send raw bytes, read the whole answer: (status line, JSON body)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = [int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")]
            if length and len(body) >= length[0]:
                break
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), json.loads(body) if body else {}


def request(
    body: bytes,
    target: str = "/score?agent=claude",
    host: str = "127.0.0.1",
    content_type: str | None = "application/json",
    method: str = "POST",
) -> bytes:
    headers = [f"{method} {target} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}", "Connection: close"]
    if content_type is not None:
        headers.append(f"Content-Type: {content_type}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


def claude_decision(body: dict[str, Any]) -> str:
    return str(body.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


@pytest.fixture
def fenced(committed: GitRepo) -> GitRepo:
    committed.manifest(allowed_paths=["allowed/**"])
    return committed


def test_an_allowed_write_is_allowed(fenced: GitRepo) -> None:
    with serving(fenced) as server:
        status, body = exchange(server.server_address[1], request(payload(fenced, "allowed/a.py")))
    assert status == "HTTP/1.1 200 OK" and body == {}


def test_every_decision_is_logged_after_its_answer(fenced: GitRepo) -> None:
    from scorer.decision_log import read

    db = fenced.scratch / "log.sqlite3"
    with serving(fenced, log_db=str(db)) as server:
        port = server.server_address[1]
        for path in ("allowed/a.py", "other/b.py", "allowed/c.py"):
            exchange(port, request(payload(fenced, path)))
    rows = read(db, limit=10)  # closing the server wrote every queued decision
    assert sorted(r["decision"] for r in rows) == ["allow", "allow", "deny"]


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"host": "evil.example:7749"}, "Host"),  # DNS rebinding: a page on evil.example reaches 127.0.0.1
        ({"host": "127.0.0.1.evil.example"}, "Host"),
        ({"host": ""}, "Host"),
        ({"content_type": "text/plain"}, "Content-Type"),  # a simple cross-origin POST, no preflight
        ({"content_type": "application/x-www-form-urlencoded"}, "Content-Type"),  # curl --data's default
        ({"content_type": None}, "Content-Type"),
        ({"target": "/score?agent=nobody"}, "POST /score"),
        ({"target": "/other?agent=claude"}, "POST /score"),
        ({"method": "PUT"}, "could not read"),  # http.server's 501 would let the call run
        ({"method": "BREW"}, "could not read"),
        ({"method": "GET"}, "POST /score"),
    ],
)
def test_every_refusal_is_a_deny_in_a_200(fenced: GitRepo, kwargs: dict[str, Any], why: str) -> None:
    with serving(fenced) as server:
        status, body = exchange(server.server_address[1], request(payload(fenced, "allowed/a.py"), **kwargs))
    assert status == "HTTP/1.1 200 OK"
    assert claude_decision(body) == "deny" and why in body["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"POST /score?agent=claude HTTP/9.9\r\n\r\n", b"\r\n\r\n"])
def test_a_request_http_server_cannot_read_is_a_deny(fenced: GitRepo, raw: bytes) -> None:
    with serving(fenced) as server:
        status, body = exchange(server.server_address[1], raw)
    assert status in ("HTTP/1.1 200 OK", "") and (status == "" or claude_decision(body) == "deny")


def test_the_legitimate_neighbours_are_answered(fenced: GitRepo) -> None:
    with serving(fenced) as server:
        port = server.server_address[1]
        for host, ctype in [("localhost:7749", "application/json; charset=utf-8"), ("LOCALHOST", "Application/JSON")]:
            status, body = exchange(port, request(payload(fenced, "allowed/a.py"), host=host, content_type=ctype))
            assert (status, body) == ("HTTP/1.1 200 OK", {})
        status, body = exchange(port, request(payload(fenced, "other/b.py")))
        assert claude_decision(body) == "deny"


def test_an_unknown_agent_gets_claudes_deny_and_a_known_one_its_own(fenced: GitRepo) -> None:
    with serving(fenced) as server:
        _, gemini = exchange(server.server_address[1], request(b"{", target="/score?agent=gemini"))
    assert gemini["decision"] == "deny"


def test_an_internal_failure_is_a_deny(fenced: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: Any, agent: str, raw: bytes) -> Any:
        raise RuntimeError("broken")

    monkeypatch.setattr(serve._Handler, "_decide", boom)
    with serving(fenced) as server:
        status, body = exchange(server.server_address[1], request(payload(fenced, "allowed/a.py")))
    assert status == "HTTP/1.1 200 OK" and claude_decision(body) == "deny"
    assert "RuntimeError" in body["hookSpecificOutput"]["permissionDecisionReason"]


def test_one_sessions_slow_call_does_not_hold_up_anothers(fenced: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from scorer.guard import run

    release, entered = threading.Event(), threading.Event()
    real = run.evaluate

    def evaluate(raw: bytes, *args: Any) -> Any:
        if b'"slow"' in raw:
            entered.set()
            release.wait()
        return real(raw, *args)

    monkeypatch.setattr(run, "evaluate", evaluate)
    with serving(fenced) as server:
        port = server.server_address[1]
        answers: list[dict[str, Any]] = []
        slow = threading.Thread(target=lambda: answers.append(exchange(port, request(payload(fenced, "a", "slow")))[1]))
        slow.start()
        entered.wait()
        _, body = exchange(port, request(payload(fenced, "allowed/a.py", "fast")))  # answered while slow waits
        assert body == {} and not answers
        release.set()
        slow.join()
    assert claude_decision(answers[0]) == "deny"


def test_half_sent_requests_hold_no_more_threads_than_the_cap(fenced: GitRepo) -> None:
    stderr = io.StringIO()
    # idle_s: the kept handler threads (guard/workers.py) end soon after their clients go, so the
    # count below falls back as it did when each request had a thread of its own.
    with contextlib.redirect_stderr(stderr), serving(fenced, max_threads=16, idle_s=0.05) as server:
        port = server.server_address[1]
        before = threading.active_count()
        stalled = []
        for _ in range(400):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"POST /score?agent=claude HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n")
            stalled.append(sock)
        # One more client is answered (a deny: every slot is taken) instead of waiting behind them.
        status, body = exchange(port, request(payload(fenced, "allowed/a.py")))
        assert status == "HTTP/1.1 200 OK" and claude_decision(body) == "deny"
        assert threading.active_count() <= before + 16
        for sock in stalled:
            sock.close()
        while threading.active_count() > before:  # the handlers see the clients go and end
            threading.Event().wait(0.05)
        status, body = exchange(port, request(payload(fenced, "allowed/a.py")))
        assert body == {}  # capacity is back
    assert "Traceback" not in stderr.getvalue() and stderr.getvalue() == ""


def test_a_stalled_client_times_out_quietly(fenced: GitRepo) -> None:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), serving(fenced, timeout_s=0.2, idle_s=0.05) as server:
        port = server.server_address[1]
        before = threading.active_count()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(request(b'{"session_id": "s"', content_type="application/json")[:-5])  # body cut short
            while threading.active_count() > before:  # the handler gives up on its own deadline
                threading.Event().wait(0.05)
            assert sock.recv(100) == b""  # and closes the connection without an answer
    assert stderr.getvalue() == ""


# --- guard install --agent claude --sidecar: a command hook through curl, failing closed -----------


def _hook_command(repo: GitRepo, port: int) -> str:
    from scorer.guard.install import run_install

    out = io.StringIO()
    assert run_install(["--agent", "claude", "--sidecar", "--port", str(port), "--repo", str(repo.root)], {}, out) == 0
    settings = json.loads((repo.root / ".claude/settings.json").read_text(encoding="utf-8"))
    [group] = settings["hooks"]["PreToolUse"]
    assert group["matcher"] == "*"
    return str(group["hooks"][0]["command"])


def _run_hook(command: str, raw: bytes) -> tuple[int, str, str]:
    import subprocess

    proc = subprocess.run(["bash", "-c", command], input=raw, capture_output=True, check=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_the_sidecar_hook_asks_the_sidecar(fenced: GitRepo) -> None:
    with serving(fenced) as server:
        command = _hook_command(fenced, server.server_address[1])
        assert _run_hook(command, payload(fenced, "allowed/a.py")) == (0, "{}", "")  # no decision: the normal flow
        code, out, _ = _run_hook(command, payload(fenced, "other/b.py"))
    assert code == 0 and claude_decision(json.loads(out)) == "deny"  # Claude Code reads the JSON on exit 0


def test_the_sidecar_hook_fails_closed_when_the_sidecar_is_down(fenced: GitRepo) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out, err = _run_hook(_hook_command(fenced, port), payload(fenced, "allowed/a.py"))
    assert code == 2 and f"score-diff serve did not answer on 127.0.0.1:{port}" in err  # exit 2 blocks


def test_the_sidecar_install_is_idempotent_and_claude_only(fenced: GitRepo) -> None:
    from scorer.guard.install import run_install

    _hook_command(fenced, 7749)
    first = (fenced.root / ".claude/settings.json").read_text(encoding="utf-8")
    _hook_command(fenced, 7749)
    assert (fenced.root / ".claude/settings.json").read_text(encoding="utf-8") == first
    with pytest.raises(SystemExit):
        run_install(["--agent", "codex", "--sidecar", "--repo", str(fenced.root)], {}, io.StringIO())
