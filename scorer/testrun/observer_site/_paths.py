"""The observer's paths: where a path the test names lands, and whether that is beneath a write
root. Loaded by sitecustomize.py beside it; standard library only.

A path is copied to an exact str before anything else (no method of a subclass runs in the
hook); a descriptor is read back through /proc/self/fd; a relative path in an `open` event,
which carries no dir_fd, is judged against the working directory and every directory the
process holds open, since `os.open(name, flags, dir_fd=fd)` raises the same event.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/stdout", "/dev/stderr")
_NO_PATH = re.compile(r"/proc/\d+/fd/(pipe|socket|anon_inode):.*")  # realpath of a pipe's /proc/self/fd entry
_DEFAULT_DIR_FD = (-1, -100)  # CPython's "no dir_fd", and AT_FDCWD


class Unreadable(ValueError):
    """A path the observer cannot read exactly: the hook refuses what it cannot judge."""


def text(value: Any) -> str:
    """`value` as an exact str, without calling any method of the test's own (pathlib's own classes
    are read through their own __fspath__, as subprocess reads them)."""
    if issubclass(type(value), str):
        return str.__str__(value)
    if issubclass(type(value), bytes):
        return os.fsdecode(bytes.__getitem__(value, slice(None)))
    pathlib = sys.modules.get("pathlib")  # a module being imported may not have its classes yet
    if type(value) in [getattr(pathlib, n, None) for n in ("PurePosixPath", "PosixPath", "PureWindowsPath")]:
        return text(os.fspath(value))
    raise Unreadable(f"a path of type {type(value).__name__}")


def fd_path(fd: int) -> str | None:
    """The file descriptor `fd` holds, or None for one with no path (a pipe, a socket, a closed one:
    the call fails on its own or changes nothing on disk)."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    if not target.startswith("/"):
        return None
    return target.removesuffix(" (deleted)")


class Paths:
    """The write roots, as real paths."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = tuple(os.path.realpath(r) for r in roots)
        self.dirs: dict[str, str] = {}  # directory -> its real path, for reads (real_for_reading)

    def inside(self, full: str) -> bool:
        if full in _DEVICES or full.startswith(("/dev/pts/", "/dev/shm/", "/memfd:")) or _NO_PATH.fullmatch(full):  # noqa: S108
            return True
        return any(full == root or full.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    def base(self, dir_fd: Any) -> str:
        if dir_fd is None or (type(dir_fd) is int and dir_fd in _DEFAULT_DIR_FD):
            return os.getcwd()
        if type(dir_fd) is not int:
            raise Unreadable("a dir_fd that is not a number")
        where = fd_path(dir_fd)
        if where is None:
            raise Unreadable(f"a dir_fd ({dir_fd}) that names no directory")
        return where

    def full(self, path: Any, dir_fd: Any, follow: bool) -> str | None:
        """The real path `path` names; None for a descriptor with no path. With `follow` false the
        last component is not resolved (removing a symlink changes the link, not its target)."""
        if type(path) is int:
            where = fd_path(path)
            return None if where is None else os.path.realpath(where)
        joined = os.path.join(self.base(dir_fd), text(path))
        head, tail = os.path.split(joined)
        if follow or tail in ("", ".", ".."):
            return os.path.realpath(joined)
        return os.path.join(os.path.realpath(head), tail)

    def candidates(self, path: Any, follow: bool, read: bool = False) -> list[str]:
        """Every real path an `open` event's path may name (its dir_fd is not in the event)."""
        if type(path) is int:
            full = self.full(path, None, follow)
            return [] if full is None else [full]
        name = text(path)
        if os.path.isabs(name):
            return [self.real_for_reading(name) if read else os.path.realpath(name)]
        found = [os.path.realpath(os.path.join(os.getcwd(), name))]
        for directory in _open_directories():
            found.append(os.path.realpath(os.path.join(directory, name)))
        return found

    def real_for_reading(self, name: str) -> str:
        """realpath(name), with the real path of its directory remembered where no Python code of
        the test can change it (outside the roots, no `..`): every import opens a file, and a
        realpath is a stat a component."""
        head, tail = os.path.split(name)
        real = self.dirs.get(head)
        if real is None:
            real = os.path.realpath(head)
            fixed = "/.." not in head and not self.inside(os.path.normpath(head)) and not self.inside(real)
            if fixed and len(self.dirs) < 4096:
                self.dirs[head] = real
        full = os.path.join(real, tail)
        return os.path.realpath(full) if tail in ("", ".", "..") or os.path.islink(full) else full

    def foreign(self, pid: int, what: str) -> bool:
        """Whether reading `what` of `pid` reads another process: any other for its environment;
        for its command line or memory, one that is not this process's descendant."""
        me = os.getpid()
        if pid == me:
            return False
        if what == "environ":
            return True
        for _ in range(64):  # up the parents: a descendant reaches this process
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                return True
            if pid == me:
                return False
            if pid <= 1:
                return True
        return True


def _open_directories() -> list[str]:
    """The directories this process holds descriptors on, but the listing's own."""
    me = f"/proc/{os.getpid()}/fd"
    found = []
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return []
    for name in names:
        where = fd_path(int(name)) if name.isdigit() else None
        if where is not None and where != me and os.path.isdir(where):
            found.append(where)
    return found
