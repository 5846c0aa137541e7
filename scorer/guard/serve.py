"""`score-diff serve`: the guard as a loopback sidecar, for HTTP hooks and for agents that make
hundreds of tool calls (no interpreter start-up per call).

`POST /score?agent=NAME` with the hook payload as the body answers with that agent's JSON
(HTTP 200 even for deny, so a hook that reads only the body still blocks: Claude Code's
HTTP hooks treat a non-2xx status as a non-blocking error). Standard library only, bound
to 127.0.0.1 (any other address is refused), bounded request size, one manifest per
repository root kept in memory and re-read when its bytes change.
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .payload import AGENTS, MAX_PAYLOAD_BYTES

DEFAULT_PORT = 7749
LOOPBACK = "127.0.0.1"


class GuardServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, environ: Mapping[str, str], options: Any) -> None:
        from .run import FenceCache

        self.environ = dict(environ)
        self.options = options  # run.Options without the agent
        self.cache = FenceCache()
        self.lock = threading.Lock()  # one decision at a time: turn state and the manifest cache are shared
        super().__init__((LOOPBACK, port), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: GuardServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # every decision is in the decision log; no request lines on the terminal

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/health":
            self._send(200, {"ok": True})
        else:
            self._send(404, {"error": "POST /score?agent=NAME"})

    def do_POST(self) -> None:
        from .answer import render
        from .decide import refuse
        from .run import guard

        url = urlsplit(self.path)
        agent = (parse_qs(url.query).get("agent") or ["claude"])[0]
        length = self.headers.get("Content-Length")
        if url.path != "/score" or agent not in AGENTS:
            self._send(404, {"error": f"POST /score?agent={'|'.join(AGENTS)}"})
            return
        if length is None or not length.isdigit() or int(length) > MAX_PAYLOAD_BYTES:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            self._send(
                200, render(refuse("invalid-payload", "request has no Content-Length or is too large"), agent).body
            )
            return
        raw = self.rfile.read(int(length))
        with self.server.lock:
            outcome = guard(raw, self.server.options._replace(agent=agent), self.server.environ, self.server.cache)
        self._send(200, outcome.answer.body)


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
