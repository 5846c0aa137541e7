"""The observer's audit hook, called directly (never installed in this process): what it refuses
with PermissionError and reports, and what it lets pass. Refusals of connects are judged from
the event's arguments alone: a socket is made, never connected, so no packet is sent."""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from scorer.testrun import observer

SITE = Path(observer.SITE_DIR)
_SOCKETS = itertools.count()


def _load_site():
    spec = importlib.util.spec_from_file_location("_score_diff_observer_site_under_test", SITE / "sitecustomize.py")
    module = importlib.util.module_from_spec(spec)
    env = os.environ.pop(observer.CONFIG_ENV, None)
    try:
        spec.loader.exec_module(module)  # no configuration: installs nothing in this process
    finally:
        if env is not None:
            os.environ[observer.CONFIG_ENV] = env
    return module


SITECUSTOMIZE = _load_site()


class Harness:
    def __init__(self, tmp_path: Path, network: bool = False, programs: list[str] | None = None) -> None:
        self.root = tmp_path / "root"
        self.outside = tmp_path / "outside"
        self.root.mkdir(exist_ok=True)
        self.outside.mkdir(exist_ok=True)
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        where = str(tmp_path / f"o{next(_SOCKETS)}.sock")
        self.inbox.bind(where)
        self.inbox.setblocking(False)
        config = {"socket": where, "roots": [str(self.root)], "network": network}
        config["programs"] = programs
        self.raw = json.dumps(config)
        self.obs = SITECUSTOMIZE._Observer(self.raw, SITECUSTOMIZE._load_rules())

    def refused(self, event: str, *args) -> str | None:
        """The report when the hook refuses the event, else None; a refusal must also be reported."""
        try:
            self.obs.hook(event, args)
        except PermissionError as exc:
            report = json.loads(self.inbox.recv(4096))["attempt"]
            assert report in str(exc)
            return report
        with pytest.raises(BlockingIOError):
            self.inbox.recv(4096)
        return None

    def close(self) -> None:
        self.inbox.close()
        self.obs.sock.close()


@pytest.fixture(autouse=True)
def _own_environment():
    """Mending the inherited environment writes this process's os.environ: every key it touches
    goes back afterwards, or each later Python this suite starts would look for the observer."""
    keys = (observer.CONFIG_ENV, "PYTHONPATH", "PYTHONNOUSERSITE")
    saved = {key: os.environ.get(key) for key in keys}
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def hook(tmp_path: Path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def inet(family=socket.AF_INET, kind=socket.SOCK_STREAM) -> socket.socket:
    return socket.socket(family, kind)


# -- network ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "fires"),
    [
        (("203.0.113.7", 80), True),  # TEST-NET-3: judged, never reached
        (("127.0.0.1", 80), False),
        (("127.8.9.10", 80), False),
        (("localhost", 80), False),
        (("", 80), False),  # CPython's INADDR_ANY: the local host
        (("<broadcast>", 80), True),
        (("example.invalid", 80), True),  # a name: not provably loopback
        (("127.0.0.1.example.invalid", 80), True),
        ((b"203.0.113.7", 80), True),
        (("0x7f.1", 80), True),  # not a literal inet_pton reads: unknown, refused
        ("203.0.113.7", True),  # not a tuple
    ],
)
def test_ipv4_connect_off_loopback_is_refused(hook: Harness, address, fires: bool) -> None:
    with inet() as sock:
        for event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            report = hook.refused(event, sock, address)
            assert (report is not None) == fires, (event, address, report)


@pytest.mark.parametrize(
    ("host", "fires"),
    [
        ("::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:203.0.113.7", True),
        ("2001:db8::1", True),
        ("fe80::1%lo", True),
    ],
)
def test_ipv6_connect(hook: Harness, host: str, fires: bool) -> None:
    with inet(socket.AF_INET6) as sock:
        assert (hook.refused("socket.connect", sock, (host, 80, 0, 0)) is not None) == fires


