"""The jail's process: confine, run the command, and end every process it started.

`python -I -S runner.py [jail] OPTIONS -- CMD...` (score-diff's test runner) and `score-diff jail`
both come here. The built-in backend, with nothing but the kernel (user_namespaces(7)):

    this process (P)    waits, forwards a signal as SIGKILL to the namespace, removes what is left
      └ C               unshare(2): new user, mount, PID, IPC and (unless --network on) network namespace
          └ G (PID 1)   builds the new root (mounts.py), pivots into it, drops every capability
              └ W       execs CMD

When G ends, the kernel kills every other process of its PID namespace (pid_namespaces(7)),
however many there are and whatever session they are in; each of P, C, G dies with its parent
(PR_SET_PDEATHSIG), so the tree also ends when score-diff does, even by SIGKILL.
Standard library only, no relative import (see policy.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import struct
import sys
import tempfile
from typing import Any

if not __package__:  # run as a file, under -I: its own directory is not on sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    from . import mounts
    from .policy import LAYERS, Policy, parse
except ImportError:  # run as a file
    import mounts  # type: ignore[no-redef]
    from policy import LAYERS, Policy, parse  # type: ignore[no-redef]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
SIOCSIFFLAGS, IFF_UP = 0x8914, 0x1
ABORTED = 125  # like env(1) and timeout(1): the jail, not the command, failed
NOT_STARTED = 127
BACKEND = "builtin"


class Status:
    """JSON lines on --status-fd, as testrun/launcher.py writes them; nowhere without one."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd

    def say(self, **record: Any) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.write(self.fd, (json.dumps(record) + "\n").encode())


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _loopback_up() -> None:
    """The new network namespace's loopback interface, up. `_socket`, not `socket`: the same socket,
    without the enum and selectors modules `socket` imports at every run."""
    import _socket
    import fcntl

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP))
    finally:
        sock.close()


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text)


