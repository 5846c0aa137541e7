"""The envelope the required test runs in: no network, writes only beneath its roots, a fresh HOME.

The manifest declares it (test_network, test_write_roots, test_programs, test_envelope) and
the pin holds it. `prepare` turns it into the launcher's argv prefix (launcher.py does the
jailing on Linux: a network namespace, Landlock, and the process tree that never outlives
score-diff), a `sandbox-exec` profile on macOS, and the environment changes; `finish` reads
what the launcher could and could not enforce. What each platform enforces, observes or
cannot see: docs/required-test.md#the-envelope.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import jail
from ..errors import ScoreDiffError
from ..model import EnvelopeFacts, TestOutcome
from . import observer

if TYPE_CHECKING:
    from ..manifest.load import Manifest

LAUNCHER = str(Path(__file__).with_name("launcher.py"))
SANDBOX_EXEC = "/usr/bin/sandbox-exec"
PRIVATE_ENV = ("HOME", "TMPDIR", "TMP", "TEMP")  # pointed at the run's own directories unless test_env names them
ABORTED = 125  # launcher.ABORTED
UNAVAILABLE: tuple[str, ...] = ()  # mechanisms the launcher must treat as missing: how tests stand in for a platform
DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper")


class EnvelopeUnavailable(ScoreDiffError):
    """test_envelope is "required" and this platform cannot enforce all of the envelope."""

    code = "test-envelope-unavailable"


class Launch(NamedTuple):
    """One run's envelope: the argv prefix, the environment, the launcher's status pipe, the observer."""

    prefix: tuple[str, ...]  # before the test's argv
    inner: tuple[str, ...]  # between the launcher and the test's argv (sandbox-exec on macOS)
    env: dict[str, str]
    status_read: int | None  # None: no launcher
    status_write: int | None
    facts: EnvelopeFacts
    listener: observer.Listener | None = None


def write_roots(manifest: Manifest, cwd: str, scratch: str, report: str | None) -> tuple[str, ...]:
    """Where the test may write: where it runs, its private directory, an absolute report's directory,
    and test_write_roots. Real paths: a symlinked root grants what it points to, no more."""
    roots = [cwd, scratch, *manifest.test_write_roots]
    if report is not None:  # a runner makes its report's directory itself; a rule needs it to exist
        os.makedirs(os.path.dirname(report), exist_ok=True)
        roots.append(os.path.dirname(report))
    seen: dict[str, None] = {}
    for root in roots:
        seen[os.path.realpath(root)] = None
    return tuple(seen)


def environment(env: Mapping[str, str], given: Sequence[str], scratch: str) -> dict[str, str]:
    """HOME a fresh directory and the temporary directory the run's own, unless test_env names them."""
    home, tmp = os.path.join(scratch, "home"), os.path.join(scratch, "tmp")
    for path in (home, tmp):
        os.makedirs(path, exist_ok=True)
    private = {"HOME": home, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp}
    return {**env, **{k: v for k, v in private.items() if k not in given}}


def sandbox_profile(roots: Sequence[str], network: bool) -> str:
    """A macOS Seatbelt profile for `sandbox-exec -p`: writes beneath `roots` only, and no network but
    loopback unless `network`. Everything else is allowed, as on Linux."""
    for root in roots:
        if any(c in root for c in '"\\') or any(ord(c) < 32 for c in root):
            raise ValueError(f"a write root the profile language cannot quote: {root!r}")
    allowed = " ".join([*(f'(subpath "{r}")' for r in roots), *(f'(literal "{d}")' for d in DEVICES)])
    lines = ["(version 1)", "(allow default)", "(deny file-write*)", f"(allow file-write* {allowed})"]
    if not network:
        lines += ['(deny network-outbound (remote ip "*:*"))', '(allow network-outbound (remote ip "localhost:*"))']
    return "\n".join(lines) + "\n"


def _cleanup_root(scratch: str) -> str:
    """The score-diff-test-* directory `scratch` lies in: what the launcher removes if score-diff dies."""
    path = os.path.realpath(scratch)
    while path != os.path.dirname(path):
        if os.path.basename(path).startswith("score-diff-test-"):
            return path
        path = os.path.dirname(path)
    return os.path.realpath(scratch)