def test_a_host_that_lies_about_itself_is_read_as_it_is(hook: Harness) -> None:
    """A str subclass whose methods say loopback: the hook reads the characters the kernel gets."""

    class Liar(str):
        def startswith(self, *_a):
            return True

        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    with inet() as sock:
        assert hook.refused("socket.connect", sock, (Liar("203.0.113.7"), 80)) == "connected to 203.0.113.7:80"


def test_a_socket_whose_family_lies_is_judged_by_its_real_family(hook: Harness) -> None:
    class Sneaky(socket.socket):
        family = socket.AF_UNIX

    with Sneaky(socket.AF_INET) as sock:
        assert hook.refused("socket.connect", sock, ("203.0.113.7", 80)) == "connected to 203.0.113.7:80"


def test_network_true_lets_any_host_through(tmp_path: Path) -> None:
    harness = Harness(tmp_path, network=True)
    with inet() as sock:
        assert harness.refused("socket.connect", sock, ("203.0.113.7", 80)) is None
    harness.close()


def test_unix_sockets(hook: Harness) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        assert hook.refused("socket.connect", sock, str(hook.outside / "agent.sock")) is not None
        assert hook.refused("socket.connect", sock, os.fsencode(hook.outside / "agent.sock")) is not None
        assert hook.refused("socket.connect", sock, str(hook.root / "own.sock")) is None
        # the abstract namespace belongs to the network namespace: off with the network
        assert (
            hook.refused("socket.connect", sock, "\0some-daemon") == "connected to the abstract unix socket some-daemon"
        )
        assert hook.refused("socket.sendto", sock, b"\0some-daemon") is not None


def test_sockets_that_leave_the_ip_layer_and_name_lookups_are_refused(hook: Harness) -> None:
    assert hook.refused("socket.__new__", None, 17, socket.SOCK_RAW, 0) is not None  # AF_PACKET
    assert hook.refused("socket.__new__", None, socket.AF_INET, socket.SOCK_RAW, 1) == "opened a raw IP socket"
    assert hook.refused("socket.__new__", None, socket.AF_INET, socket.SOCK_STREAM, 0) is None
    assert hook.refused("socket.__new__", None, socket.AF_UNIX, socket.SOCK_DGRAM, 0) is None
    # a name lookup can carry data out as a DNS query
    assert hook.refused("socket.getaddrinfo", "c2VjcmV0.example.invalid", 80, 0, 0, 0) is not None
    assert hook.refused("socket.gethostbyname", "c2VjcmV0.example.invalid") is not None
    assert hook.refused("socket.getaddrinfo", "localhost", 80, 0, 0, 0) is None
    assert hook.refused("socket.getaddrinfo", "203.0.113.7", 80, 0, 0, 0) is None  # a literal: no lookup
    assert hook.refused("socket.getaddrinfo", socket.gethostname(), 80, 0, 0, 0) is None
    assert hook.refused("socket.sethostname", "evil") is not None


# -- files --------------------------------------------------------------------------------

WRITE = os.O_WRONLY | os.O_CREAT


def test_writes_and_metadata_outside_the_roots(hook: Harness) -> None:
    out, inside = hook.outside / "key", hook.root / "file"
    for path in (out, inside):
        path.write_text("x")
    for event, args in [
        ("open", (str(out), "w", WRITE)),
        ("os.chmod", (str(out), 0o777, -1)),
        ("os.chown", (str(out), 0, 0, -1)),
        ("os.utime", (str(out), None, None, -1)),
        ("os.setxattr", (str(out), "user.x", b"1", 0)),
        ("os.removexattr", (str(out), "user.x")),
        ("os.truncate", (str(out), 0)),
        ("os.remove", (str(out), -1)),
        ("os.rename", (str(inside), str(out), -1, -1)),
        ("os.link", (str(out), str(hook.root / "hard"), -1, -1)),  # a hard link is a way to write it
        ("os.symlink", ("anything", str(hook.outside / "l"), -1)),
        ("os.mkdir", (str(hook.outside / "new"), 0o777, -1)),
    ]:
        assert hook.refused(event, *args) is not None, event
        inside_args = tuple(str(inside) if a == str(out) else a for a in args)
        if event not in ("os.rename", "os.link", "os.symlink", "os.mkdir"):
            assert hook.refused(event, *inside_args) is None, event
    assert hook.refused("open", str(out), "r", os.O_RDONLY) is None  # reads are the jail's, not the observer's


