"""The required test's envelope: no network, writes only beneath its roots, a fresh HOME, and a
process tree that never outlives score-diff. Each attacker test has a legitimate neighbour."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.testrun import envelope
from tests.testing.repo import GitRepo


def _probe(code: str) -> bool:
    return subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


LINUX = sys.platform.startswith("linux")
NETNS = LINUX and _probe(
    "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); os._exit(libc.unshare(0x10000000 | 0x40000000) != 0)"
)
LANDLOCK = LINUX and _probe("import ctypes, os; os._exit(ctypes.CDLL(None).syscall(444, None, 0, 1) < 1)")
needs_netns = pytest.mark.skipif(not NETNS, reason="no user+network namespaces here: nothing guarantees no traffic")
needs_landlock = pytest.mark.skipif(not LANDLOCK, reason="no Landlock on this kernel")


def _envelope_messages(out) -> list[str]:
    """The test-envelope findings, without the docs pointer each ends with."""
    return [
        v["message"].split(": outside its envelope")[0]
        for v in out.report["violations"]
        if v["code"] == "test-envelope"
    ]


def py(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


@pytest.fixture
def ready(committed: GitRepo) -> GitRepo:
    committed.write("allowed/a.py", "fixed\n")
    committed.write(".gitignore", "out/\n")
    committed.commit("ignore out/")
    committed.write("allowed/a.py", "fixed again\n")
    return committed


def test_off_by_default_and_in_the_report(ready: GitRepo) -> None:
    ready.manifest(required_test=py("pass"))
    out = ready.score(skip_test=False)
    assert out.exit_code == 0, out.text
    env = out.report["test"]["envelope"]
    assert env["policy"] == "auto"
    if NETNS:
        assert any(e.startswith("network: ") for e in env["enforced"])
    if LANDLOCK:
        assert any(e.startswith("writes: landlock") for e in env["enforced"])
    assert any(e.startswith("process tree: ") for e in env["enforced"])


# -- network ------------------------------------------------------------------------------

CONNECT = """
    import socket, sys
    s = socket.socket()
    s.settimeout(5)
    try:  # the audit event a connect to a public address raises first; no socket I/O, no packet
        sys.audit("socket.connect", s, ("192.0.2.1", 80))
    except OSError:
        pass  # an observer that refuses
    try:
        s.connect(("127.0.0.1", {port}))  # score-diff's own loopback; the namespace has another
    except OSError as exc:
        print("connect failed:", exc)
        sys.exit(1)
    print("reached score-diff's loopback")
"""


@contextlib.contextmanager
def outer_listener() -> Iterator[socket.socket]:
    """A listener on 127.0.0.1 in score-diff's own network namespace: the oracle that the jailed
    test, whose loopback is another one, reached nothing outside."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.setblocking(False)
        yield server


def accepted_nothing(server: socket.socket) -> bool:
    readable, _, _ = select.select([server], [], [], 0)
    return not readable


@needs_netns
def test_a_socket_to_score_diffs_loopback_fails_inside_the_namespace(ready: GitRepo) -> None:
    """The jail, not the observer: a connect to a port score-diff's side listens on is refused
    inside, and the listener accepts nothing. The observer's finding comes from the audit event
    alone (sys.audit), so no test sends a packet off loopback."""
    with outer_listener() as server:
        ready.manifest(required_test=py(CONNECT.format(port=server.getsockname()[1])))
        out = ready.score(skip_test=False)
        assert accepted_nothing(server)
    assert out.exit_code == 1 and out.codes == {"test-failed", "test-envelope"}, out.text
    assert "connect failed:" in out.report["test"]["output_tail"]
    assert "Connection refused" in out.report["test"]["output_tail"]
    assert _envelope_messages(out) == ["the required test connected to 192.0.2.1:80"]