def backend(policy: str) -> str:
    """The jail prepare() tries for this test_envelope policy: "builtin" (namespaces, Landlock),
    "sandbox-exec", "launcher" (the process tree and Landlock only), "none" or "off"."""
    if policy == "off":
        return "off"
    if os.name != "posix" or not sys.executable:
        return "none"
    if sys.platform.startswith("linux"):
        return "launcher" if "jail" in UNAVAILABLE else "builtin"
    if sys.platform == "darwin" and os.path.exists(SANDBOX_EXEC):
        return "sandbox-exec"
    return "launcher"


def backend_facts(policy: str) -> dict[str, object]:
    """What decides the backend and what it can hold, for the environment digest."""
    from ..jail import backend_facts as kernel_facts

    return {**kernel_facts(backend(policy)), "unavailable": list(UNAVAILABLE)}


def prepare(
    manifest: Manifest, cwd: str, scratch: str, report: str | None, env: Mapping[str, str], program: str = ""
) -> Launch:
    """The envelope for one run of the required test (`program`: its argv[0]); raises
    EnvelopeUnavailable when it is required and this platform has no launcher at all."""
    policy = manifest.test_envelope
    off = policy == "off"
    run_env = dict(env) if off else environment(env, manifest.test_env, scratch)
    roots = write_roots(manifest, cwd, scratch, report)
    listener = None if off else observer.start(scratch)
    if listener is not None:
        programs = None if manifest.test_programs is None else (*manifest.test_programs, program)
        run_env = observer.environment(run_env, listener, roots, manifest.test_network, programs)
    tried = backend(policy)
    if os.name != "posix" or not sys.executable:
        if policy == "required" and listener is not None:
            listener.stop()
        return _no_launcher(policy, run_env)._replace(listener=listener)
    inner: tuple[str, ...] = ()
    enforced: list[str] = []
    if tried == "sandbox-exec":
        inner = (SANDBOX_EXEC, "-p", sandbox_profile(roots, manifest.test_network))
        enforced = ["writes: sandbox-exec", *([] if manifest.test_network else ["network: sandbox-exec"])]
    read, write = os.pipe()
    jailed = tried == "builtin"
    config = {
        "status_fd": write,
        "parent": 0 if jailed else os.getpid(),  # 0: PID 1 of the jail is its parent, and ends it
        "network": off or manifest.test_network or bool(inner) or jailed,
        "write_roots": None if off or inner else list(roots),
        "required": policy == "required",
        "cleanup": [] if jailed else [_cleanup_root(scratch)],
        "unavailable": list(UNAVAILABLE),
    }
    prefix: tuple[str, ...] = (sys.executable, "-I", "-S", LAUNCHER, json.dumps(config), "--")
    if jailed:
        prefix = (*jail_prefix(manifest, roots, scratch, run_env, program, write), *prefix)
    missing = () if off or listener is not None else ("observer: no unix socket here (or its path is too long)",)
    facts = EnvelopeFacts(policy, enforced=tuple(enforced), missing=missing)
    return Launch(prefix, inner, run_env, read, write, facts, listener)


def read_roots(manifest: Manifest, roots: Sequence[str], env: Mapping[str, str], program: str) -> tuple[str, ...]:
    """What the test may read besides the system's directories and score-diff's interpreter (the jail
    adds those): its write roots, test_read_roots, score-diff's launcher and observer, and the
    installation of the test's own program (a virtualenv's bin/python: the virtualenv), and what
    score-diff put on PYTHONPATH (the outcome stream's plugin: the job cannot set the variable)."""
    found = [*roots, *manifest.test_read_roots, os.path.dirname(LAUNCHER)]
    found += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
    where = shutil.which(program, path=env.get("PATH")) if program else None
    if where is not None:
        for path in (os.path.abspath(where), os.path.realpath(where)):
            found += [os.path.dirname(path), os.path.dirname(os.path.dirname(path))]
    return tuple(dict.fromkeys(os.path.realpath(p) for p in found if os.path.exists(p)))