def test_files_c_code_makes_are_judged_by_their_events(hook: Harness) -> None:
    """sqlite3 opens its database in C (no `open` event); a bound unix socket makes a file."""
    out = hook.outside / "x.db"
    assert hook.refused("sqlite3.connect", str(out)) is not None
    assert hook.refused("sqlite3.connect", f"file://{out}?mode=rwc") is not None
    assert hook.refused("sqlite3.connect", f"file:{out}") is not None
    assert hook.refused("sqlite3.connect", str(hook.root / "x.db")) is None
    assert hook.refused("sqlite3.connect", ":memory:") is None
    with socket.socket(socket.AF_UNIX) as sock:
        assert hook.refused("socket.bind", sock, str(hook.outside / "s.sock")) is not None
        assert hook.refused("socket.bind", sock, str(hook.root / "s.sock")) is None
        assert hook.refused("socket.bind", sock, "\0abstract-listener") is None
    with inet() as sock:
        assert hook.refused("socket.bind", sock, ("127.0.0.1", 0)) is None


def test_a_descriptor_or_dir_fd_is_judged_by_what_it_names(hook: Harness) -> None:
    out = hook.outside / "key"
    out.write_text("x")
    fd = os.open(out, os.O_RDONLY)
    dfd = os.open(hook.outside, os.O_RDONLY)
    try:
        assert hook.refused("os.chmod", fd, 0o777, -1) == f"wrote {os.path.realpath(out)} (os.chmod)"  # fchmod
        assert hook.refused("os.utime", "key", None, None, dfd) is not None
        # os.open(name, flags, dir_fd=...) raises "open" without its dir_fd: judged against held directories
        assert hook.refused("open", "key", None, WRITE) is not None
    finally:
        os.close(fd)
        os.close(dfd)
    cwd = os.getcwd()
    os.chdir(hook.root)
    try:
        assert hook.refused("open", "relative.txt", None, WRITE) is None
    finally:
        os.chdir(cwd)