@needs_netns
def test_a_forked_child_cannot_reach_score_diffs_loopback_either(ready: GitRepo) -> None:
    with outer_listener() as server:
        connect = textwrap.dedent(CONNECT.format(port=server.getsockname()[1]))
        code = f"""
            import os, sys
            pid = os.fork()
            if pid == 0:
                exec({connect!r})
            _, status = os.waitpid(pid, 0)
            sys.exit(os.waitstatus_to_exitcode(status))
        """
        ready.manifest(required_test=py(code))
        out = ready.score(skip_test=False)
        assert accepted_nothing(server)
    assert out.exit_code == 1 and out.codes == {"test-failed", "test-envelope"}, out.text
    assert "Connection refused" in out.report["test"]["output_tail"]
    assert _envelope_messages(out) == ["the required test connected to 192.0.2.1:80"]


def test_loopback_inside_the_namespace_works(ready: GitRepo) -> None:
    """The neighbour: a test that serves and calls itself on 127.0.0.1 passes."""
    code = """
        import socket
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        client = socket.create_connection(server.getsockname())
        conn, _ = server.accept()
        client.sendall(b"ping")
        assert conn.recv(4) == b"ping"
    """
    ready.manifest(required_test=py(code))
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text


def test_network_true_leaves_the_network_alone(ready: GitRepo) -> None:
    ready.manifest(required_test=py("pass"), test_network=True)
    out = ready.score(skip_test=False)
    assert out.exit_code == 0
    assert not any(e.startswith("network") for e in out.report["test"]["envelope"]["enforced"])


def test_a_list_of_hosts_is_refused_as_unsupported(ready: GitRepo) -> None:
    ready.manifest(test_network=["pypi.org"])
    out = ready.score(skip_test=False)
    assert out.exit_code == 2
    assert "a list of hosts is not supported" in out.text


# -- writes -------------------------------------------------------------------------------

WRITE = """
    import sys
    try:
        with open({path!r}, "a") as fh:
            fh.write("echo owned\\n")
    except OSError as exc:
        print("write failed:", exc)
        sys.exit(1)
"""


def _targets(ready: GitRepo) -> dict[str, Path]:
    return {
        "bashrc": Path(os.environ["HOME"]) / ".bashrc",  # the caller's HOME, by absolute path
        "sibling": ready.root.parent / "sibling" / "x.txt",
        "tmp-elsewhere": Path("/tmp") / f"elsewhere-{uuid.uuid4().hex}" / "x.txt",
    }


@needs_landlock
@pytest.mark.parametrize("target", ["bashrc", "sibling", "tmp-elsewhere"])
@pytest.mark.parametrize("forked", [False, True])
def test_a_write_outside_the_roots_is_refused(ready: GitRepo, target: str, forked: bool) -> None:
    path = _targets(ready)[target]
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        code = textwrap.dedent(WRITE.format(path=str(path)))
        if forked:
            code = f"import os, subprocess, sys\nsys.exit(subprocess.run([sys.executable, '-c', {code!r}]).returncode)"
        ready.manifest(required_test=[sys.executable, "-c", code])
        out = ready.score(skip_test=False)
        assert out.exit_code == 1 and out.codes == {"test-failed", "test-envelope"}, out.text
        # the observer's refusal, before the kernel's error (hidden, read-only, or Landlock's EACCES)
        assert "score-diff's observer refused this" in out.report["test"]["output_tail"]
        assert not path.exists()
        assert _envelope_messages(out) == [f"the required test wrote {os.path.realpath(path)}"]
    finally:
        if target == "tmp-elsewhere":
            path.parent.rmdir()


def test_writes_inside_the_roots_pass(ready: GitRepo, tmp_path: Path) -> None:
    """The neighbour: the tree it runs in (an ignored file), its temporary directory, its HOME,
    and a directory test_write_roots names."""
    extra = tmp_path / "extra"
    extra.mkdir()
    code = f"""
        import os, tempfile
        os.makedirs("out", exist_ok=True)
        open("out/result.txt", "w").write("ok")
        with tempfile.NamedTemporaryFile("w") as fh:
            fh.write("ok")
        open(os.path.expanduser("~/.cache-file"), "w").write("ok")
        open({str(extra / "x")!r}, "w").write("ok")
        open(os.devnull, "w").write("ok")
    """
    ready.manifest(required_test=py(code), test_write_roots=[str(extra)])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text
    assert (extra / "x").read_text() == "ok"


