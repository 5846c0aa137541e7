"""What the observer refuses (docs/required-test.md#the-observer): loaded by sitecustomize.py
beside it, in every Python the required test starts. Standard library only.

The arguments come from the test's own code, so nothing here calls a method of them: a path is
copied to an exact str first (a str subclass or an object with `__fspath__` could say one thing
to the hook and another to the call), and whatever cannot be read exactly is refused.
The events and their arguments are CPython's audit events table
(https://docs.python.org/3/library/audit_events.html).
"""

from __future__ import annotations

import _socket
import os
import re
import socket
from typing import Any

from _score_diff_observer_paths import Paths, text  # _paths.py, loaded first
from _score_diff_observer_programs import Programs  # _programs.py

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# event: (index of a path it changes, index of its dir_fd or None, whether the last link is followed)
_PATH_EVENTS: dict[str, tuple[tuple[int, int | None, bool], ...]] = {
    "os.remove": ((0, 1, False),),
    "os.rmdir": ((0, 1, False),),
    "os.mkdir": ((0, 2, False),),
    "os.rename": ((0, 2, False), (1, 3, False)),
    "os.symlink": ((1, 2, False),),
    "os.link": ((0, 2, True), (1, 3, False)),  # a hard link to a file outside is a way to write it
    "os.truncate": ((0, None, True),),
    "os.chmod": ((0, 2, True),),
    "os.chown": ((0, 3, True),),
    "os.utime": ((0, 3, True),),
    "os.setxattr": ((0, None, True),),
    "os.removexattr": ((0, None, True),),
    "os.chflags": ((0, None, True),),
    "os.lchflags": ((0, None, False),),
    "os.lchmod": ((0, None, False),),
    "os.mkfifo": ((0, 2, False),),
    "os.mknod": ((0, 3, False),),
    "shutil.rmtree": ((0, 1, False),),
}
_PROC = re.compile(r"/proc/(\d+)(?:/task/\d+)?/(environ|cmdline|mem)")
# named through self: its own, even where /proc belongs to another PID namespace
_OWN = re.compile(r"/proc/(self|thread-self)(/task/\d+)?/(environ|cmdline|mem)")
_WHAT = {"environ": "environment", "cmdline": "command line", "mem": "memory"}
_NET_EVENTS = ("socket.connect", "socket.sendto", "socket.sendmsg")
_RESOLVE_EVENTS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo")
_FAMILIES = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6) if hasattr(socket, "AF_UNIX") else ()