def test_a_symlink_inside_to_outside_and_a_magic_link(hook: Harness) -> None:
    target = hook.outside / "key"
    target.write_text("x")
    (hook.root / "link").symlink_to(target)
    assert hook.refused("open", str(hook.root / "link"), "w", WRITE) is not None
    assert hook.refused("os.remove", str(hook.root / "link"), -1) is None  # removes the link, inside
    fd = os.open(target, os.O_RDONLY)
    try:
        assert hook.refused("open", f"/proc/self/fd/{fd}", "w", WRITE) is not None
    finally:
        os.close(fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_another_processs_environment(hook: Harness) -> None:
    me, parent = os.getpid(), os.getppid()
    assert hook.refused("open", f"/proc/{parent}/environ", "rb", os.O_RDONLY) is not None
    assert hook.refused("open", f"/proc/self/../{parent}/environ", "rb", os.O_RDONLY) is not None
    assert hook.refused("open", f"/proc/self/root/proc/{parent}/environ", "rb", os.O_RDONLY) is not None
    assert hook.refused("open", f"/proc/{parent}/cmdline", "rb", os.O_RDONLY) is not None
    assert hook.refused("open", f"/proc/{parent}/mem", "rb", os.O_RDONLY) is not None
    assert hook.refused("open", "/proc/self/environ", "rb", os.O_RDONLY) is None
    assert hook.refused("open", f"/proc/{me}/environ", "rb", os.O_RDONLY) is None
    with __import__("subprocess").Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as child:
        try:  # a descendant's command line is its own business (finding one's children by it)
            assert hook.refused("open", f"/proc/{child.pid}/cmdline", "rb", os.O_RDONLY) is None
            assert hook.refused("open", f"/proc/{child.pid}/environ", "rb", os.O_RDONLY) is not None
        finally:
            child.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_symlink_to_another_processs_environment_is_read_as_what_it_names(hook: Harness) -> None:
    """Reads remember the real path of directories outside the roots (no Python code of the test
    can change them); a link the test made inside them is resolved every time."""
    parent = os.getppid()
    (hook.root / "p").symlink_to(f"/proc/{parent}")
    (hook.root / "e").symlink_to(f"/proc/{parent}/environ")
    for _ in range(2):
        assert hook.refused("open", str(hook.root / "p" / "environ"), "rb", os.O_RDONLY) is not None
        assert hook.refused("open", str(hook.root / "e"), "rb", os.O_RDONLY) is not None
    (hook.root / "p").unlink()
    (hook.root / "p").mkdir()
    assert hook.refused("open", str(hook.root / "p" / "environ"), "rb", os.O_RDONLY) is None
    (hook.root / "p").rmdir()
    (hook.root / "p").symlink_to(f"/proc/{parent}")
    assert hook.refused("open", str(hook.root / "p" / "environ"), "rb", os.O_RDONLY) is not None


# -- programs -----------------------------------------------------------------------------


def programs(tmp_path: Path, listed: list[str] | None) -> Harness:
    return Harness(tmp_path, programs=listed)


def test_programs_are_matched_by_what_they_are_not_their_name(tmp_path: Path) -> None:
    h = programs(tmp_path, ["git"])
    fake = tmp_path / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert h.refused("subprocess.Popen", "git", ["git"], None, None) is None
    assert h.refused("subprocess.Popen", "ls", ["ls"], None, None) is not None
    assert h.refused("subprocess.Popen", str(fake), [str(fake)], None, None) is not None
    assert h.refused("subprocess.Popen", "git", ["git"], None, {"PATH": str(fake.parent)}) is not None
    assert h.refused("os.exec", str(fake), [str(fake)], None) is not None
    assert h.refused("os.posix_spawn", "/bin/ls", ["ls"], {}) is not None
    assert h.refused("os.system", b"ls") is not None  # sh is not listed
    # os.execvp tries each PATH entry: an entry that holds no such file runs nothing
    assert h.refused("os.exec", str(tmp_path / "nowhere" / "git"), ["git"], None) is None
    h.close()


@pytest.mark.parametrize(
    ("argv", "fires"),
    [
        (["python", "-I", "-c", "pass"], True),
        (["python", "-S", "-c", "pass"], True),
        (["python", "-E", "-c", "pass"], True),
        (["python", "-bIc", "pass"], True),  # combined
        (["python", "-W", "ignore", "-E", "x.py"], True),
        (["python", "-X", "frozen_modules=off", "x.py"], True),  # then site.py comes from PYTHONPATH
        (["python", "-Xfrozen_modules=off", "x.py"], True),
        (["python", "-c", "-I"], False),  # -I is the program's argument here
        (["python", "x.py", "-I"], False),
        (["python", "-u", "-B", "-s", "-P", "-c", "pass"], False),
        (["python", "-m", "pytest", "-E"], False),
    ],
)
def test_a_python_child_that_would_not_load_the_observer(tmp_path: Path, argv, fires: bool) -> None:
    h = programs(tmp_path, None)
    assert (h.refused("subprocess.Popen", sys.executable, argv, None, None) is not None) == fires
    assert (
        h.refused("os.posix_spawn", sys.executable, argv, dict(os.environ, **h.obs.judge.programs.wanted(None)))
        is not None
    ) == fires
    h.close()


def test_a_python_childs_environment_is_mended_or_refused(tmp_path: Path, monkeypatch) -> None:
    h = programs(tmp_path, [])
    frozen_off = {"PATH": os.environ["PATH"], "PYTHON_FROZEN_MODULES": "off"}  # 3.13's -X frozen_modules=off
    assert h.refused("subprocess.Popen", sys.executable, ["python", "-c", "pass"], None, frozen_off) is not None
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": "src"}  # pytester's way: its own entry first
    assert h.refused("subprocess.Popen", sys.executable, ["python", "-c", "pass"], None, env) is None
    assert env["PYTHONPATH"] == os.pathsep.join([observer.SITE_DIR, "src"])
    assert env[observer.CONFIG_ENV] == h.raw
    # posix_spawn and execve copy their environment before the event: refused, not mended
    assert h.refused("os.posix_spawn", sys.executable, ["python"], {"PATH": "/bin"}) is not None
    assert h.refused("os.exec", sys.executable, ["python"], {"PYTHONPATH": "src"}) is not None
    # the inherited environment, emptied behind os.environ's back, is put back before the start
    # (this process's own: monkeypatch puts every key the mending touches back afterwards)
    monkeypatch.delenv(observer.CONFIG_ENV, raising=False)
    monkeypatch.delenv("PYTHONNOUSERSITE", raising=False)
    monkeypatch.setenv("PYTHONPATH", "src")
    h.obs.hook("os.unsetenv", (b"SCORE_DIFF_OBSERVER",))
    assert h.refused("subprocess.Popen", sys.executable, ["python", "-c", "pass"], None, None) is None
    assert os.environ[observer.CONFIG_ENV] == h.raw
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == observer.SITE_DIR
    h.close()


def test_the_interpreter_is_not_refused_and_unlisted_programs_are_free(tmp_path: Path) -> None:
    h = programs(tmp_path, [])
    assert h.refused("subprocess.Popen", sys.executable, [sys.executable, "-c", "pass"], None, None) is None
    h.close()
    h = programs(tmp_path, None)
    assert h.refused("subprocess.Popen", "ls", ["ls"], None, None) is None
    h.close()


# -- the hook itself ----------------------------------------------------------------------


def test_another_thread_inside_the_hook_does_not_blind_it(hook: Harness) -> None:
    """A thread kept inside the hook (judging a slow path) must not let this thread's event pass."""
    other = threading.Thread(target=lambda: None)
    other.start()
    other.join()
    hook.obs.inside.add(other.ident)
    with inet() as sock:
        assert hook.refused("socket.connect", sock, ("203.0.113.7", 80)) is not None


def test_what_cannot_be_read_is_refused(hook: Harness) -> None:
    class Shifty:
        def __fspath__(self):
            return str(Path.cwd())

    assert hook.refused("os.chmod", Shifty(), 0o777, -1) is not None
    assert hook.refused("open", str(hook.outside / "x"), "w", "not-flags") is not None


def test_a_refusal_swallowed_by_the_test_is_still_reported(hook: Harness) -> None:
    # the test's own except: the run still fails on the report
    with inet() as sock, contextlib.suppress(PermissionError):
        hook.obs.hook("socket.connect", (sock, ("203.0.113.7", 443)))
    assert json.loads(hook.inbox.recv(4096))["attempt"] == "connected to 203.0.113.7:443"


# -- end to end: the required test refused, checked by oracles outside score-diff ----------
# Each runs with the kernel jail as this machine has it, and with the namespaces made
# unavailable: the Python-level attack is refused by the observer either way.

MODES = ["jail", "no-namespaces"]


@pytest.fixture
def ready(committed, monkeypatch, request):
    from scorer.testrun import envelope

    if request.param == "no-namespaces":
        monkeypatch.setattr(envelope, "UNAVAILABLE", ("namespaces",))
    committed.write("allowed/a.py", "fixed\n")
    committed.mode = request.param
    return committed


def _py(code: str) -> list[str]:
    import textwrap

    return [sys.executable, "-c", textwrap.dedent(code)]


def _observed(out) -> list[str]:
    return out.report["test"]["envelope"]["observed"]


def _layers_reported(out) -> bool:
    """With the namespaces refused, `auto` says which layers are missing."""
    return any("envelope could not enforce" in w for w in out.report["warnings"])


@pytest.fixture
def listener(tmp_path: Path):
    """A pathname unix socket outside every root (an SSH agent's, a Docker daemon's): it must
    accept nothing."""
    where = tmp_path / "l" / "agent.sock"
    where.parent.mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(where))
        server.listen(8)
        server.setblocking(False)
        yield server, str(where)
        with pytest.raises(BlockingIOError):
            server.accept()