def test_home_is_a_fresh_directory_unless_test_env_names_it(ready: GitRepo) -> None:
    real = os.environ["HOME"]
    code = (
        f"import os, sys\nsys.exit(0 if os.environ['HOME'] != {real!r} and not os.listdir(os.environ['HOME']) else 1)"
    )
    ready.manifest(required_test=[sys.executable, "-c", code])
    assert ready.score(skip_test=False).exit_code == 0
    code = f"import os, sys\nsys.exit(0 if os.environ['HOME'] == {real!r} else 1)"
    ready.manifest(required_test=[sys.executable, "-c", code], test_env=["HOME"])
    assert ready.score(skip_test=False).exit_code == 0


def test_write_roots_must_be_absolute_directories(ready: GitRepo) -> None:
    for roots in (["relative/dir"], ["/"], ["/tmp/../etc"]):
        ready.manifest(test_write_roots=roots)
        out = ready.score(skip_test=False)
        assert out.exit_code == 2 and "manifest-invalid" in out.text, roots


def test_off_means_no_jail(ready: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    ready.manifest(required_test=py(f"open({str(outside)!r}, 'w').write('x')"), test_envelope="off")
    out = ready.score(skip_test=False)
    assert out.exit_code == 0, out.text
    assert outside.exists()
    assert out.report["test"]["envelope"]["policy"] == "off"


# -- what the platform cannot do ----------------------------------------------------------


def test_auto_says_in_one_line_what_it_could_not_enforce(ready: GitRepo, monkeypatch) -> None:
    monkeypatch.setattr(envelope, "UNAVAILABLE", ("namespaces",))
    ready.manifest(required_test=py("pass"))
    out = ready.score(skip_test=False)
    assert out.exit_code == 0, out.text
    lines = [w for w in out.report["warnings"] if "envelope could not enforce" in w]
    assert len(lines) == 1 and "network" in lines[0]
    missing = out.report["test"]["envelope"]["missing"]
    for layer in ("reads", "writes", "network", "process tree"):
        assert any(m.startswith(f"{layer}: none: namespaces made unavailable") for m in missing), missing
    assert "jail: none" in out.report["test"]["envelope"]["enforced"]


def test_required_cannot_score_where_the_platform_cannot_enforce(ready: GitRepo, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(envelope, "UNAVAILABLE", ("writes",))
    ran = tmp_path / "ran"
    ready.manifest(required_test=py(f"open({str(ran)!r}, 'w')"), test_envelope="required")
    code, text = _cli(ready)
    assert code == 2
    assert text.rstrip().splitlines()[-1] == "RESULT: FAIL (could not score: test-envelope-unavailable)"
    assert not ran.exists()  # the test never ran unconfined


def test_required_refuses_to_run_without_namespaces(ready: GitRepo, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(envelope, "UNAVAILABLE", ("namespaces",))
    ran = tmp_path / "ran"
    ready.manifest(required_test=py(f"open({str(ran)!r}, 'w')"), test_envelope="required")
    code, text = _cli(ready)
    assert code == 2
    assert text.rstrip().splitlines()[-1] == "RESULT: FAIL (could not score: test-envelope-unavailable)"
    assert not ran.exists()


def _cli(ready: GitRepo) -> tuple[int, str]:
    from tests.testing.repo import run_cli

    return run_cli(["--repo", str(ready.root), "--manifest", str(ready.manifest_path)])


def test_the_macos_profile_confines_writes_and_network() -> None:
    profile = envelope.sandbox_profile(["/Users/me/repo", "/private/var/folders/x/score-diff-test-1"], network=False)
    assert profile.startswith("(version 1)\n(allow default)\n(deny file-write*)\n")
    assert '(subpath "/Users/me/repo")' in profile and '(literal "/dev/null")' in profile
    assert '(deny network-outbound (remote ip "*:*"))' in profile
    assert "network-outbound" not in envelope.sandbox_profile(["/r"], network=True)
    with pytest.raises(ValueError, match="cannot quote"):
        envelope.sandbox_profile(['/r") (allow file-write* (subpath "/'], network=False)


# -- the test never outlives score-diff ---------------------------------------------------

GRANDCHILD = """
    import os, subprocess, sys, time
    sleep = "import time; time.sleep(600)  # {marker}"
    # A grandchild in a session of its own, out of the test's process group, that would live on.
    subprocess.Popen([sys.executable, "-c", sleep], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    child = subprocess.Popen([sys.executable, "-c", sleep])
    open({ready!r}, "w").write("ready")
    time.sleep(600)  # {marker}
"""


def _sleepers(marker: str) -> list[int]:
    """Live processes whose command line holds `marker` (an unique path)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    cmdline = fh.read()
                with open(f"/proc/{name}/stat", "rb") as fh:
                    state = fh.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != b"Z":
                found.append(int(name))
    return found


def _gone(marker: str) -> bool:
    import time

    for _ in range(200):  # bounded: the kernel delivers the death signal asynchronously
        if not _sleepers(marker):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL, signal.SIGHUP, signal.SIGINT])
def test_killing_score_diff_ends_the_tests_whole_tree_and_its_temp_files(ready: GitRepo, tmp_path, how) -> None:
    import time

    (tmp_path / "signal").mkdir()
    ready_file = tmp_path / "signal" / "ready"
    temp = tmp_path / "tmpdir"
    temp.mkdir()
    marker = uuid.uuid4().hex
    code = py(GRANDCHILD.format(ready=str(ready_file), marker=marker))
    ready.manifest(required_test=code, test_write_roots=[str(ready_file.parent)])
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(Path(envelope.__file__).parents[2])}
    argv = [sys.executable, "-m", "scorer", "--repo", str(ready.root), "--manifest", str(ready.manifest_path)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if ready_file.exists():
                break
            time.sleep(0.05)
        assert ready_file.exists(), "the test never started"
        assert [p.name for p in temp.iterdir()], "the test's temporary directory should exist while it runs"
        assert len(_sleepers(marker)) >= 3  # the test, its child, the grandchild that left its group (+ launcher)
        proc.send_signal(how)
        proc.wait()
        assert _gone(marker), "a process of the test outlived score-diff"
        # the job's kept checkout (testrun/checkout.workdir) stays by design: it is verified before each use
        left = lambda: [p for p in temp.iterdir() if not p.name.startswith("score-diff-checkouts-")]  # noqa: E731
        for _ in range(200):
            if not left():
                break
            time.sleep(0.05)
        assert left() == []
    finally:
        proc.kill()
        for pid in _sleepers(marker):
            os.kill(pid, signal.SIGKILL)


ZOMBIE_FLOOD = """
    import os, subprocess, sys, time
    for _ in range(1010):  # more zombies than the launcher once had rounds to end its tree
        if os.fork() == 0:
            os._exit(0)
    late = "import time; open({ready!r}, 'w').write('up'); time.sleep(3); open({late!r}, 'w').write('late')  # {marker}"
    subprocess.Popen([sys.executable, "-c", late], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists({ready!r}):
        time.sleep(0.01)
"""


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("unavailable", [("namespaces",), ()], ids=["launcher only", "jail"])
def test_a_zombie_flood_does_not_let_a_process_in_its_own_session_outlive_score_diff(
    ready: GitRepo, tmp_path: Path, monkeypatch, unavailable: tuple[str, ...]
) -> None:
    """Without namespaces the launcher ends the tree until no descendant is left, not for a budget
    of rounds: 1,010 zombies reparented to it no longer use the rounds up before the live one."""
    import time

    monkeypatch.setattr(envelope, "UNAVAILABLE", unavailable)
    (tmp_path / "signal").mkdir()
    ready_file, late = tmp_path / "signal" / "ready", tmp_path / "signal" / "late"
    marker = uuid.uuid4().hex
    code = py(ZOMBIE_FLOOD.format(ready=str(ready_file), late=str(late), marker=marker))
    ready.manifest(required_test=code, test_write_roots=[str(ready_file.parent)])
    try:
        out = ready.score(skip_test=False)
        assert ready_file.exists(), out.text  # the live process did start
        time.sleep(4)  # past the moment it would have written, had it outlived score-diff
        assert not late.exists(), "the process in its own session outlived score-diff"
        assert _sleepers(marker) == []
    finally:
        for pid in _sleepers(marker):
            os.kill(pid, signal.SIGKILL)


def test_report_validates_with_the_envelope(ready: GitRepo) -> None:
    import jsonschema

    from scorer.manifest.load import schema_text

    ready.manifest(required_test=py("pass"))
    out = ready.score(skip_test=False)
    jsonschema.validate(out.report, json.loads(schema_text("report.schema.json")))


@needs_landlock
def test_the_repository_itself_is_outside_the_roots(ready: GitRepo) -> None:
    """The test runs in a temporary checkout: job code that finds the developer's tree by its
    absolute path cannot write there either (the side-effect snapshot stays as the backstop)."""
    target = ready.root / "allowed" / "a.py"
    ready.manifest(required_test=py(WRITE.format(path=str(target))))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-failed", "test-envelope"}, out.text
    assert target.read_text() == "fixed again\n"


# -- the observer -------------------------------------------------------------------------


def test_the_observer_sees_what_the_jail_would_also_stop_and_its_log_has_a_digest(ready: GitRepo, tmp_path) -> None:
    """A test that catches the refusal and exits 0 still fails: the observer saw the attempt. The
    connect is its audit event alone (sys.audit), so no packet is sent, with a namespace or without."""
    sibling = ready.root.parent / "sibling.txt"
    code = f"""
        import socket, sys
        try:
            open({str(sibling)!r}, "w")
        except OSError:
            pass
        with socket.socket() as s:  # the connect's audit event only: no socket I/O, no packet
            try:
                sys.audit("socket.connect", s, ("192.0.2.1", 443))
            except OSError:
                pass
    """
    ready.manifest(required_test=py(code))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert out.report["test"]["status"] == "passed"
    observed = out.report["test"]["envelope"]["observed"]
    assert observed == [f"wrote {os.path.realpath(sibling)}", "connected to 192.0.2.1:443"]
    assert out.report["test"]["envelope"]["log_sha256"] == envelope.log_digest(observed)


def test_shadow_mode_reports_envelope_findings_without_failing(ready: GitRepo) -> None:
    ready.manifest(
        required_test=py(
            # the connect's audit event only (no socket I/O, no packet): what the observer judges
            "import socket, sys\nwith socket.socket() as s:\n    try: sys.audit('socket.connect', s, ('192.0.2.1', 80))\n    except OSError: pass\n"
        )
    )
    out = ready.score("--shadow", skip_test=False)
    assert out.exit_code == 0 and out.codes == {"test-envelope"}
    assert out.last_line == "RESULT: PASS (shadow: 1 would-fail)"


SPAWN = """
    import subprocess, sys
    subprocess.run([{program!r}, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
"""


@pytest.mark.parametrize(
    ("programs", "program", "fires"),
    [
        (["git"], "ls", True),  # not on the list
        (["git"], "git", False),  # on the list, by name
        ([], sys.executable, False),  # the interpreter starting itself again
        (None, "ls", False),  # no list: any program
    ],
)
def test_a_program_not_on_test_programs(ready: GitRepo, programs, program: str, fires: bool) -> None:
    fields = {} if programs is None else {"test_programs": programs}
    ready.manifest(required_test=py(SPAWN.format(program=program)), **fields)
    out = ready.score(skip_test=False)
    if fires:  # refused (PermissionError, uncaught here: the test fails too) and reported
        assert out.exit_code == 1 and out.codes == {"test-failed", "test-envelope"}, out.text
        assert _envelope_messages(out) == [f"the required test started the program {program} (not on test_programs)"]
    else:
        assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text


def test_a_forked_child_and_a_grandchild_python_are_observed_too(ready: GitRepo) -> None:
    sibling = ready.root.parent / "from-a-child.txt"
    inner = f"import subprocess\ntry: open({str(sibling)!r}, 'w')\nexcept OSError: pass\nsubprocess.run(['ls'])"
    code = f"""
        import os, subprocess, sys
        if os.fork() == 0:
            subprocess.run([sys.executable, "-c", {inner!r}])
            os._exit(0)
        os.wait()
    """
    ready.manifest(required_test=py(code), test_programs=[])
    out = ready.score(skip_test=False)
    assert out.codes == {"test-envelope"}, out.text
    assert _envelope_messages(out) == [
        f"the required test wrote {os.path.realpath(sibling)}",
        "the required test started the program ls (not on test_programs)",
    ]


def test_reading_another_processs_environment_is_observed(ready: GitRepo) -> None:
    """The given environment holds only what the manifest names; score-diff's own (the agent
    session's secrets) is one /proc read away: the observer names the attempt."""
    code = """
        import os
        stat = open(f"/proc/{os.getppid()}/stat").read()
        grandparent = stat.rsplit(")", 1)[1].split()[1]
        try:
            open(f"/proc/{grandparent}/environ", "rb").read()
        except OSError:
            pass
    """
    ready.manifest(required_test=py(code))
    out = ready.score(skip_test=False)
    assert out.codes == {"test-envelope"}, out.text
    assert _envelope_messages(out)[0].startswith("the required test read the environment of process ")


def test_a_key_it_was_not_given_is_not_there(ready: GitRepo, monkeypatch) -> None:
    monkeypatch.setenv("SCORE_SNEAKY", "sk-live-not-for-the-test")
    ready.manifest(required_test=py("import os, sys\nsys.exit(1 if 'SCORE_SNEAKY' in os.environ else 0)"))
    assert ready.score(skip_test=False).exit_code == 0


def test_base_mode_runs_the_test_in_the_same_envelope(committed: GitRepo) -> None:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write(
        "allowed/mod.py",
        # the connect's audit event only (no socket I/O, no packet): what the observer judges
        "import socket, sys\nwith socket.socket() as s:\n    try: sys.audit('socket.connect', s, ('192.0.2.1', 80))\n    except OSError: pass\n",
    )
    committed.commit("phones home")
    committed.manifest(required_test=py("import runpy; runpy.run_path('allowed/mod.py')"))
    out = committed.score("--base", "main", skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-envelope"}, out.text
    assert out.report["test"]["envelope"]["observed"] == ["connected to 192.0.2.1:80"]


def test_legitimate_neighbours_the_observer_lets_pass(ready: GitRepo) -> None:
    """makedirs(exist_ok=True) on a directory that exists, reads anywhere, its own /proc/self/environ,
    loopback by IPv4-mapped address, a socketpair, multiprocessing: none is an attempt."""
    code = """
        import multiprocessing, os, socket
        os.makedirs("/tmp", exist_ok=True)
        open("/etc/hostname").read() if os.path.exists("/etc/hostname") else None
        open("/proc/self/environ", "rb").read()
        a, b = socket.socketpair()
        server = socket.socket(socket.AF_INET6)
        try:
            server.bind(("::1", 0))
            server.listen(1)
            socket.create_connection(("::1", server.getsockname()[1])).close()
        except OSError:
            pass  # no IPv6 loopback here
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            assert pool.map(abs, [-1]) == [1]
    """
    ready.manifest(required_test=py(code), test_programs=[])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text


def test_the_observer_log_is_redacted_before_its_digest(ready: GitRepo) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"  # an AWS access key id's shape
    target = ready.root.parent / f"leak-{key}.txt"
    ready.manifest(required_test=py(f"try: open({str(target)!r}, 'w')\nexcept OSError: pass"))
    out = ready.score(skip_test=False)
    assert out.codes == {"test-envelope"}
    observed = out.report["test"]["envelope"]["observed"]
    assert len(observed) == 1 and key not in observed[0] and key not in out.text
    assert out.report["test"]["envelope"]["log_sha256"] == envelope.log_digest(observed)
