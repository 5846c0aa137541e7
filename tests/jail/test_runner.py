"""The jail, run as score-diff's test runner runs it: each promise checked from outside the jail."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scorer.jail import Policy, argv_for, run, script_exe


def _namespaces() -> bool:
    probe = subprocess.run(["unshare", "-Urmpf", "--mount-proc", "true"], capture_output=True, check=False)
    return probe.returncode == 0


needs_namespaces = pytest.mark.skipif(not _namespaces(), reason="no user namespaces here")


def jailed(policy: Policy, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = argv_for(policy, [sys.executable, "-I", "-c", textwrap.dedent(code)], script_exe())
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)


@needs_namespaces
def test_writes_land_only_in_the_write_roots(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    script = f"""
        open({str(inside / "kept")!r}, "w").write("ok")
        try:
            open({str(outside / "escaped")!r}, "w").write("no")
        except OSError as exc:
            print(exc.errno)
    """
    done = jailed(Policy(write=(str(inside),)), script, inside)
    assert done.returncode == 0, done.stderr
    assert (inside / "kept").read_text() == "ok"
    assert not (outside / "escaped").exists()
    assert done.stdout.strip() in ("2", "30")  # the kernel's own error: hidden (ENOENT) or read-only (EROFS)


@needs_namespaces
def test_metadata_outside_the_roots_does_not_change(tmp_path: Path) -> None:
    root, other = tmp_path / "root", tmp_path / "sibling.sh"
    root.mkdir()
    other.write_text("echo hi\n")
    other.chmod(0o644)
    (root / "mine.sh").write_text("echo me\n")
    script = f"""
        import os
        os.chmod({str(root / "mine.sh")!r}, 0o755)
        for call in (lambda: os.chmod({str(other)!r}, 0o755), lambda: os.utime({str(other)!r}, (0, 0)),
                     lambda: os.setxattr({str(other)!r}, "user.x", b"1")):
            try:
                call()
                print("changed")
            except OSError as exc:
                print(exc.errno)
    """
    before = other.stat()
    done = jailed(Policy(write=(str(root),)), script, root)
    assert len(done.stdout.split()) == 3 and set(done.stdout.split()) <= {"2", "30"}, (
        done.stdout + done.stderr
    )  # ENOENT (hidden /tmp) or EROFS
    after = other.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert (root / "mine.sh").stat().st_mode & 0o777 == 0o755


@needs_namespaces
def test_no_listener_of_the_host_is_reachable_but_loopback_inside_works(tmp_path: Path) -> None:
    with socket.socket() as host:
        host.bind(("127.0.0.1", 0))
        host.listen()
        host.setblocking(False)
        port = host.getsockname()[1]
        script = f"""
            import socket, threading
            try:
                socket.create_connection(("127.0.0.1", {port})).close()
                print("reached")
            except OSError as exc:
                print("refused", exc.errno)
            own = socket.socket(); own.bind(("127.0.0.1", 0)); own.listen()
            threading.Thread(target=lambda: own.accept()[0].sendall(b"inside"), daemon=True).start()
            print(socket.create_connection(own.getsockname()).recv(6).decode())
        """
        done = jailed(Policy(write=(str(tmp_path),)), script, tmp_path)
        with pytest.raises(BlockingIOError):
            host.accept()
    assert done.stdout.split() == ["refused", "111", "inside"], done.stdout + done.stderr


@needs_namespaces
def test_pathname_socket_outside_the_roots_is_out_of_reach(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    path = tmp_path / "host.sock"
    with socket.socket(socket.AF_UNIX) as host:
        host.bind(str(path))
        host.listen()
        host.setblocking(False)
        script = f"""
            import socket
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect({str(path)!r})
                print("reached")
            except OSError as exc:
                print("refused", exc.errno)
        """
        policy = Policy(write=(str(tmp_path / "root"),), read=(str(tmp_path / "root"),))
        done = jailed(policy, script, tmp_path / "root")
        with pytest.raises(BlockingIOError):
            host.accept()
    assert done.stdout.split() == ["refused", "2"], done.stdout + done.stderr  # ENOENT: not in its world


@needs_namespaces
def test_reads_are_confined_when_read_roots_are_given(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "fixture.txt").write_text("fixture")
    (tmp_path / "credentials").write_text("secret")
    script = f"""
        print(open({str(tmp_path / "repo" / "fixture.txt")!r}).read())
        for path in ({str(tmp_path / "credentials")!r}, "/root/.bashrc", "/proc/1/environ"):
            try:
                open(path).read()
                print("read", path)
            except OSError as exc:
                print(exc.errno)
    """
    policy = Policy(write=(str(tmp_path / "repo"),), read=(str(tmp_path / "repo"),))
    done = jailed(policy, script, tmp_path / "repo")
    assert done.stdout.split()[:3] == ["fixture", "2", "2"], done.stdout + done.stderr


SHADOW_READ = """
    import os, pwd
    for path in ("/etc/shadow", "/etc/gshadow", "/etc/ssl/private"):
        try:
            if os.path.isdir(path):
                print(path, "listed", len(os.listdir(path)))
            else:
                print(path, "read", len(open(path, "rb").read()))
        except OSError as exc:
            print(path, "refused", exc.errno)
    print("/etc/passwd", "read", len(open("/etc/passwd", "rb").read()) > 0)
    print("pwd", pwd.getpwuid(os.getuid()).pw_name == {name!r})
