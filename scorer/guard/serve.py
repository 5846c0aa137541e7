"""`score-diff serve`: the guard as a loopback sidecar, for agents that make hundreds of tool calls
(no interpreter start-up per call).

`POST /score?agent=NAME` with the hook payload as a JSON body answers with that agent's JSON,
always HTTP 200: Claude Code's HTTP hooks treat a non-2xx status, a connection failure and a
timeout alike as a non-blocking error that lets the call run (https://code.claude.com/docs/en/hooks,
"HTTP response handling"), so every refusal here, an unknown agent, a wrong path and an internal
failure included, is the agent's deny in a 200 (an unknown agent gets Claude Code's).

Bound to 127.0.0.1 only. A request whose Host is not a loopback name (DNS rebinding) or whose
Content-Type is not JSON (a web page can POST text/plain across origins without a preflight)
is denied unread. Each request runs on a thread of its own, so one session's slow call never
holds up another's; the threads are kept for the next requests (workers.py), capped, and every
socket read and write has a deadline, so half-sent requests cannot pile up threads. Requests
that arrive together for one repository share one fence read that began after each of them
arrived (coalesce.py), and the decision log is written by one thread, in batches, once the
requests that came together have been answered. Standard library only.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import queue
import socket
import sys
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .payload import AGENTS, CLAUDE, MAX_PAYLOAD_BYTES
from .workers import IDLE_S, Workers

DEFAULT_PORT = 7749
LOOPBACK = "127.0.0.1"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})
MAX_THREADS = 64  # requests decided at once; one more is denied at once, unread
LOG_BACKLOG = 10_000  # decisions waiting for the log writer
LOG_BATCH = 256  # rows written with one journal append
LOG_YIELD_S = 0.2  # how long the log writer waits for the requests being decided to be answered
LOG_QUIET_S = 0.01  # and for this long with none arriving (an agent's parallel calls come together)
SOCKET_TIMEOUT_S = 5.0  # every read and write of a request; well inside an agent's hook timeout


def deny_body(agent: str, reason: str) -> dict[str, Any]:
    """The agent's deny as the sidecar's body (Claude Code's for a name that is no agent)."""
    from .answer import render
    from .decide import refuse

    return render(refuse("invalid-payload", reason), agent if agent in AGENTS else CLAUDE).body


def _response(body: dict[str, Any], close: bool) -> bytes:
    data = json.dumps(body).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    return (head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + data


class GuardServer(HTTPServer):
    request_queue_size = 128

    def __init__(
        self,
        port: int,
        environ: Mapping[str, str],
        options: Any,
        max_threads: int = MAX_THREADS,
        timeout_s: float = SOCKET_TIMEOUT_S,
        idle_s: float = IDLE_S,
    ) -> None:
        from .run import FenceCache

        self.environ = dict(environ)
        self.options = options  # run.GuardOptions without the agent
        self.cache = FenceCache()  # shared by the threads: plain dict reads and writes
        self.cache.reads  # noqa: B018  # the shared reads made now, before any thread could race to make them
        self.slots = threading.BoundedSemaphore(max_threads)
        self.busy = 0  # requests being decided now (changed under busy_lock)
        self.started = 0  # requests taken so far (changed under busy_lock)
        self.closing = False
        self.workers = Workers(idle_s)
        self.busy_lock = threading.Lock()
        self.idle = threading.Condition(self.busy_lock)  # notified when no request is being decided
        self.timeout_s = timeout_s
        self.failures = 0
        self.log_warned = False
        # One thread writes the decision log, in order, after the answers have gone: the
        # answer never waits on it, and ten requests do not contend for the log's lock.
        self.log_queue: queue.Queue[tuple[Any, str, float] | None] = queue.Queue(maxsize=LOG_BACKLOG)
        self._logger = threading.Thread(target=self._write_log, name="score-diff-log", daemon=True)
        self._logger.start()
        super().__init__((LOOPBACK, port), _Handler)

    def record(self, outcome: Any, agent: str, duration_s: float) -> None:
        try:
            self.log_queue.put_nowait((outcome, agent, duration_s))
        except queue.Full:
            self._warn_log(f"decision log not written: {LOG_BACKLOG} decisions are waiting to be logged")

    def _write_log(self) -> None:
        from .run import log_batch

        while True:
            batch = [self.log_queue.get()]
            self._wait_for_quiet()
            with contextlib.suppress(queue.Empty):
                while len(batch) < LOG_BATCH:
                    batch.append(self.log_queue.get_nowait())
            items = [item for item in batch if item is not None]
            try:
                warnings = log_batch([(o, self.options._replace(agent=a), d) for o, a, d in items])
            except Exception as exc:  # log_batch warns rather than raises; this is a last resort
                warnings = [f"decision log not written: {type(exc).__name__}: {exc}"]
            if warnings:
                self._warn_log(warnings[0])
            if len(items) < len(batch):  # server_close's sentinel: everything before it is written
                return

    def _wait_for_quiet(self) -> None:
        """Answers first: until no request is being decided and none has come for LOG_QUIET_S,
        for at most LOG_YIELD_S (the log is written between bursts, not polled for)."""
        until = time.monotonic() + LOG_YIELD_S
        with self.idle:
            while (left := until - time.monotonic()) > 0:
                if not self.idle.wait_for(lambda: not self.busy or self.closing, left) or self.closing:
                    return
                seen = self.started
                self.idle.wait(min(LOG_QUIET_S, max(0.0, until - time.monotonic())))  # woken by server_close
                if self.started == seen and not self.busy:
                    return

    def _warn_log(self, warning: str) -> None:
        if not self.log_warned:  # said once, not once a request
            self.log_warned = True
            sys.stderr.write(f"score-diff serve: {warning}\n")

    def server_close(self) -> None:
        """Stop accepting, then write every decision still queued."""
        super().server_close()
        self.workers.close()
        self.cache.close()  # the cat-file processes kept for HEAD (heads.py)
        with self.idle:  # the log writer stops waiting for quiet
            self.closing = True
            self.idle.notify_all()
        self.log_queue.put(None)
        self._logger.join()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self._overloaded(request)
            return
        self._count(1)
        try:
            self.workers.submit(lambda: self._handle(request, client_address), lambda: self._release(request))
        except BaseException:
            self._release(request)
            raise

    def _handle(self, request: Any, client_address: Any) -> None:
        """socketserver.ThreadingMixIn.process_request_thread, on a kept thread; the socket is
        shut in `_release`, once the thread waits for work again: a client that sends its next
        request when this connection ends finds it waiting."""
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)

    def _release(self, request: Any) -> None:
        try:
            self.shutdown_request(request)
        finally:
            self._count(-1)
            self.slots.release()

    def _count(self, delta: int) -> None:
        with self.idle:
            self.busy += delta
            self.started += delta > 0
            if not self.busy:
                self.idle.notify_all()

    def _overloaded(self, request: socket.socket) -> None:
        """Every thread is busy: deny at once, in the agent's words where the request line has
        already arrived, without waiting for the client (this runs in the accepting thread)."""
        agent = CLAUDE
        try:
            request.setblocking(False)
            with contextlib.suppress(BlockingIOError, IndexError, UnicodeError):  # nothing sent yet
                first = request.recv(2048, socket.MSG_PEEK).split(b"\r\n", 1)[0].decode("latin-1")
                agent = _agent(first.split(" ")[1]) if first.count(" ") >= 2 else CLAUDE
            request.settimeout(0.1)
            request.sendall(_response(deny_body(agent, "score-diff serve is at capacity; retry"), close=True))
        except OSError:
            pass
        finally:
            self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that stalls or goes away is not a traceback; anything else is one line, once."""
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            return
        self.failures += 1
        if self.failures == 1:
            sys.stderr.write(f"score-diff serve: a request failed: {type(exc).__name__}: {exc}\n")


def _agent(target: str) -> str:
    return (parse_qs(urlsplit(target).query).get("agent") or [CLAUDE])[0]


def _host_is_loopback(host: str | None) -> bool:
    if not host:
        return False
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return name.lower() in LOOPBACK_HOSTS


def _is_json(content_type: str | None) -> bool:
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


class _Handler(BaseHTTPRequestHandler):
    server: GuardServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.timeout_s)  # every read and write of this request

    def log_message(self, format: str, *args: Any) -> None:
        pass  # every decision is in the decision log; no request lines on the terminal

    def _send(self, body: dict[str, Any], close: bool = False) -> None:
        if close:
            self.close_connection = True
        self.wfile.write(_response(body, close))

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a malformed request line, an unknown method, a header too
        long) are denies too: its 4xx and 5xx would let the call run."""
        self.close_connection = True
        reason = f"the sidecar could not read the request ({code} {message or ''})".replace(" )", ")")
        with contextlib.suppress(OSError):
            self.wfile.write(_response(deny_body(_agent(getattr(self, "path", "") or ""), reason), close=True))

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/health" and _host_is_loopback(self.headers.get("Host")):
            self._send({"ok": True})
        else:
            self._send(deny_body(_agent(self.path), "the sidecar answers POST /score?agent=NAME"), close=True)

    def do_POST(self) -> None:
        agent = _agent(self.path)
        try:
            refused = self._refusal(agent)
            if refused is not None:
                self._send(deny_body(agent, refused), close=True)  # the body is not read
                return
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            started = time.monotonic()
            outcome = self._decide(agent, raw)
            body = outcome.answer.body
        except OSError:
            raise  # the client stalled or went away: no answer can reach it
        except Exception as exc:  # fail closed: an internal failure is a deny, never a 500
            outcome, body = None, deny_body(agent, f"score-diff serve failed: {type(exc).__name__}: {exc}")
        self._send(body)
        self.wfile.flush()
        if outcome is not None:  # the answer never waits on the decision log
            self.server.record(outcome, agent, time.monotonic() - started)

    def _refusal(self, agent: str) -> str | None:
        length = self.headers.get("Content-Length")
        if urlsplit(self.path).path != "/score" or agent not in AGENTS:
            return f"the sidecar answers POST /score?agent={'|'.join(AGENTS)}"
        if not _host_is_loopback(self.headers.get("Host")):
            return "the request's Host is not 127.0.0.1 or localhost (a web page's request is refused)"
        if not _is_json(self.headers.get("Content-Type")):
            return "the request's Content-Type is not application/json"
        if length is None or not length.isdigit() or int(length) > MAX_PAYLOAD_BYTES:
            return "request has no Content-Length or is too large"
        return None

    def _decide(self, agent: str, raw: bytes) -> Any:
        from .run import evaluate

        server = self.server
        return evaluate(raw, server.options._replace(agent=agent), server.environ, server.cache)


def check_bind(address: str) -> None:
    """Refuse anything but the IPv4 loopback: the sidecar answers for the local agent only."""
    if address == "localhost":
        return
    try:
        ok = ipaddress.ip_address(address) == ipaddress.ip_address(LOOPBACK)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"refusing to bind {address!r}: score-diff serve listens on {LOOPBACK} only")