def jail_prefix(
    manifest: Manifest, roots: Sequence[str], scratch: str, env: Mapping[str, str], program: str, status_fd: int
) -> tuple[str, ...]:
    """`score-diff jail ... --`, run as a file under -I -S: the launcher then runs inside it."""
    policy = jail.Policy(
        write=tuple(roots),
        read=read_roots(manifest, roots, env, program),
        network="on" if manifest.test_network else "off",
        level="required" if manifest.test_envelope == "required" else "auto",
        status_fd=status_fd,
        cleanup=(_cleanup_root(scratch),),
        unavailable=tuple(u for u in UNAVAILABLE if u == "namespaces"),
    )
    return tuple(jail.argv_for(policy, [], jail.script_exe()))


def _no_launcher(policy: str, env: dict[str, str]) -> Launch:
    missing = () if policy == "off" else ("network: no launcher on this platform", "writes: no launcher")
    if policy == "required":
        raise EnvelopeUnavailable(
            "test_envelope is required, but this platform has no way to jail the required test "
            "(docs/required-test.md#the-envelope)"
        )
    return Launch((), (), env, None, None, EnvelopeFacts(policy, missing=missing))


def finish(launch: Launch, status: str, exit_code: int | None) -> EnvelopeFacts:
    """What the launcher reported; raises EnvelopeUnavailable if it refused to run the test."""
    facts = launch.facts
    enforced, missing = list(facts.enforced), list(facts.missing)
    aborted = ""
    for line in status.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if "enforced" in record:
            enforced.append(f"{record['enforced']}: {record.get('how', '')}")
        elif "missing" in record:
            missing.append(f"{record['missing']}: {record.get('why', '')}")
        elif "ended" in record:
            enforced.append(f"process tree: ended {record['ended']} process(es) the test left running")
        elif "jail" in record:
            enforced.append(f"jail: {record['jail']}")
        elif "aborted" in record:
            aborted = str(record["aborted"])
    observed: tuple[str, ...] = ()
    if launch.listener is not None:  # stopped first: its socket and thread end whatever follows
        from ..secrets.redaction import redact
        from .environment import secrets_given

        known = secrets_given(launch.env)
        observed = tuple(escape_line(redact(a, known)) for a in launch.listener.stop())
        enforced.append(f"observer: audit hook in {len(launch.listener.checked_in)} Python process(es)")
    if aborted and exit_code == ABORTED:
        raise EnvelopeUnavailable(f"{aborted} (docs/required-test.md#the-envelope)")
    if launch.status_read is not None and not any(e.startswith("process tree") for e in enforced + missing):
        missing.append("launcher: it reported nothing; the envelope is unknown")
    return facts._replace(
        enforced=tuple(enforced), missing=tuple(missing), observed=observed, log_sha256=log_digest(observed)
    )


def log_digest(observed: Sequence[str]) -> str:
    """sha256 of the observer log: each observed line ended by a newline (verify-report recomputes it)."""
    return hashlib.sha256("".join(f"{line}\n" for line in observed).encode("utf-8")).hexdigest()


def escape_line(text: str) -> str:
    """One line: a newline in a path cannot forge a second entry of the log."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def noted(test: TestOutcome) -> TestOutcome:
    """The one report line for what the envelope could not enforce ("auto")."""
    facts = test.envelope
    if facts is None:
        return test
    left = [e for e in facts.enforced if e.startswith("process tree: ended ")]
    if left:
        test = test._replace(
            notes=(
                *test.notes,
                f"the required test's {left[0].removeprefix('process tree: ')}: "
                "a background process cannot change the tree after the test",
            )
        )
    if not facts.missing or facts.policy == "off":
        return test
    line = (
        "the required test's envelope could not enforce "
        + "; ".join(facts.missing)
        + ' (test_envelope is auto; "required" would make this could-not-score: docs/required-test.md#the-envelope)'
    )
    return test._replace(notes=(*test.notes, line))


def not_started(status: str) -> str | None:
    """The launcher's reason when the test's program could not be started."""
    for line in status.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if "not_started" in record:
            return str(record["not_started"])
    return None
