"""The required test's launcher: jails the test, runs it, and never lets it outlive score-diff.

Run by score-diff as `python -I -S launcher.py CONFIG -- argv...` (stdlib only: it imports
nothing of score-diff, so the project's environment cannot reach into it). On Linux it

1. asks the kernel for SIGTERM when score-diff dies (PR_SET_PDEATHSIG) and becomes the
   reaper of every orphan the test leaves (PR_SET_CHILD_SUBREAPER), so whatever ends
   score-diff, even SIGKILL, reaches here, and here ends the test's whole tree and removes
   its temporary directories;
2. enters a new user and network namespace (unshare(2)): only a loopback interface, so a
   connect to any other address fails with ENETUNREACH before a packet leaves;
3. forks the test, which confines its own writes with Landlock (landlock(7)) to the write
   roots before it execs the test's argv.

What it could and could not enforce goes to score-diff as JSON lines on `status_fd`.
Elsewhere it does what it can: a getppid() poll stands in for PR_SET_PDEATHSIG.
"""

from __future__ import annotations

import _json
import _signal as signal
import ctypes
import os
import struct
import sys

# Each module here is imported at every test run, on the test's path: no `typing` (it brings
# `re`, `contextlib` and `collections`), no `json` (seven regular expressions at import; the C
# scanner and encoder it uses are `_json`), no `socket` (`enum` and `selectors`; `_socket` makes
# the same socket), no `signal` (its enums bring `enum`: `_signal` has the same functions and
# numbers, and a handler is given a plain int), `shutil` only when score-diff died and its files
# are to be removed. Hence try/except where contextlib.suppress would read better.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
# landlock(7): the same syscall numbers on every architecture (the unified table, from 444).
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_WRITE_FILE = 1 << 1
# Every right that changes the file system (ABI 1), then REFER (ABI 2) and TRUNCATE (ABI 3).
# Reading and executing stay unhandled: the test may read and run anything it could before.
FS_WRITES_V1 = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))
FS_REFER, FS_TRUNCATE = 1 << 13, 1 << 14
FILE_RIGHTS = FS_WRITE_FILE | FS_TRUNCATE  # the rights a rule on a file (not a directory) may carry
SCOPE_SIGNAL = 1 << 1  # ABI 6: the test cannot signal the launcher or score-diff
# Devices every program writes: they hold no data of the user's.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm")  # noqa: S108
ABORTED = 125  # "required" and a mechanism is missing: the test did not run
NOT_STARTED = 127


class Status:
    """JSON lines to score-diff; each write is one line, under PIPE_BUF, so lines never interleave."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def say(self, **record: Any) -> None:
        try:  # noqa: SIM105 - no contextlib (above)
            os.write(self.fd, (dumps(record) + "\n").encode())
        except OSError:  # score-diff is gone: nothing to tell
            pass


class _Decoder:
    """The attributes `_json.make_scanner` reads from a json.JSONDecoder: json's defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


def loads(text: str) -> Any:
    """json.loads(text), through json's own C scanner; anything it does not finish, json decides."""
    try:
        start = len(text) - len(text.lstrip(" \t\n\r"))
        value, end = _json.make_scanner(_Decoder())(text, start)  # type: ignore[arg-type]
        if text[end:].strip(" \t\n\r") or text.startswith("\ufeff"):
            raise ValueError("json says what is wrong")
        return value
    except Exception:
        import json

        return json.loads(text)


def _unserializable(o: object) -> object:
    raise TypeError("json says why")


def dumps(record: object) -> str:
    """json.dumps(record), through json's own C encoder; anything it cannot write, json decides."""
    try:
        quote = _json.encode_basestring_ascii
        return "".join(_json.make_encoder({}, _unserializable, quote, None, ": ", ", ", False, False, True)(record, 0))
    except Exception:
        import json

        return json.dumps(record)


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _call(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


def isolate_network(libc: Any) -> str:
    """A new network namespace with only loopback, up; returns how it was made."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0:
        # The test keeps its own uid and gid inside: files it creates are its own, as before.
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        how = "user+network namespace"
    else:
        first = ctypes.get_errno()
        if libc.unshare(CLONE_NEWNET) != 0:  # privileged, without user namespaces (a root container)
            raise OSError(first, f"unshare: {os.strerror(first)}")
        how = "network namespace"
    import _socket
    import fcntl

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP))
    finally:
        sock.close()
    return how


def restrict_writes(libc: Any, roots: list[str]) -> str:
    """Landlock: from here on this process and its children write only beneath `roots`."""
    abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    _call(abi, "landlock")
    handled = FS_WRITES_V1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0)
    scoped = SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, 0, scoped)[: 24 if abi >= 6 else 16 if abi >= 4 else 8]
    ruleset = _call(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, len(attr), 0), "landlock_create_ruleset")
    try:
        for root in [*roots, *DEVICES]:
            try:
                fd = os.open(root, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a root that does not exist grants nothing
            try:
                rights = handled if os.path.isdir(root) else handled & FILE_RIGHTS
                rule = struct.pack("=Qi", rights, fd)
                _call(libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0), root)
            finally:
                os.close(fd)
        _call(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
        _call(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return f"landlock ABI {abi}" + (", signals scoped" if scoped else "")


def _in_child(attempt: Any) -> str | None:
    """Run `attempt` in a forked child: None if it succeeded, else why not."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            attempt()
            os._exit(0)
        except BaseException as exc:
            os.write(write, str(getattr(exc, "strerror", None) or exc).encode()[:400])
            os._exit(1)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else said or "it failed"


def _children() -> list[int]:
    """This process's children, from /proc (the subreaper's adopted orphans among them)."""
    me, found = os.getpid(), []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) > 1 and int(fields[1]) == me:
                found.append(int(name))
    return found


