"""The built-in backend's file system: a new root, built from bind mounts, then pivot_root(2).

Run inside a new user, mount and PID namespace (runner.py), as the namespace's first process,
before the command starts. Like bubblewrap (bwrap(1): --ro-bind, --bind, --tmpfs, --proc, --dev),
it builds the new root in a directory while the old root is still visible, so every source is
read where it really is; then it pivots into it and detaches the old root. The command runs with
no capability (capabilities(7)): it cannot remount, unmount or mount anything in this namespace,
and a mount namespace it makes of its own inherits these mounts locked (mount_namespaces(7)).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
# statvfs f_flag -> the mount flag a remount must repeat (a user namespace may not clear a locked one)
KEPT_FLAGS = {2: MS_NOSUID, 4: MS_NODEV, 8: MS_NOEXEC, 1024: MS_NOATIME, 2048: MS_NODIRATIME, 4096: MS_RELATIME}
# The system's directories a confined reader still sees (symlinks among them are recreated as symlinks).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")
HIDDEN = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/home", "/root")  # noqa: S108 - fresh, empty, private
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus")  # as bwrap --proc: no writes to the kernel's knobs
# The system's credentials under /etc, covered with an empty file or directory: the uid is mapped to
# itself, so a test run as root would keep root's permission on them. Each is a secret by its manual:
# shadow(5), gshadow(5) (and the "-" backups the shadow tools keep, same mode), sudoers(5) (who may
# become root, and how), sshd(8) FILES (the host's private keys), pam_pwhistory(8) (old password
# hashes), Debian's ssl-cert (/etc/ssl/private: TLS private keys), krb5.conf(5)'s default keytab,
# ipsec.secrets(5), pppd(8)'s chap-secrets and pap-secrets, nm-settings-keyfile(5) (Wi-Fi and VPN
# secrets), wg(8) (WireGuard private keys) and gitlab-runner's config.toml (its runner tokens).
SECRETS = (
    "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
    "/etc/ssh/ssh_host_*_key", "/etc/security/opasswd", "/etc/ssl/private", "/etc/krb5.keytab",
    "/etc/ipsec.secrets", "/etc/ipsec.d/private", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
    "/etc/NetworkManager/system-connections", "/etc/wireguard", "/etc/gitlab-runner",
)  # fmt: skip
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 24, 47, 4
PR_SET_DUMPABLE = 4
CAP_LAST = 63


class Mounts:
    """Build the new root in `top`, then enter it."""

    def __init__(self, libc: Any, top: str) -> None:
        self.libc = libc
        self.top = top
        self.failed: list[str] = []  # mounts that could not be made read-only, nor hidden

    def mount(self, src: str | None, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        enc = [None if s is None else os.fsencode(s) for s in (src, dst, fstype, data)]
        if self.libc.mount(enc[0], enc[1], enc[2], flags, enc[3]) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount {src or fstype} on {dst}: {os.strerror(err)}")

    def inside(self, path: str) -> str:
        return self.top + path if path != "/" else self.top

    def point(self, path: str, like: str) -> str:
        """The mount point for `like` at `path` inside the new root: a directory or an empty file."""
        dst = self.inside(path)
        if os.path.lexists(dst):
            return dst
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(like):
            os.mkdir(dst)
        else:
            with open(dst, "a"):
                pass
        return dst

    def bind(self, path: str, read_only: bool) -> None:
        """`path` (real, existing) at the same place inside; read-only with every mount beneath it."""
        dst = self.point(path, path)
        self.mount(path, dst, None, MS_BIND | MS_REC)
        if read_only:
            for target in sorted(_mounts_beneath(dst)):
                self.read_only(target)

    def read_only(self, target: str) -> None:
        try:
            kept = _kept_flags(target)
            self.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)
        except OSError:
            try:  # a mount that will not be read-only is covered by an empty one that is
                self.mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=0")
            except OSError as exc:
                self.failed.append(f"{target.removeprefix(self.top) or '/'}: {exc.strerror}")

    def hide(self, patterns: Iterable[str]) -> None:
        """Cover each existing match of `patterns` inside the new root: a directory with an empty
        read-only tmpfs, a file with an empty read-only file (from a tmpfs staged beside `top`)."""
        import glob

        found = {os.path.realpath(p) for pattern in patterns for p in glob.glob(pattern)}
        targets = sorted(p for p in found if os.path.lexists(self.inside(p)))
        files = [p for p in targets if not os.path.isdir(self.inside(p))]
        for path in targets:
            if path not in files:
                self.cover(path, "tmpfs", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=0,mode=700")
        if files:
            self.cover_files(files)

    def cover(self, path: str, src: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        """One secret covered, or named among the failures (`--level required` then refuses to run)."""
        try:
            self.mount(src, self.inside(path), fstype, flags, data)
            if fstype is None:  # a bind: read-only by a remount of its own
                self.mount(None, self.inside(path), None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        except OSError as exc:
            self.failed.append(f"{path} (a secret left readable): {exc.strerror}")

    def cover_files(self, files: Sequence[str]) -> None:
        staging = self.top + ".empty"
        os.mkdir(staging, 0o700)
        try:
            self.mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,mode=700")
            empty = os.path.join(staging, "empty")
            os.close(os.open(empty, os.O_CREAT | os.O_WRONLY, 0o400))
            for path in files:
                self.cover(path, empty, None, MS_BIND)
        finally:
            self.libc.umount2(os.fsencode(staging), MNT_DETACH)  # the covers keep the empty file alive
            with contextlib.suppress(OSError):
                os.rmdir(staging)

    def tmpfs(self, path: str) -> None:
        self.mount("tmpfs", self.point(path, "/"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")

    def dev(self) -> None:
        """A /dev of its own: the harmless devices, a pty instance of its own, fd links."""
        self.mount("tmpfs", self.point("/dev", "/"), "tmpfs", MS_NOSUID, "mode=755")
        for name in DEVICES:
            if os.path.exists(f"/dev/{name}"):
                self.mount(f"/dev/{name}", self.point(f"/dev/{name}", f"/dev/{name}"), None, MS_BIND)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1")):
            os.symlink(target, self.inside(f"/dev/{name}"))
        os.symlink("/proc/self/fd/2", self.inside("/dev/stderr"))
        self.tmpfs("/dev/shm")  # noqa: S108 - its own, empty
        os.mkdir(self.inside("/dev/pts"))
        try:
            self.mount("devpts", self.inside("/dev/pts"), "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666")
            os.symlink("pts/ptmx", self.inside("/dev/ptmx"))
        except OSError:
            pass  # no pseudo-terminals inside: a test rarely needs one

    def proc(self) -> None:
        """A /proc of this PID namespace: the caller's processes are not in it."""
        dst = self.point("/proc", "/")
        self.mount("proc", dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for name in PROC_READ_ONLY:
            path = os.path.join(dst, name)
            if os.path.exists(path):
                self.mount(path, path, None, MS_BIND | MS_REC)
                self.read_only(path)

    def enter(self, cwd: str) -> None:
        """pivot_root(2) into the new root, the old one detached (pivot_root(".", ".") as its manual shows)."""
        os.chdir(self.top)
        if self.libc.syscall(SYS_PIVOT_ROOT, b".", b".") != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"pivot_root: {os.strerror(err)}")
        if self.libc.umount2(b".", MNT_DETACH) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"umount of the old root: {os.strerror(err)}")
        os.chdir("/")
        with contextlib.suppress(OSError):  # outside what the command may see: it starts at /
            os.chdir(cwd)


SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine, 155)  # the kernel's syscall tables


def _kept_flags(target: str) -> int:
    flags = os.statvfs(target).f_flag
    return sum(ms for st, ms in KEPT_FLAGS.items() if flags & st)


def _mounts_beneath(dst: str) -> set[str]:
    """Every mount point at or beneath `dst`, from /proc/self/mountinfo (proc(5))."""
    found = set()
    with open("/proc/self/mountinfo", "rb") as fh:
        for line in fh:
            point = _unescape(line.split()[4].decode("utf-8", "surrogateescape"))
            if point == dst or point.startswith(dst.rstrip("/") + "/"):
                found.add(point)
    return found


def _unescape(text: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \ooo
    for code in ("\\040", "\\011", "\\012", "\\134"):
        text = text.replace(code, chr(int(code[1:], 8)))
    return text


def interpreter_roots() -> list[str]:
    """The interpreter's prefixes and site-packages: what any Python inside needs to start."""
    import site
    import sysconfig

    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable)]
    with contextlib.suppress(AttributeError):
        paths += site.getsitepackages()
    paths += [sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    return [os.path.realpath(p) for p in paths if p]


def homes() -> list[str]:
    """Home directories to hide: /home's and /root are in HIDDEN; HOME and the caller's own, if elsewhere."""
    import pwd

    found = [os.environ.get("HOME", "")]
    with contextlib.suppress(KeyError):
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    system = ("/usr", "/bin", "/sbin", "/lib", "/etc", "/var", "/dev", "/proc", "/sys", "/nonexistent")
    return [
        os.path.realpath(h)
        for h in found
        if h and os.path.isdir(h) and os.path.realpath(h) != "/" and not os.path.realpath(h).startswith(system)
    ]


def build(libc: Any, top: str, write: Sequence[str], read: Sequence[str] | None, read_only: Sequence[str]) -> list[str]:
    """The new root in `top`: returns the mounts that could not be made read-only."""
    m = Mounts(libc, top)
    m.mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here propagates to the host
    if read is None:  # reads not confined: the whole file system, read-only
        m.bind("/", read_only=True)
        for path in [*HIDDEN, *homes()]:
            if os.path.isdir(path) and not os.path.islink(path):
                m.tmpfs(path)
        hidden = [*HIDDEN, *homes()]
        readable: list[str] = [p for p in interpreter_roots() if _beneath_any(p, hidden)]
    else:
        m.mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                os.symlink(os.readlink(path), m.inside(path))
        readable = [p for p in SYSTEM_DIRS if os.path.isdir(p) and not os.path.islink(p)]
        readable += [*interpreter_roots(), *read]
        for path in HIDDEN:
            m.tmpfs(path)
    for path in _outermost(p for p in readable if os.path.exists(p) and not _beneath_any(p, write)):
        m.bind(path, read_only=True)
    for path in _by_depth(p for p in write if os.path.isdir(p)):
        m.bind(path, read_only=False)
    for path in _by_depth(p for p in read_only if os.path.lexists(p)):
        m.bind(os.path.realpath(path), read_only=True)
    m.hide(SECRETS)
    m.dev()
    m.proc()
    if read is not None:
        m.read_only(top)
    return m.failed


def _beneath_any(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _by_depth(paths: Iterable[str]) -> list[str]:
    return sorted(set(paths), key=lambda p: (p.count("/"), p))


def _outermost(paths: Iterable[str]) -> list[str]:
    """The paths none of the others contains: one bind each."""
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if not _beneath_any(path, kept):
            kept.append(path)
    return kept


def drop_privileges(libc: Any) -> None:
    """No capability left, none to regain by exec (capabilities(7)), and no ptrace of the init."""
    for cap in range(CAP_LAST + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the kernel's last: nothing to drop
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"PR_SET_NO_NEW_PRIVS: {os.strerror(err)}")