"""


@needs_namespaces
@pytest.mark.skipif(os.geteuid() != 0 or not os.access("/etc/shadow", os.R_OK), reason="the attack needs root")
@pytest.mark.parametrize("confined", [False, True], ids=["reads open", "reads confined"])
def test_root_inside_reads_no_shadow_but_still_its_passwd(tmp_path: Path, confined: bool) -> None:
    """The uid is mapped to itself, so a test run as root keeps root's permission on /etc/shadow:
    the jail covers the system's secret files with empty ones, and /etc/passwd still reads."""
    import pwd

    assert Path("/etc/shadow").read_bytes()  # the oracle: outside the jail, root reads it
    policy = Policy(write=(str(tmp_path),), read=(str(tmp_path),) if confined else ())
    done = jailed(policy, SHADOW_READ.format(name=pwd.getpwuid(os.getuid()).pw_name), tmp_path)
    lines = [line.split() for line in done.stdout.splitlines()]
    assert done.returncode == 0, done.stderr
    for path, how, size in lines[:3]:
        if os.path.exists(path):
            assert (how, size) in (("read", "0"), ("listed", "0")) or how == "refused", done.stdout
    assert lines[3:] == [["/etc/passwd", "read", "True"], ["pwd", "True"]]


@needs_namespaces
def test_read_only_inside_a_write_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    script = f"""
        open("work.txt", "w").write("ok")
        try:
            open({str(tmp_path / ".git" / "config")!r}, "a").write("[alias]\\n")
        except OSError as exc:
            print(exc.errno)
    """
    policy = Policy(write=(str(tmp_path),), read_only=(str(tmp_path / ".git" / "config"),), cwd=str(tmp_path))
    done = jailed(policy, script, tmp_path)
    assert done.stdout.strip() == "30"
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"
    assert (tmp_path / "work.txt").read_text() == "ok"


@needs_namespaces
def test_every_process_ends_with_the_command(tmp_path: Path) -> None:
    """A new session, a double fork and a SIGTERM-ignoring process: none outlives the jail."""
    script = f"""
        import os, signal, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                open({str(tmp_path / "pid")!r}, "w").write(open("/proc/self/stat").read().split()[0])
                with open("/proc/self/status") as fh:
                    pass
                time.sleep(5)
                open({str(tmp_path / "late")!r}, "w").write("outlived")
            os._exit(0)
        while not os.path.exists({str(tmp_path / "pid")!r}):
            time.sleep(0.01)
    """
    done = jailed(Policy(write=(str(tmp_path),)), script, tmp_path)
    assert done.returncode == 0, done.stderr
    time.sleep(6)
    assert not (tmp_path / "late").exists()


