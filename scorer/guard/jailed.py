"""An unknown shell command, run in the job's jail instead of at a prompt (`score-diff jail`, scorer/jail/).

Where the agent lets a hook rewrite the call (Claude Code's PreToolUse `updatedInput`,
https://code.claude.com/docs/en/hooks#pretooluse-decision-control), a Bash command the
guard cannot fully account for is allowed rewritten to

    score-diff jail --write ROOT... --read-only PATH... --network off -- bash -c COMMAND

so the kernel, not the guard's reading, keeps the fence: the job's write set is writable,
and inside it every forbidden, protected or sensitive file, the manifest, its pin and
git's `config`, `hooks` and `info` are read-only. A command the guard can account for runs
as it is. Where the jail is not installed (scorer.jail absent) nothing is rewritten: the
call is asked, as before.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .decide import ALLOW, Decision, GuardScope

if TYPE_CHECKING:
    from scorer.jail import Policy

MAX_WALK = 20_000  # entries looked at for read-only files under the write roots; past it, no jail (ask)
_GIT_PROTECTED = ("config", "hooks", "info")
_GLOB_CHARS = "*?[{"


class NoJail(Exception):
    """The jail cannot be built for this job here: the call is asked instead."""


def write_roots(fence: GuardScope) -> list[str]:
    """The job's write set as directories: each allowed_paths entry's literal leading directories
    (`src/pkg/**` -> src/pkg), the repository itself for an entry that starts with a glob, the
    scratch roots and the temporary directory (pytest's tmp_path)."""
    roots: list[str] = []
    for entry in fence.job.manifest.allowed_paths:
        parts = entry.replace("\\", "/").strip("/").split("/")
        literal = []
        for part in parts:
            if any(c in part for c in _GLOB_CHARS):
                break
            literal.append(part)
        place = os.path.join(fence.root, *literal) if literal else fence.root
        while not os.path.exists(place) and place != fence.root:
            place = os.path.dirname(place)  # a file not made yet: its nearest existing directory
        roots.append(os.path.realpath(place))
    temp = os.path.realpath(tempfile.gettempdir())
    roots += list(fence.scratch)
    if not _contains(temp, fence.root):  # a repository under /tmp must not become writable whole
        roots.append(temp)
    return list(dict.fromkeys(r for r in roots if os.path.exists(r)))


def _contains(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def read_only(fence: GuardScope, roots: Sequence[str]) -> list[str]:
    """Existing paths the jail keeps read-only inside the write roots: git's own, the manifest and its
    pin, and every file the fence denies (forbidden, sensitive without an exact grant)."""
    found = [os.path.join(fence.git_dir, name) for name in _GIT_PROTECTED]
    if fence.manifest_rel:
        found += [
            os.path.join(fence.root, fence.manifest_rel),
            os.path.join(fence.root, fence.manifest_rel + ".sha256"),
        ]
    seen = 0
    walked = [fence.root] if any(_contains(r, fence.root) for r in roots) else roots
    for root in walked:
        if not _contains(fence.root, root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) != fence.git_dir]
            seen += len(dirnames) + len(filenames)
            if seen > MAX_WALK:
                raise NoJail(f"the write set holds more than {MAX_WALK} files to sort")
            for name in filenames:
                full = os.path.join(dirpath, name)
                if _denied(fence, os.path.relpath(full, fence.root).replace(os.sep, "/")):
                    found.append(full)
            for name in list(dirnames):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, fence.root).replace(os.sep, "/")
                if _denied(fence, rel) or _denied(fence, rel + "/new"):  # a new file there would be denied
                    found.append(full)
                    dirnames.remove(name)  # read-only whole: nothing under it to list
    return list(dict.fromkeys(p for p in found if os.path.lexists(p)))


def _denied(fence: GuardScope, rel: str) -> bool:
    from ..checks.sensitive import classify
    from ..manifest.globs import normalise_path

    m = fence.job.manifest
    if fence.job.forbidden(rel):
        return True
    hit = classify(
        rel, extra_globs=m.sensitive_globs, exempt=frozenset(m.sensitive_exempt), manifest_path=fence.manifest_rel
    )
    return hit is not None and rel not in {normalise_path(p) for p in m.allowed_paths}


def policy(fence: GuardScope) -> Policy:
    """The job's jail: its write set writable, what the fence denies in it read-only, network as the job says."""
    try:
        from scorer.jail import Policy
    except ImportError as exc:  # the jail is another package's; without it nothing is rewritten
        raise NoJail("the jail (scorer.jail) is not installed") from exc
    roots = write_roots(fence)
    network = "on" if fence.job.manifest.test_network else "off"
    return Policy(write=tuple(roots), read_only=tuple(read_only(fence, roots)), network=network)


def exe() -> list[str]:
    """The score-diff that is running, by its absolute path: the agent's PATH could name another."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "score-diff" and os.path.isabs(argv0):
        return [argv0]
    return [sys.executable, "-m", "scorer"]


def command(fence: GuardScope, original: str) -> str:
    """The rewritten Bash command: the original under `bash -c`, inside the job's jail."""
    from scorer.jail import argv_for

    return shlex.join(argv_for(policy(fence), ["bash", "-c", original], exe=exe()))


def rewrite(decision: Decision, fence: GuardScope, original: str) -> Decision:
    """An `unresolved` ask for a shell command, turned into an allow that runs it in the jail (or left as it is)."""
    try:
        jailed = command(fence, original)
    except (NoJail, ImportError, OSError) as exc:
        return decision._replace(reason=f"{decision.reason} (It could not run in the job's jail: {exc}.)")
    why = "; ".join(f.message for f in decision.findings[:3])
    reason = (
        f"score-diff guard runs this command in the job's jail ({why}): it may write only the job's "
        "allowed paths, and forbidden, protected and sensitive files stay read-only."
    )
    return decision._replace(action=ALLOW, code="jailed", reason=reason, rewrite=jailed)