class Jail:
    def __init__(self, policy: Policy, command: list[str], env: dict[str, str] | None = None) -> None:
        self.policy = policy
        self.command = command
        self.env = dict(os.environ) if env is None else env
        self.status = Status(policy.status_fd)
        self.parent = os.getppid()
        self.child = 0  # C
        self.init = 0  # G
        self.top = ""

    # -- P ---------------------------------------------------------------------------------
    def run(self) -> int:
        libc = _libc() if sys.platform.startswith("linux") else None
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, self.stop)
        if libc is not None:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != self.parent:
            self.stop(signal.SIGTERM)
        why = self.unavailable(libc)
        if why is None:
            code, why = self.confined(libc)
            if why is None:
                return code
        return self.unconfined(why)

    def unavailable(self, libc: Any) -> str | None:
        if libc is None:
            return "no namespaces on this platform"
        if "namespaces" in self.policy.unavailable:
            return "namespaces made unavailable (--unavailable namespaces)"
        if self.policy.backend == "bwrap":
            return "the bwrap backend is not built in this version; use --backend builtin or auto"
        return None

    def layers(self, failed: list[str] | None, why: str = "") -> dict[str, str]:
        """Each layer: held, missing (why) or not asked."""
        asked = {"reads": bool(self.policy.read), "writes": True, "network": self.policy.network != "on"}
        asked["process tree"] = True
        found: dict[str, str] = {}
        for layer in LAYERS:
            if not asked[layer]:
                found[layer] = "not asked"
            elif failed is None:
                found[layer] = f"missing: {why}"
            elif layer == "writes" and failed:
                found[layer] = "missing: could not make read-only: " + ", ".join(failed)
            else:
                found[layer] = "held"
        return found

    def report(self, layers: dict[str, str], backend: str) -> bool:
        """Tell the caller; False when --level required and a layer asked for is missing."""
        self.status.say(jail=backend, layers=layers)
        for layer, state in layers.items():
            if state == "held":
                self.status.say(enforced=layer, how=f"{backend}: {HOW[layer]}")
            elif state != "not asked":
                self.status.say(missing=layer, why=f"{backend}: {state.removeprefix('missing: ')}")
        gaps = [f"{k} ({v.removeprefix('missing: ')})" for k, v in layers.items() if v.startswith("missing")]
        if gaps and self.policy.level == "required":
            line = "score-diff jail: --level required, but this layer is missing: " + "; ".join(gaps)
            self.status.say(aborted=line)
            print(line, file=sys.stderr)
            return False
        return True

    def confined(self, libc: Any) -> tuple[int, str | None]:
        """Run in the namespaces: (exit code, None), or (0, why) if they could not be made."""
        self.top = tempfile.mkdtemp(prefix="score-diff-jail-")
        told_r, told_w = os.pipe()
        go_r, go_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(told_r)
            os.close(go_w)
            self.in_child(libc, told_w, go_r)
        self.child = pid
        os.close(told_w)
        os.close(go_r)
        try:
            with os.fdopen(told_r, "r") as told:
                said = self.hear(told)
                if said is None or said.startswith("fail "):
                    self.wait_child()
                    return 0, (said or "fail the namespace's first process ended before it was ready")[5:]
                failed = json.loads(said.removeprefix("ready "))
                if not self.report(self.layers(failed), BACKEND):
                    self.stop(signal.SIGTERM, exit_code=ABORTED)
                os.write(go_w, b"go")
        finally:
            with contextlib.suppress(OSError):
                os.close(go_w)
        return self.wait_child(), None

    def hear(self, told: Any) -> str | None:
        """G's first word ("ready ..." or "fail ..."), and C's "pid N" whichever comes first: G can
        say ready before C has written G's pid, and C must never meet a closed pipe (it would die,
        and take G and the command with it)."""
        said = None
        for line in told:
            line = line.rstrip("\n")
            if line.startswith("pid "):
                self.init = int(line[4:])
            elif said is None:
                said = str(line)
            if said is not None and (self.init or said.startswith("fail ")):
                break
        return said

    def wait_child(self) -> int:
        _, status = os.waitpid(self.child, 0)
        self.child = 0
        for path in (self.top, self.top + ".empty") if self.top else ():  # the new root, mounts.py's staging
            with contextlib.suppress(OSError):
                os.rmdir(path)
        return os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128 + os.WTERMSIG(status)

    def unconfined(self, why: str) -> int:
        """No namespaces: the command runs as it would without the jail, and the layers say so."""
        if not self.report(self.layers(None, why), "none"):
            return ABORTED
        pid = os.fork()
        if pid == 0:
            self.exec_command()
        self.child = pid
        return self.wait_child()

    def stop(self, signum: int, frame: Any = None, exit_code: int | None = None) -> None:
        """A signal (or --level required refused): end the namespace, and if the caller died, its files."""
        if self.init:
            with contextlib.suppress(OSError):
                os.kill(self.init, signal.SIGKILL)  # PID 1 of the namespace: the kernel ends the rest
        elif self.child:  # no namespace: the command's chance to end its own tree (testrun's launcher does)
            self.end_unconfined(signum)
        if self.child:
            with contextlib.suppress(ChildProcessError):
                self.wait_child()
        if os.getppid() != self.parent:
            for path in self.policy.cleanup:
                shutil.rmtree(path, ignore_errors=True)
        os._exit(128 + signum if exit_code is None else exit_code)

    def end_unconfined(self, signum: int) -> None:
        import time

        with contextlib.suppress(OSError):
            os.kill(self.child, signum)
        for _ in range(40):  # bounded: without a PID namespace, a command that ignores it is killed
            if os.waitpid(self.child, os.WNOHANG) != (0, 0):
                self.child = 0
                return
            time.sleep(0.05)
        with contextlib.suppress(OSError):
            os.kill(self.child, signal.SIGKILL)

    # -- C and G ---------------------------------------------------------------------------
    def in_child(self, libc: Any, told_w: int, go_r: int) -> None:
        """C: make the namespaces, start G, pass on G's exit status."""
        try:
            for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                signal.signal(signum, signal.SIG_DFL)
            _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
            uid, gid = os.getuid(), os.getgid()
            flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
            flags |= CLONE_NEWNET if self.policy.network != "on" else 0
            _check(libc.unshare(flags), "unshare")
            # The command keeps its own uid and gid inside: what it creates is its own, as before.
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
            pid = os.fork()
        except OSError as exc:
            os.write(told_w, f"fail {exc.strerror or exc}\n".encode())
            os._exit(ABORTED)
        if pid == 0:
            self.in_init(libc, told_w, go_r)
        with contextlib.suppress(BrokenPipeError):  # P stopped listening: G failed, P will wait for us
            os.write(told_w, f"pid {pid}\n".encode())
        os.close(told_w)
        os.close(go_r)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128 + os.WTERMSIG(status))

    def in_init(self, libc: Any, told_w: int, go_r: int) -> None:
        """G, PID 1: the new root, no capabilities, then W, reaping every orphan until W ends."""
        try:
            _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
            if self.policy.network != "on":
                _loopback_up()
            read = list(self.policy.read) if self.policy.read else None
            write = list(self.policy.write)
            failed = mounts.build(libc, self.top, write, read, self.policy.read_only)
            mounts.Mounts(libc, self.top).enter(self.policy.cwd or os.getcwd())
            mounts.drop_privileges(libc)
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        except OSError as exc:
            os.write(told_w, f"fail {exc.strerror or exc}\n".encode())
            os._exit(ABORTED)
        os.write(told_w, f"ready {json.dumps(failed)}\n".encode())
        os.close(told_w)
        if os.read(go_r, 2) != b"go":
            os._exit(ABORTED)
        os.close(go_r)
        pid = os.fork()
        if pid == 0:
            self.exec_command()
        while True:
            try:
                got, status = os.waitpid(-1, 0)
            except ChildProcessError:
                os._exit(NOT_STARTED)
            if got == pid:  # the rest of the namespace ends with this process
                os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128 + os.WTERMSIG(status))

    def exec_command(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        if self.policy.cwd:
            with contextlib.suppress(OSError):
                os.chdir(self.policy.cwd)
        try:
            os.execvpe(self.command[0], self.command, self.env)  # noqa: S606 - the caller's argv, never through a shell
        except OSError as exc:
            print(f"score-diff jail: {self.command[0]}: {exc.strerror or exc}", file=sys.stderr)
            os._exit(NOT_STARTED)


HOW = {
    "reads": "mount namespace: only the system's directories, the interpreter and the granted paths",
    "writes": "mount namespace: read-only but for the write roots; fresh /tmp, /dev/shm, /run",
    "network": "network namespace: loopback only",
    "process tree": "PID namespace: its first process ending ends the rest",
}


def main(argv: list[str] | None = None) -> int:
    policy, command = parse(sys.argv[1:] if argv is None else argv)
    if not command:
        print("score-diff jail: no command given (score-diff jail [OPTIONS] -- CMD [ARG...])", file=sys.stderr)
        return ABORTED
    return Jail(policy, command).run()


if __name__ == "__main__":
    raise SystemExit(main())