@needs_namespaces
def test_a_zombie_flood_ends_too(tmp_path: Path) -> None:
    script = """
        import os, time
        for _ in range(1010):
            if os.fork() == 0:
                os._exit(0)
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
    """
    start = time.monotonic()
    done = jailed(Policy(write=(str(tmp_path),)), script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 50  # the sleeper did not hold the jail open


@needs_namespaces
def test_the_api_says_which_layers_held(tmp_path: Path) -> None:
    policy = Policy(write=(str(tmp_path),), read=(str(tmp_path),), cwd=str(tmp_path))
    result = run(policy, ["true"], dict(os.environ))
    assert result.exit_code == 0
    assert result.backend == "builtin"
    assert result.layers == dict.fromkeys(("reads", "writes", "network", "process tree"), "held")


def test_without_namespaces_auto_says_what_is_missing_and_required_refuses(tmp_path: Path) -> None:
    policy = Policy(write=(str(tmp_path),), unavailable=("namespaces",), cwd=str(tmp_path))
    result = run(policy, ["true"], dict(os.environ))
    assert (result.exit_code, result.backend) == (0, "none")
    assert result.layers["writes"].startswith("missing: ")
    assert result.layers["reads"] == "not asked"
    refused = run(Policy(write=(str(tmp_path),), unavailable=("namespaces",), level="required"), ["true"], {})
    assert refused.exit_code == 125


def test_argv_for_is_the_command_line() -> None:
    policy = Policy(write=("/w",), read_only=("/w/.git/config",), network="on")
    assert argv_for(policy, ["bash", "-c", "make"]) == [
        "score-diff", "jail", "--write", "/w", "--read-only", "/w/.git/config",
        "--network", "on", "--level", "auto", "--backend", "auto", "--", "bash", "-c", "make",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("lines", "said", "init"),
    [
        (["pid 7", "ready []"], "ready []", 7),
        # G can say ready before C has written its pid: P must still hear the pid, or C meets a
        # closed pipe and dies, killing G and the command (seen under load as BrokenPipeError)
        (["ready []", "pid 7"], "ready []", 7),
        (["fail unshare: Operation not permitted"], "fail unshare: Operation not permitted", 0),
        (["pid 7"], None, 7),
        ([], None, 0),
    ],
)
def test_the_jail_hears_the_ready_line_and_the_pid_in_either_order(
    lines: list[str], said: str | None, init: int
) -> None:
    from scorer.jail.runner import Jail

    jail = Jail(Policy(), ["true"], env={})
    assert jail.hear(iter(f"{line}\n" for line in lines)) == said
    assert jail.init == init


def score_diff_jail(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The console entry point, `score-diff jail ...`, as the guard and a person run it."""
    argv = [sys.executable, "-m", "scorer", "jail", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)


@needs_namespaces
def test_the_score_diff_jail_command_confines_and_passes_the_exit_status_on(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (inside / ".git").mkdir()
    (inside / ".git" / "config").write_text("[core]\n")
    script = f"echo ok > kept; echo no > {outside}/escaped; echo x >> .git/config; exit 3"
    done = score_diff_jail(
        "--write", str(inside), "--read-only", str(inside / ".git" / "config"), "--", "sh", "-c", script, cwd=inside
    )
    assert done.returncode == 3, done.stderr
    assert (inside / "kept").read_text() == "ok\n"
    assert not (outside / "escaped").exists()
    assert (inside / ".git" / "config").read_text() == "[core]\n"


def test_the_score_diff_jail_command_refuses_when_required_cannot_hold(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    args = ("--write", str(tmp_path), "--unavailable", "namespaces", "--level", "required")
    done = score_diff_jail(*args, "--", "touch", str(marker), cwd=tmp_path)
    assert done.returncode == 125
    assert "--level required" in done.stderr
    assert not marker.exists()
    assert score_diff_jail("--write", str(tmp_path), cwd=tmp_path).returncode == 125  # no command


def test_the_runner_imports_no_dataclasses_inspect_or_ast() -> None:
    """runner.py starts at every test run (`python -I -S runner.py`), so what it imports is paid
    each time: dataclasses would bring inspect, ast and dis, about a sixth of its import time."""
    from scorer.jail import SCRIPT

    code = f"import sys; sys.path.insert(0, {os.path.dirname(SCRIPT)!r}); import runner; print(*sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert {"runner", "policy", "mounts"} <= set(loaded.stdout.split())
    assert not {"dataclasses", "inspect", "ast", "dis"} & set(loaded.stdout.split())