class Judge:
    """One Python's rules: `event` returns for what is allowed and raises `refused` for the rest."""

    def __init__(self, config: dict[str, Any], raw: str, site_dir: str, refused: type[Exception]) -> None:
        self.refused = refused
        self.paths = Paths(config.get("roots", []))
        self.network = bool(config.get("network", True))
        self.programs = Programs(config.get("programs"), raw, site_dir, refused)

    def event(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and len(args) >= 3:
            self.on_open(args[0], args[2])
        elif event in _PATH_EVENTS:
            for index, dir_fd, follow in _PATH_EVENTS[event]:
                if index < len(args):
                    self.on_change(event, args[index], args[dir_fd] if dir_fd is not None else None, follow)
        elif event in _NET_EVENTS and len(args) >= 2:
            self.on_connect(args[0], args[1])
        elif event == "socket.__new__" and len(args) >= 3 and not self.network:
            self.on_new_socket(args[1], args[2])
        elif event in _RESOLVE_EVENTS and args and not self.network:
            self.on_resolve(event, args[0])
        elif event == "socket.bind" and len(args) >= 2 and type(args[1]) in (str, bytes):
            self.on_bind(args[1])
        elif event == "sqlite3.connect" and args:
            self.on_database(args[0])
        elif event == "socket.sethostname":
            raise self.refused("changed the host name")
        else:
            self.programs.event(event, args)

    # -- files ------------------------------------------------------------------------------
    def on_open(self, path: Any, flags: Any) -> None:
        if type(flags) is not int:
            flags = _WRITE_FLAGS  # unknown flags: judged as a write
        own = type(path) is not int and _OWN.fullmatch(text(path)) is not None
        for full in self.paths.candidates(path, follow=True, read=not flags & _WRITE_FLAGS):
            match = None if own else _PROC.fullmatch(full)
            if match and self.paths.foreign(int(match.group(1)), match.group(2)):
                raise self.refused(f"read the {_WHAT[match.group(2)]} of process {match.group(1)} ({full})")
            if flags & _WRITE_FLAGS and not self.paths.inside(full):
                raise self.refused(f"wrote {full}")

    def on_change(self, event: str, path: Any, dir_fd: Any, follow: bool) -> None:
        full = self.paths.full(path, dir_fd, follow)
        if full is None or self.paths.inside(full):
            return
        if event == "os.mkdir" and os.path.isdir(full):
            return  # makedirs(exist_ok=True) on a directory that is there changes nothing
        raise self.refused(f"wrote {full} ({event})")

    def on_bind(self, address: Any) -> None:
        """A unix socket bound to a path makes a file there (abstract and autobound names make none)."""
        if address[:1] not in ("\0", b"\0") and address:
            self.on_change("socket.bind", address, None, False)

    def on_database(self, database: Any) -> None:
        """sqlite3 opens its file in C, with no `open` event: its connect names it (a file: URI too)."""
        name = text(database)
        if name in ("", ":memory:") or name.startswith("file::memory:"):
            return
        if name.startswith("file:"):
            from urllib.parse import unquote  # here: not one more import in every Python

            name = unquote(name[5:].split("?", 1)[0].split("#", 1)[0])
            name = name[len("//localhost") :] if name.startswith("//localhost/") else name
            name = name[2:] if name.startswith("//") else name
        self.on_change("sqlite3.connect", name, None, True)

    # -- network ----------------------------------------------------------------------------
    def on_connect(self, sock: Any, address: Any) -> None:
        if address is None:
            return  # sendmsg on a connected socket: its connect was judged
        try:  # _socket.socket's own field: a subclass's `family` property would be the test's code
            family = _socket.socket.family.__get__(sock)
        except (TypeError, AttributeError):
            family = socket.AF_UNIX if type(address) in (str, bytes) else None
        if family == getattr(socket, "AF_UNIX", None):
            self.on_unix(address)
        elif not self.network:
            host = address[0] if type(address) is tuple and address else None
            if family not in (socket.AF_INET, socket.AF_INET6) or not loopback(host):
                port = address[1] if type(address) is tuple and len(address) > 1 else "?"
                raise self.refused(f"connected to {_shown(host)}:{_shown(port)}")

    def on_unix(self, address: Any) -> None:
        if type(address) not in (str, bytes):
            raise self.refused("connected to a unix socket it named in a way the observer cannot read")
        if address[:1] in ("\0", b"\0") or not address:
            if not self.network and address:  # the abstract namespace belongs to the network namespace
                raise self.refused(f"connected to the abstract unix socket {_shown(address[1:])}")
            return
        full = self.paths.full(address, None, True)
        if full is not None and not self.paths.inside(full):
            raise self.refused(f"connected to the unix socket {full}")

    def on_new_socket(self, family: Any, kind: Any) -> None:
        family, kind = _int(family), _int(kind)
        if family == -1:
            return  # socket(fileno=...): the family is read from the descriptor; its use is judged
        if family not in _FAMILIES:
            raise self.refused(f"opened a socket of family {_shown(family)} (only unix and IP sockets)")
        if kind is not None and kind & 0xF == getattr(socket, "SOCK_RAW", 3) and family != socket.AF_UNIX:
            raise self.refused("opened a raw IP socket")

    def on_resolve(self, event: str, host: Any) -> None:
        if type(host) is tuple:
            host = host[0] if host else None
        if host is None or loopback(host) or (type(host) is str and host == socket.gethostname()):
            return
        if event == "socket.getaddrinfo" and literal(host):
            return  # a literal address: nothing is looked up
        raise self.refused(f"looked up the host {_shown(host)} ({event})")


def literal(host: Any) -> bool:
    text = _ascii(host)
    if text is None:
        return False
    for family, part in ((socket.AF_INET, text), (socket.AF_INET6, text.split("%", 1)[0])):
        try:
            socket.inet_pton(family, part)
            return True
        except (OSError, ValueError):
            continue
    return False


def loopback(host: Any) -> bool:
    """True for 127/8, ::1, v4-mapped 127/8, the unspecified address Linux connects locally, and
    `localhost` when every address it resolves to is one of those (RFC 6761 reserves the name)."""
    text = _ascii(host)
    if text is None:
        return False
    if text in ("", "0.0.0.0", "::"):  # noqa: S104 - the kernel's local host, as CPython sends ""
        return True
    if text.lower().rstrip(".") == "localhost":
        try:
            answers = socket.getaddrinfo("localhost", None)
        except OSError:
            return False
        return bool(answers) and all(_loopback_ip(str(a[4][0])) for a in answers)
    return _loopback_ip(text)


def _loopback_ip(text: str) -> bool:
    try:
        return socket.inet_pton(socket.AF_INET, text)[0] == 127
    except (OSError, ValueError):
        pass
    try:
        packed = socket.inet_pton(socket.AF_INET6, text.split("%", 1)[0])
    except (OSError, ValueError):
        return False
    mapped = packed[:12] == b"\0" * 10 + b"\xff\xff" and packed[12] == 127
    return packed == b"\0" * 15 + b"\1" or mapped


def _ascii(host: Any) -> str | None:
    if issubclass(type(host), str):
        return str.__str__(host)
    if issubclass(type(host), bytes):
        try:
            return bytes.__getitem__(host, slice(None)).decode("ascii")
        except UnicodeDecodeError:
            return None
    return None


def _shown(value: Any) -> str:
    if issubclass(type(value), int):
        return str(int.__int__(value))
    if issubclass(type(value), (str, bytes)):
        return text(value)[:200]
    return f"<{type(value).__name__}>"


def _int(value: Any) -> int | None:
    return int.__int__(value) if issubclass(type(value), int) else None