SEND = """
    import socket
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect({path!r})
        s.sendall(b"the secret")
    except PermissionError:
        pass  # caught: the run fails all the same
"""


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_a_unix_socket_outside_the_roots_receives_nothing(ready, listener) -> None:
    _, path = listener
    ready.manifest(required_test=_py(SEND.format(path=path)))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert _observed(out) == [f"connected to the unix socket {os.path.realpath(path)}"]
    assert _layers_reported(out) == (ready.mode == "no-namespaces")


@pytest.mark.parametrize("ready", MODES, indirect=True)
@pytest.mark.parametrize("flags", [["-I"], ["-S"], ["-E"], ["-X", "frozen_modules=off"]])
def test_a_python_child_that_drops_the_observer_never_runs(ready, listener, flags) -> None:
    _, path = listener
    child = textwrap_dedent(SEND.format(path=path)).replace("except PermissionError", "except OSError")
    code = f"""
        import subprocess, sys
        try:
            subprocess.run([sys.executable, *{flags!r}, "-c", {child!r}])
        except PermissionError:
            pass
    """
    ready.manifest(required_test=_py(code))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert len(_observed(out)) == 1 and "which would not load the observer" in _observed(out)[0]


def textwrap_dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code)


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_metadata_outside_the_roots_is_unchanged(ready, tmp_path: Path) -> None:
    key = tmp_path / "keys" / "id_ed25519"
    key.parent.mkdir()
    key.write_text("not a key\n")
    key.chmod(0o600)
    os.utime(key, (1_000_000, 1_000_000))
    before = key.stat()
    code = f"""
        import os
        for change in (lambda p: os.chmod(p, 0o777), lambda p: os.utime(p, (0, 0)),
                       lambda p: os.setxattr(p, "user.owned", b"1"), lambda p: os.chown(p, os.getuid(), os.getgid())):
            try:
                change({str(key)!r})
            except PermissionError:
                pass
    """
    ready.manifest(required_test=_py(code))
    out = ready.score(skip_test=False)
    after = key.stat()
    assert (after.st_mode, after.st_mtime) == (before.st_mode, before.st_mtime)
    assert "user.owned" not in os.listxattr(key)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    real = os.path.realpath(key)
    assert _observed(out) == [f"wrote {real} (os.{e})" for e in ("chmod", "utime", "setxattr", "chown")]


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_a_program_not_on_test_programs_never_runs(ready, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "bin" / "git"  # a git of the test's own: not the git test_programs names
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\necho ran > {marker}\n")
    script.chmod(0o755)
    code = f"""
        import os, subprocess
        for argv, env in (([{str(script)!r}], None), (["git"], dict(os.environ, PATH={str(script.parent)!r}))):
            try:
                subprocess.run(argv, env=env)
            except PermissionError:
                pass
    """
    ready.manifest(required_test=_py(code), test_programs=["git"], test_write_roots=[str(tmp_path)])
    out = ready.score(skip_test=False)
    assert not marker.exists()
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert _observed(out) == [
        f"started the program {script} (not on test_programs)",
        "started the program git (not on test_programs)",
    ]


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_the_legitimate_neighbours_still_pass(ready) -> None:
    """Reads its fixtures, writes its temporary directory, serves and calls itself on 127.0.0.1,
    starts the interpreter (plainly, and pytester's way with its own PYTHONPATH entry first),
    and reads its own environment."""
    code = """
        import os, socket, subprocess, sys, tempfile
        # modules whose import opens files while pathlib is half-imported (a hook that read
        # pathlib's classes too early refused these)
        import pathlib, asyncio, email.parser, http.client, json, unittest, logging.handlers
        assert open("README.txt").read() == "hello\\n"
        with tempfile.NamedTemporaryFile("w") as fh:
            fh.write("ok")
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
        client.sendall(b"ping")
        assert conn.recv(4) == b"ping"
        child = "import os; open(os.path.join(os.environ['TMPDIR'], 'c'), 'w').write('ok')"
        subprocess.run([sys.executable, "-c", child], check=True)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(["src", os.environ["PYTHONPATH"]]))
        subprocess.run([sys.executable, "-c", "import sys; sys.exit(0 if any(p.endswith('/src') for p in sys.path) else 3)"], check=True, env=env)
        open("/proc/self/environ", "rb").read()
    """
    ready.manifest(required_test=_py(code), test_programs=[])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text
    assert _layers_reported(out) == (ready.mode == "no-namespaces")


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_a_connect_off_loopback_is_refused_before_any_socket_call(ready) -> None:
    """The connect's audit event alone (sys.audit: no socket I/O, no packet), raised by the test:
    the hook raises, so the connect that would follow never runs."""
    code = """
        import socket, sys
        with socket.socket() as s:
            try:
                sys.audit("socket.connect", s, ("203.0.113.7", 80))
            except PermissionError:
                print("refused")
                sys.exit(0)
        sys.exit(3)  # the observer let it through: a real connect would have followed
    """
    ready.manifest(required_test=_py(code))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert "refused" in out.report["test"]["output_tail"]
    assert _observed(out) == ["connected to 203.0.113.7:80"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_another_processs_environment_is_not_read(ready) -> None:
    """A process outside the test's tree holds a key in its environment (as score-diff's own holds
    the agent session's); the test looks for it in every /proc/<pid>/environ it can see."""
    import subprocess

    env = dict(os.environ, SCORE_OBS26_PLANTED="planted-value-not-for-the-test")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    code = """
        import os, sys
        found = False
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    found |= b"SCORE_OBS26_PLANTED" in open(f"/proc/{pid}/environ", "rb").read()
                except OSError:
                    pass
        sys.exit(3 if found else 0)
    """
    ready.manifest(required_test=_py(code))
    try:
        out = ready.score(skip_test=False)
    finally:
        holder.kill()
        holder.wait()
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text  # not test-failed: nothing read
    assert all(o.startswith("read the environment of process ") for o in _observed(out))


@pytest.mark.parametrize("ready", MODES, indirect=True)
def test_a_pth_file_in_the_user_site_never_runs_in_a_child(ready, listener) -> None:
    """A .pth line in the user site runs before sitecustomize. The test plants one under its HOME
    and starts Pythons whose environment drops PYTHONNOUSERSITE: subprocess's is mended (the
    .pth is not read), posix_spawn's is refused; the listener hears from neither. (A virtualenv
    without system site packages reads no user site at all; the base interpreter does.)"""
    _, path = listener
    code = f"""
        import os, site, subprocess, sys
        user_site = site.getusersitepackages()
        os.makedirs(user_site, exist_ok=True)
        line = "import socket; s = socket.socket(socket.AF_UNIX); s.connect({path!r}); s.sendall(b'x')"
        open(os.path.join(user_site, "zz.pth"), "w").write(line + "\\n")
        env = {{k: v for k, v in os.environ.items() if k != "PYTHONNOUSERSITE"}}
        env.update(PYTHONSAFEPATH="1")  # drops nothing: the observer stays
        subprocess.run([sys.executable, "-c", "pass"], env=dict(env), check=True)
        try:
            os.waitpid(os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], dict(env)), 0)
        except PermissionError:
            pass
    """
    base = getattr(sys, "_base_executable", sys.executable)  # reads the user site, as a venv's does not
    ready.manifest(required_test=[base, *_py(code)[1:]])
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert _observed(out) == [f"started the Python {base} without the observer (PYTHONNOUSERSITE was removed)"]


def test_a_test_that_closes_or_replaces_the_observers_socket_is_still_reported(hook: Harness) -> None:
    with inet() as sock:
        os.close(hook.obs.fd)  # os.closerange(3, ...) in the test
        assert hook.refused("socket.connect", sock, ("203.0.113.7", 80)) is not None
        taken = hook.obs.fd
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), taken)  # writes that succeed and go nowhere
        try:
            assert hook.refused("socket.connect", sock, ("203.0.113.7", 81)) is not None
        finally:
            os.close(taken)