def end_tree() -> int:
    """SIGKILL every descendant until none is left: children first, then the orphans that fall to
    this subreaper. It ends by that condition, not a budget of rounds: zombies are reaped all at
    once each round, so a flood of them cannot use the loop up before a live process is reached.
    Each round kills every process it finds, and a killed process forks no more, so a fork bomb
    lasts only as long as it outruns the kill (RLIMIT_NPROC bounds it); a PID namespace (the jail)
    or a cgroup's cgroup.kill ends a tree at once, and this loop is what is left without them."""
    ended: set[int] = set()
    while True:
        if not _reap_all():
            return len(ended)  # no child at all
        kids = _children() if sys.platform.startswith("linux") else []
        if not kids:  # none to be found (elsewhere, score-diff's SIGKILL to the group is what reaches them)
            return len(ended)
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
                ended.add(pid)
            except OSError:
                pass
        try:  # noqa: SIM105 - no contextlib (above)
            os.waitpid(-1, 0)
        except ChildProcessError:
            pass


def _reap_all() -> bool:
    """Reap every child that has ended; False when this process has no child left."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                return True
        except ChildProcessError:
            return False


class Launcher:
    def __init__(self, config: dict[str, Any], argv: list[str]) -> None:
        self.config = config
        self.argv = argv
        self.status = Status(int(config["status_fd"]))
        self.parent = int(config["parent"])
        self.missing: list[str] = []
        self.test_pid = 0

    def parent_gone(self) -> bool:
        # 0: inside score-diff's jail, whose first process is the parent and ends everything with it
        return self.parent != 0 and os.getppid() != self.parent

    def finish(self, signum: int, frame: Any = None) -> None:
        """A signal: end the test's tree; if score-diff died, remove its temporary files too."""
        if signum == signal.SIGALRM and not self.parent_gone():
            return
        end_tree()
        if self.parent_gone():
            import shutil

            for path in self.config.get("cleanup", []):
                shutil.rmtree(path, ignore_errors=True)
        os._exit(128 + signum)

    def guard_parent(self, libc: Any) -> None:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, self.finish)
        if libc is not None:
            _call(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0), "PR_SET_PDEATHSIG")
            _call(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "PR_SET_CHILD_SUBREAPER")
            self.status.say(enforced="process tree", how="PR_SET_PDEATHSIG and a child subreaper")
        else:
            signal.signal(signal.SIGALRM, self.finish)
            signal.setitimer(signal.ITIMER_REAL, 0.25, 0.25)
            self.status.say(missing="process tree", why="no PR_SET_PDEATHSIG here: score-diff's death is polled")
        if self.parent_gone():  # score-diff died before the kernel was asked to say so
            self.finish(signal.SIGTERM)

    def lack(self, name: str, why: str) -> None:
        self.status.say(missing=name, why=why)
        self.missing.append(name)
        if self.config.get("required"):
            self.status.say(aborted=f"test_envelope is required and {name} cannot be enforced: {why}")
            os._exit(ABORTED)

    def jail_network(self, libc: Any) -> None:
        if self.config.get("network", True):
            return
        if libc is None or "network" in self.config.get("unavailable", ()):
            self.lack("network", "no network namespaces on this platform")
            return
        # Tried in a throwaway child first: where unshare succeeds but the uid map cannot be written
        # (AppArmor's restricted user namespaces), this process would be left unable to create files.
        why = _in_child(lambda: isolate_network(libc))
        if why is None:
            try:
                self.status.say(enforced="network", how=isolate_network(libc))
                return
            except OSError as exc:
                why = str(exc.strerror or exc)
        self.lack("network", f"{why} (user namespaces not permitted here)")

    def exec_test(self, libc: Any) -> None:
        """In the forked child: confine writes, then become the test."""
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGALRM):
            signal.signal(signum, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, 0)
        roots = self.config.get("write_roots")
        if roots is not None:
            if libc is None or "writes" in self.config.get("unavailable", ()):
                self.lack("writes", "no Landlock on this platform")
            else:
                try:
                    self.status.say(enforced="writes", how=restrict_writes(libc, roots))
                except OSError as exc:
                    self.lack("writes", f"Landlock unavailable: {exc.strerror or exc}")
        os.set_inheritable(self.status.fd, False)
        try:
            os.execvp(self.argv[0], self.argv)  # noqa: S606 - the test's argv, never through a shell
        except OSError as exc:
            self.status.say(not_started=exc.strerror or str(exc))
            os._exit(NOT_STARTED)

    def run(self) -> int:
        linux = sys.platform.startswith("linux")
        libc = _libc() if linux else None
        self.guard_parent(libc)
        self.jail_network(libc)
        pid = os.fork()
        if pid == 0:
            try:
                self.exec_test(libc)
            finally:
                os._exit(NOT_STARTED)
        self.test_pid = pid
        code = self.wait_test(pid)
        ended = end_tree()
        if ended:
            self.status.say(ended=ended)
        return code

    def wait_test(self, pid: int) -> int:
        while True:
            try:
                got, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return NOT_STARTED
            if got == pid:
                if os.WIFSIGNALED(status):
                    return -os.WTERMSIG(status)
                return os.WEXITSTATUS(status)


def main(args: list[str]) -> int:
    config = loads(args[0])
    argv = args[2:] if len(args) > 1 and args[1] == "--" else args[1:]
    code = Launcher(config, argv).run()
    if code < 0:  # die of the same signal, so score-diff sees what the test saw
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
