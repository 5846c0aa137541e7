"""The rule that no test, and not the demo, sends a packet to any address but loopback, even to
show that it fails (docs: STYLE.md, issue 26). A test of the network jail connects to a listener
on 127.0.0.1 in score-diff's own namespace; a test of the observer raises the connect's audit
event with sys.audit, which does no socket I/O."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREES = ("tests", "scorer", "benchmarks")
IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")
# A call that sends, with a literal host as its first argument (alone or first in a tuple).
SENDS = re.compile(
    r"\b(?:connect|connect_ex|create_connection|sendto|HTTPS?Connection|urlopen|getaddrinfo|gethostbyname|Request)"
    r"\s*\(\s*\(?\s*(?:b?['\"])((?:https?://)?[^'\"]+)['\"]"
)
# Where a non-loopback literal sends nothing: the audit event alone, and the finding it yields.
HARMLESS = re.compile(r"sys\.audit\(|connected to \d")
ALLOWED = {  # (path, literal): why it sends no packet
    ("tests/test_decision_log.py", "10.1.2.3"): "a value planted for redaction, never an address used",
    ("tests/test_decision_log.py", "192.168.100.254"): "a value planted for redaction, never an address used",
    ("tests/project/test_docs.py", "1.2.3.4"): "the redaction docs' own example, scrubbed as text",
    ("tests/guard/test_serve.py", "192.168.1.5"): "a bind address serve refuses before any socket",
    (
        "tests/testrun/test_observer.py",
        "203.0.113.7",
    ): "an audit event's argument, handed to the hook itself: no socket call",
}


def _loopback(host: str) -> bool:
    host = re.sub(r"^https?://", "", host).split("/")[0]
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False  # a name: resolving it is a packet
    return address.is_loopback or address.is_unspecified  # 0.0.0.0 as a destination is this host


def _files() -> list[Path]:
    found = []
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".sqlite"):
                found.append(path)
    return found


def offences(rel: str, text: str) -> list[str]:
    """Each place in `text` that names a non-loopback address where a packet could go."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in SENDS.finditer(line):
            if not match.group(1).startswith(("/", "\\0")) and not _loopback(match.group(1)):
                found.append(f"{rel}:{number}: sends to {match.group(1)}")
        for literal in IPV4.findall(line):
            if _loopback(literal) or (rel, literal) in ALLOWED or HARMLESS.search(line):
                continue
            found.append(f"{rel}:{number}: non-loopback address {literal}")
    return found


def test_no_test_nor_the_demo_names_an_address_off_loopback() -> None:
    found = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "tests/project/test_loopback_only.py":
            continue  # this file's own tables
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += offences(rel, text)
    assert found == []


def test_every_allowed_literal_is_still_there() -> None:
    """An allow-list entry whose literal left its file would silently allow the next one."""
    for rel, literal in ALLOWED:
        assert literal in (ROOT / rel).read_text(encoding="utf-8"), (rel, literal)


@pytest.mark.parametrize(
    ("line", "fires"),
    [
        ("socket.create_connection(('192.0.2.1', 443), timeout=2)", True),
        ('s.connect(("192.0.2.1", 80))', True),
        ('s.connect(("example.com", 80))', True),
        ('urlopen("https://pypi.org/simple/")', True),
        ('s.sendto(b"x", ("8.8.8.8", 53))', True),
        ('ADDRESS = ("203.0.113.7", 80)', True),  # a literal that a later connect could use
        ('http.client.HTTPConnection("10.0.0.1", port)', True),
        # must not fire
        ('sys.audit("socket.connect", s, ("192.0.2.1", 80))', False),
        ('assert observed == ["connected to 192.0.2.1:443"]', False),
        ('socket.create_connection(("127.0.0.1", port))', False),
        ('socket.create_connection(("::1", port)).close()', False),
        ('http.client.HTTPConnection("127.0.0.1", port, timeout=10)', False),
        ('s.connect("/tmp/observer.sock")', False),  # a unix socket's path, not a host
        ("s.connect(path)", False),
        ('version = "1.2.3"', False),
    ],
)
def test_the_reader_itself(line: str, fires: bool) -> None:
    assert bool(offences("x.py", line)) is fires
