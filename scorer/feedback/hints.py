"""What to do next about each violation: a `hint` for the agent, a `fix` for the manifest's author.

Long because it is one table, a hint per violation code: the agent-facing wording in one place.

The one place both are written. A FAIL and a guard denial are read by the agent as its tool
result, so a hint is an instruction it can follow at once: imperative, with the exact command
for this path in this state (untracked, added, renamed, worktree or --base mode). A hint never
asks the agent to change its fence (the manifest, its pin, the hooks); what the fence could
allow instead is the `fix`, which only the manifest's author acts on.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..model import ChangedPath, Violation

if TYPE_CHECKING:
    from ..manifest.load import Manifest

WORKTREE, RANGE, TOOL_CALL = "worktree", "range", "tool-call"
MORE = "... and "  # cap_per_code's summary violation starts so
_PATHSPEC_MAGIC = re.compile(r"[*?\[\\]|^:")
_LISTED = 8


class Scene(NamedTuple):
    """What a hint needs beyond the violation: how the change was scored and what it holds."""

    mode: str  # WORKTREE, RANGE, or TOOL_CALL (the guard, before anything is written)
    changed: Mapping[str, ChangedPath] = {}  # by every side of every changed path
    head: str | None = None  # HEAD in worktree mode (None: no commit yet)
    base: str | None = None  # the merge-base in range mode
    introduced: Mapping[str, str] = {}  # range mode: path -> the commit that first changed it
    manifest: Manifest | None = None
    manifest_rel: str | None = None


def scene_of(
    mode: str,
    changed: Sequence[ChangedPath],
    head: str | None = None,
    base: str | None = None,
    introduced: Mapping[str, str] | None = None,
    manifest: Manifest | None = None,
    manifest_rel: str | None = None,
) -> Scene:
    by_path = {p: c for c in changed for p in c.paths}
    return Scene(mode, by_path, head, base, introduced or {}, manifest, manifest_rel)


# Codes whose hint undoes the whole change to a path; a finding inside that change goes with it.
_UNDOES_PATH = frozenset({"forbidden-path", "unlisted-path", "manifest-changed"})
_INSIDE_PATH = frozenset(
    {
        "forbidden-token",
        "secret",
        "risky-shell",
        "hunk-too-large",
        "file-too-large",
        "binary-file",
        "symlink",
        "unreadable-encoding",
        "sensitive-path",
        "bad-justification",
        "test-runner-detected",
        "constant-equality",
        "special-cased-input",
    }
)


def annotate(violations: Sequence[Violation], scene: Scene) -> list[Violation]:
    """Every violation with its hint and fix filled in (a hint a check already wrote is kept).
    A finding inside a path whose whole change is to be undone says so, rather than asking for
    an edit the undo throws away."""
    undone = {v.path for v in violations if v.code in _UNDOES_PATH and v.path and not uncommitted_fence(v.path, scene)}
    out = []
    for v in violations:
        hint, fix = hint_for(v, scene)
        if v.code in _INSIDE_PATH and v.path in undone and scene.mode != TOOL_CALL:
            first = _first_code(violations, v.path or "")
            hint = f"undoing your change to {v.path} (the hint for its {first}) removes this too"
        out.append(v._replace(hint=v.hint or hint, fix=v.fix or fix))
    return out


def _first_code(violations: Sequence[Violation], path: str) -> str:
    return next(v.code for v in violations if v.path == path and v.code in _UNDOES_PATH)


def hint_for(v: Violation, scene: Scene) -> tuple[str, str]:
    """(hint for the agent, fix for the manifest's author) for one violation."""
    if v.message.startswith(MORE) and v.path is None:
        return f"fix the {v.code} violations listed above, then rerun score-diff to see the rest", ""
    if v.path and uncommitted_fence(v.path, scene):
        return _commit_fence_first(v.path, scene)
    return _HINTS.get(v.code, _unknown)(v, scene)


def is_fence(path: str, scene: Scene) -> bool:
    """The job's manifest, its pin, or any job's file under .score-diff/jobs/."""
    from ..manifest.jobs import is_fence_path
    from ..manifest.pin import PIN_SUFFIX

    rel = scene.manifest_rel
    return is_fence_path(path) or (rel is not None and path in (rel, rel + PIN_SUFFIX))


def uncommitted_fence(path: str, scene: Scene) -> bool:
    """A fence file that has no committed version (untracked, or staged and never committed): no
    hint may restore, stash or remove it, because it may be the only copy of the user's fence."""
    change = scene.changed.get(path)
    fresh = change is not None and (change.untracked or change.status == "added")
    return scene.mode == WORKTREE and fresh and is_fence(path, scene)


def _commit_fence_first(path: str, scene: Scene) -> tuple[str, str]:
    return (
        f"commit the fence on the base branch first: {path} is this job's fence and has no committed "
        "version, so do not delete, stash or restore it; stop and tell the user, who commits it on the "
        f"base branch (`git add -- {git_path(path)}` and `git commit` there) before the agent starts",
        "commit the manifest and its pin on the base branch before the agent's branch starts",
    )


# -- commands ---------------------------------------------------------------------------


def shell_path(path: str) -> str:
    """A path as one shell word."""
    return shlex.quote(path)


def git_path(path: str) -> str:
    """A path as one shell word that git reads literally (never as a pathspec glob)."""
    return shlex.quote(f":(literal){path}" if _PATHSPEC_MAGIC.search(path) else path)


def _sides(path: str, scene: Scene) -> list[str]:
    change = scene.changed.get(path)
    return list(change.paths) if change else [path]


def undo_command(path: str, scene: Scene) -> str | None:
    """The exact command that takes `path` (both sides of a rename) back to where the job started,
    keeping every version that exists nowhere else; None where no command can (no commit yet, a
    nested repository).

    In the working tree nothing is thrown away: what is there now (staged, unstaged or untracked)
    is set aside with `git stash push`, where `git stash list` finds it, and only a side whose
    old content is committed is restored. In --base mode every version is in a commit already.
    """
    change = scene.changed.get(path)
    sides = _sides(path, scene)
    if scene.mode == RANGE:
        message = shlex.quote(f"Undo the change to {path}")
        words = " ".join(git_path(p) for p in sides)
        return f"git restore --source={scene.base} --staged --worktree -- {words} && git commit -m {message}"
    source = scene.base or scene.head  # worktree mode: HEAD, or the merge-base with --since
    if source is None or (change is not None and change.untracked and change.submodule):
        return None
    status = change.status if change is not None else "modified"
    old = change.old_path if change is not None and status in ("renamed", "copied") else None
    was = [p for p in sides if status in ("modified", "deleted") or p == old]  # there at the source
    now = [p for p in sides if status != "deleted" and not (p == old and status == "renamed")]
    steps = []
    if now:  # whatever is there now, committed or not, is kept in the stash
        steps.append(f"git stash push --include-untracked -- {_words(now)}")
    # With --since, a side a commit on the branch changed is undone from the merge-base too.
    since = scene.base is not None and any(p in scene.introduced for p in sides)
    back = was if since else [p for p in was if p not in now]
    if back:  # its old content is committed at the source
        steps.append(f"git restore --source={source if since else 'HEAD'} --staged --worktree -- {_words(back)}")
    new = [p for p in now if p not in was] if since else []
    if new:  # added by a commit on this branch: in that commit still, and gone from the next
        steps.append(f"git rm -q -r --ignore-unmatch -- {_words(new)}")
    return " && ".join(steps)


def _words(paths: Sequence[str]) -> str:
    return " ".join(map(git_path, paths))


def _undo(path: str, scene: Scene, why: str = "") -> str:
    """'undo your change to P: `cmd`' (or, before the write, 'leave P unchanged')."""
    if scene.mode == TOOL_CALL:
        return f"leave {path} unchanged{why}"
    status = _status(path, scene)
    command = undo_command(path, scene)
    if command is None:
        return (
            f"move {path}{status} out of the repository (there is nothing committed to restore it from, and it "
            f"may be the only copy){why}"
        )
    return f"undo your change to {path}{status}: run `{command}`{_came_in(path, scene)}{why}"


def _status(path: str, scene: Scene) -> str:
    change = scene.changed.get(path)
    if change is None:
        return ""
    if change.untracked:
        return " (untracked)"
    return f" ({change.status})"


def _came_in(path: str, scene: Scene) -> str:
    commit = scene.introduced.get(path)
    return f" (it came in with commit {commit})" if commit else ""


def _allowed(scene: Scene) -> str:
    paths = scene.manifest.allowed_paths if scene.manifest else ()
    if not paths:
        return ""
    shown = ", ".join(paths[:_LISTED]) + (f" and {len(paths) - _LISTED} more" if len(paths) > _LISTED else "")
    return f"; this job may change only: {shown}"


def _test_command(scene: Scene) -> str:
    return shlex.join(scene.manifest.required_test) if scene.manifest else "the required test"


def reproduce_command(scene: Scene) -> str:
    """`score-diff test` as this gate ran the test: by hand in the working tree the job's own tests
    and conftest run, and may pass where the gate, running the base's, failed."""
    words = ["score-diff", "test"]
    if scene.base is not None:  # --since or --base: the base's tests come from the merge-base
        words += ["--since", scene.base]
    if scene.manifest_rel and scene.manifest_rel != "job_manifest.json" and "/jobs/" not in scene.manifest_rel:
        words += ["--manifest", scene.manifest_rel]
    return shlex.join(words)


def _run_test(scene: Scene) -> str:
    """How the agent sees what the gate saw: the reproducing command, or (before a write) the test itself."""
    if scene.mode == TOOL_CALL:
        return f"run `{_test_command(scene)}`"
    return f"run `{reproduce_command(scene)}` (it runs `{_test_command(scene)}` exactly as the gate did)"


def _spec_pass(scene: Scene) -> str:
    """The spec pass alone, when the base's tests are what failed: its output is the failure to fix."""
    if scene.mode == TOOL_CALL:
        return ""
    command = reproduce_command(scene).replace("score-diff test", "score-diff test --spec", 1)
    return f" (`{command}` runs the spec pass alone: the base's tests against your code)"


def _at(v: Violation) -> str:
    return f"line {v.line} of {v.path}" if v.path and v.line else (v.path or "the change")


def _after(message: str, marker: str) -> str:
    _, sep, rest = message.partition(marker)
    return rest.strip() if sep else ""


# -- one function per code ------------------------------------------------------------

Hint = Callable[[Violation, Scene], tuple[str, str]]


def _empty(v: Violation, scene: Scene) -> tuple[str, str]:
    what = scene.manifest.description if scene.manifest else ""
    job = f" ({what})" if what else ""
    if "you are on the base branch" in v.message:
        return "score the agent's branch, not the base: switch to it (`git switch <its name>`) or pass --head", ""
    if scene.mode == RANGE or scene.base is not None:
        return (
            f"{'commit' if scene.mode == RANGE else 'make'} the change the job asks for on this branch{job}; "
            "the commits after the base change nothing yet",
            "",
        )
    return (
        f"make the change the job asks for{job}. If you already committed it, score the commits "
        "instead: committed work is scored with `score-diff --base <the branch you started from>` "
        "(for example `score-diff --base main`)",
        "",
    )


def _unlisted(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    return (_undo(path, scene, "") + _allowed(scene), f"if the job needs {path}, add it to allowed_paths: {path!r}")


def _forbidden(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    return (
        _undo(path, scene, "; this job may never change it") + _allowed(scene),
        f"{path} matches forbidden_globs, which always win over allowed_paths",
    )


def _too_many(v: Violation, scene: Scene) -> tuple[str, str]:
    limit = _after(v.message, "max_files_changed is ")
    extra = [c.path for c in scene.changed.values() if scene.manifest and not _granted(c.path, scene)]
    first = extra[0] if extra else None
    command = undo_command(first, scene) if first and scene.mode != TOOL_CALL else None
    example = f", e.g. `{command}`" if command else ""
    return (
        f"change at most {limit or 'the allowed number of'} paths: undo the changes the job does not need{example}",
        "raise max_files_changed if the job needs more files",
    )


def _granted(path: str, scene: Scene) -> bool:
    from ..manifest.globs import ForbiddenMatcher, grant_matcher

    m = scene.manifest
    assert m is not None
    return grant_matcher(m.allowed_paths)(path) and not ForbiddenMatcher(m.forbidden_globs)(path)


def _hunk(v: Violation, scene: Scene) -> tuple[str, str]:
    limit = _after(v.message, "max_hunk_lines is ")
    where = f"{v.path} at line {v.line}" if v.line else (v.path or "")
    command = None if scene.mode == TOOL_CALL else undo_command(v.path or "", scene)
    again = f"; to start this file over, run `{command}`" if command else ""
    return (
        f"split this hunk into smaller edits: the change to {where} is one block of "
        f"{_after(v.message, 'hunk of ').split(' ')[0] or 'too many'} lines and at most {limit} may change "
        "together, so change only the lines the job needs and leave unchanged lines between separate "
        f"edits (do not rewrite or reformat the file){again}",
        "raise max_hunk_lines if the job needs larger edits",
    )


def _diff_size(v: Violation, scene: Scene) -> tuple[str, str]:
    biggest = sorted(scene.changed.values(), key=lambda c: c.added + c.removed, reverse=True)
    largest = f" (largest: {biggest[0].path}, {biggest[0].added + biggest[0].removed} lines)" if biggest else ""
    total, limit = v.message.split(" ")[0], _after(v.message, "max_changed_lines is ")
    return (
        f"change fewer lines: {total} lines changed and at most {limit} may; keep only the lines the job "
        f"needs{largest}",
        "raise max_changed_lines if the job needs a larger change",
    )


def _file_size(v: Violation, scene: Scene) -> tuple[str, str]:
    size, limit = v.message.split(" ")[0], _after(v.message, "max_file_bytes is ")
    what = f" ({size} bytes; at most {limit} are allowed)" if limit else ""
    return (
        f"make {v.path} smaller{what}, or " + _undo(v.path or "", scene),
        "raise max_file_bytes if the job needs larger files",
    )


def _token(v: Violation, scene: Scene) -> tuple[str, str]:
    what = _after(v.message, "contains ") or "a forbidden token"
    if scene.mode == TOOL_CALL:
        return f"remove {what} from the content and repeat the call", ""
    commit = " and commit" if scene.mode == RANGE else ""
    return (
        f"remove line {v.line} of {v.path} containing {what} (or rewrite it without it){commit}; "
        "do not spell it another way",
        "",
    )


def _hidden(v: Violation, scene: Scene) -> tuple[str, str]:
    path, msg = v.path or "", v.message
    flag = re.match(r"the index flag (\S+) hides", msg)
    if flag:
        return f"clear the index flag: run `git update-index --no-{flag.group(1)} -- {git_path(path)}`", ""
    if msg.startswith("cannot read this untracked file"):
        return (
            f"make {path} readable (`chmod u+r -- {shell_path(path)}`) or delete it (`rm -f -- {shell_path(path)}`)",
            "",
        )
    if msg.startswith("the index holds a staged version"):
        return f"stage the version that was scored: run `git add -- {git_path(path)}`", ""
    if msg.startswith("an untracked .gitignore"):
        return f"delete the self-ignoring ignore file: run `rm -f -- {shell_path(path)}`", ""
    key = re.match(r"git config sets ([^=]+)=", msg)
    if key:
        return f"remove the filter from this repository's git config: run `git config --unset {key.group(1)}`", ""
    return "make the change visible to git (see the message), then rerun score-diff", ""


def _manifest_path(v: Violation, scene: Scene) -> str:
    return v.path or scene.manifest_rel or "job_manifest.json"


def _manifest_changed(v: Violation, scene: Scene) -> tuple[str, str]:
    path = _manifest_path(v, scene)
    command = None if scene.mode == TOOL_CALL else undo_command(path, scene)
    if command is None:
        return "leave this file unchanged: it is this job's fence, set by the user", ""
    return (
        f"restore {path}: the job may not change its own fence. Run `{command}`",
        "the job's manifest and its pin change only in a commit on the base branch",
    )


def _manifest_invalid(v: Violation, scene: Scene) -> tuple[str, str]:
    path = scene.manifest_rel
    change = scene.changed.get(path) if path else None
    command = undo_command(path, scene) if path and change is not None else None
    if command:
        return f"restore {path}, which your change broke: run `{command}`", ""
    return (
        "stop and tell the user that score-diff cannot read this job's fence (see the message); "
        "do not try to repair it yourself",
        "fix the key the message names; `score-diff check-manifest` validates the manifest",
    )


def _manifest_mismatch(v: Violation, scene: Scene) -> tuple[str, str]:
    path = scene.manifest_rel
    change = scene.changed.get(path) if path else None
    command = undo_command(path, scene) if path and change is not None and scene.mode != TOOL_CALL else None
    if path and command and not uncommitted_fence(path, scene):
        return (
            f"restore {path} to the approved version: run `{command}`",
            "if the new manifest is approved, write its pin with `score-diff pin` and commit both on the base branch",
        )
    return (
        "stop and tell the user that this job's fence does not match its approved digest; "
        "do not try to repair it yourself",
        "pin the approved manifest again with `score-diff pin`",
    )


def _trailer_command(path: str, scene: Scene) -> str:
    parts = [f"Blast-Radius: {path}", "Justification: <file>:<line> <why>", "Rollback: <how to undo it>"]
    flags = " ".join(f"-m {shlex.quote(p)}" for p in parts)
    if scene.mode == RANGE or scene.base is not None:  # committed work is scored too: a commit of its own
        return f"git commit --allow-empty -m {shlex.quote(f'Justify {path}')} {flags}"
    return f"git commit -m <summary> {flags}"


def _sensitive(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    if any(words in v.message for words in ("not named exactly", "does not name exactly", "entry names it exactly")):
        return (
            _undo(path, scene, "; this job has not been granted this sensitive path") + _allowed(scene),
            f"if the job needs {path}, name it exactly in allowed_paths ({path!r}; a glob never grants a "
            "sensitive path)",
        )
    if scene.mode == TOOL_CALL:
        return ("write the justification the message asks for in your reply, then repeat the same call", "")
    fill = (
        "replace <file>:<line> with a line you read that shows the change is needed, <why> with the "
        "reason and <how to undo it> with the exact undo command"
    )
    where = " on this branch" if scene.mode == RANGE or scene.base is not None else ""
    return (
        f"add these trailer lines to the commit message{where}: 'Blast-Radius: {path}', "
        f"'Justification: <file>:<line> <why>', 'Rollback: <how to undo it>' ({fill}); "
        f"e.g. `{_trailer_command(path, scene)}`",
        "",
    )


def _bad_justification(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    return (
        "correct the Justification trailer: its evidence must be <file>:<line> of a line that exists in the "
        f"scored tree, then the reason; a later commit's trailers replace earlier ones, e.g. "
        f"`{_trailer_command(path, scene)}`",
        "",
    )


def _secret(v: Violation, scene: Scene) -> tuple[str, str]:
    fingerprint = re.search(r"fingerprint (sha256:[0-9a-f]+)", v.message)
    fix = (
        f"if it is not a credential (a test fixture), add {fingerprint.group(1)} to allowed_fingerprints"
        if fingerprint
        else ""
    )
    if scene.mode == TOOL_CALL:
        return (
            "remove the credential from the content and read it from the environment at run time instead; "
            "repeat the call without it",
            fix,
        )
    history = (
        "; it is already in a commit on this branch, so tell the user it must be rotated" if scene.mode == RANGE else ""
    )
    return (
        f"remove the credential from {_at(v)} (do not allow it, encode it or split it): read it from the "
        f"environment at run time instead{history}",
        fix,
    )


def _risky(v: Violation, scene: Scene) -> tuple[str, str]:
    if scene.mode == TOOL_CALL:
        return "do not run or write this; use a safer command that does not do it", ""
    return f"remove {_at(v)} ({v.message}); do it a safer way or leave it to the user", ""


def _test_timeout(v: Violation, scene: Scene) -> tuple[str, str]:
    timeout = scene.manifest.test_timeout_s if scene.manifest else None
    within = f" within {timeout:g} s" if timeout else ""
    return (
        f"make the required test finish{within}: {_run_test(scene)} and find what hangs or is slow",
        "raise test_timeout_s if the test is slow by nature",
    )


def _test_side_effect(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    clean = f"delete what it created (`rm -f -- {shell_path(path)}`) and " if "created" in v.message else ""
    return (
        f"{clean}make the required test leave {path} as it found it: write temporary files outside the "
        f"repository or under an ignored directory; then rerun score-diff (`{_test_command(scene)}` shows "
        "what the test does)",
        "",
    )


def _test_weakened(v: Violation, scene: Scene) -> tuple[str, str]:
    """Restore only what was weakened: the whole file back would throw the job's new tests away too."""
    path = v.path or ""
    source = scene.base or scene.head
    command = None if scene.mode == TOOL_CALL else undo_command(path, scene)
    shown = f"`git show {shlex.quote(f'{source}:{path}')}` prints the base's version; " if source else ""
    kept = "still in your earlier commits" if scene.mode == RANGE else "kept in the stash"
    whole = (
        f"; only to start the file over (your new tests go with it, {kept}), run `{command}`{_came_in(path, scene)}"
        if command
        else ""
    )
    return (
        f"in {path}, put back exactly what the test lost (the message names the test function or the "
        f"parametrize rows) and keep your new tests: {shown}copy that function or those rows back from it; "
        f"tests may be added, never weakened, so make the code pass the existing test instead{whole}",
        "remove the path from protected_tests if the job must rewrite this test",
    )


def _test_config_changed(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    undo = "" if scene.mode == TOOL_CALL else f": run `{undo_command(path, scene)}`{_came_in(path, scene)}"
    return (
        f"undo your change to {path}{undo}; the base's tests run under the base's test configuration, so "
        "make the code pass them, and put a fixture or helper a new test needs in that test's own module",
        "grant the file in allowed_test_config if the job must change how tests are collected",
    )


def _unknown(v: Violation, scene: Scene) -> tuple[str, str]:
    if v.path and scene.mode != TOOL_CALL:
        return _undo(v.path, scene), ""
    return "undo the change the message names, then rerun score-diff", ""


# Guard-only findings (no diff yet, so never a restore command).
def _outside(v: Violation, scene: Scene) -> tuple[str, str]:
    scratch = scene.manifest.scratch_roots if scene.manifest else ()
    where = f" or under {', '.join(scratch)}" if scratch else ""
    return f"write only inside the repository{where}", "add the directory to scratch_roots"


# -- hints that are text over a few facts: one row each ----------------------------------


class Said(NamedTuple):
    """A hint and its fix as text; `{name}` is a fact of the violation and its scene (FACTS)."""

    hint: str
    fix: str = ""


def _cheat(do: str, detector: str) -> Said:
    """Source written to fool the tests: what to do instead, never how to hide it."""
    return Said(
        f"at {{at}}, {do}; then run `{{test}}` and make it pass by fixing the behaviour the test describes, "
        "for every input",
        f"if this code is intended (not written for the test), add {detector!r} to disabled_detectors",
    )


def _kind(noun: str, instead: str, setting: str) -> Said:
    """A kind of file the job may not add (binary, symlink, submodule)."""
    return Said(f"{instead}, or {{undo}}", f"set {setting} to true if the job may add {noun}")


SAID: dict[str, Said] = {
    "unreadable-encoding": Said(
        "save {path} as UTF-8 and remove or correct its `# -*- coding: ... -*-` line, so its tokens can "
        "be checked as Python reads them"
    ),
    "binary-file": _kind("binary files", "write text content instead of binary", "allow_binary"),
    "symlink": _kind("symlinks", "write a regular file instead of a symlink", "allow_symlinks"),
    "submodule": _kind("submodules", "leave nested repositories and submodules alone", "allow_submodules"),
    "unmerged": Said(
        "resolve the conflict markers in {path} and stage the result (`git add -- {shell_path}`), or "
        "abandon the merge (`git merge --abort`)"
    ),
    "merge-conflict": Said(
        "merge the base branch into this branch and resolve the conflict in {path} there (`git merge "
        "<the base branch>`, edit the file, `git add` it, `git commit`), keeping the base's own changes; then "
        "rerun score-diff"
    ),
    "test-failed": Said(
        "make the required test pass: {run_test}{spec}, read its output and fix the code (not the test)"
    ),
    "test-empty": Said(
        "make the required test run its tests to the end: {run_test}; nothing may exit "
        "early (os._exit, sys.exit at import) or skip the tests, and the run must write its test report",
        "name the report the test writes in test_report, or lower min_tests",
    ),
    "test-runner-detected": _cheat(
        "remove the code that tells a test run from a real one (do not detect the test runner or read the "
        "caller's frame): the code must behave the same under the test as in use",
        "test-runner-detected",
    ),
    "constant-equality": _cheat(
        "make the method compare what makes two values equal (return NotImplemented for a type it does not "
        "know), or remove it: an equality that cannot fail makes every comparison in a test pass",
        "constant-equality",
    ),
    "special-cased-input": _cheat(
        "remove the branch that returns the test's expected value for the test's own input, and fix the code "
        "path that handles such inputs in general",
        "special-cased-input",
    ),
    "flipped-test-special-cased": Said(
        "at {at}, remove the literal answer to the test that now passes (its input and expected value, held "
        "together), and fix the code path that handles such inputs in general; then run `{test}`",
        "if the code is meant to name that value (a documented default, a real table), write the test for a "
        "different input, or say so to the user: this check cannot be turned off",
    ),
    "test-envelope": Said(
        "remove the code that tried what the message names: the code and its tests must run without "
        "writing outside the checkout and the temporary directory, reaching a host, starting other "
        "programs or reading another process's environment (use tmp_path, a server on 127.0.0.1, a fake); "
        "then {run_test}",
        "list the directory in test_write_roots, set test_network, or list the program in test_programs",
    ),
    "test-envelope-unavailable": Said(
        "stop and tell the user this machine cannot jail the required test (no user namespaces or Landlock); "
        "this is not a verdict on your change",
        "run the gate where user namespaces and Landlock are allowed, or set test_envelope to auto",
    ),
    "test-missing": Said(
        "make the base's test the message names run and pass: run `{test}`, and fix the code "
        "so that the test is collected, not skipped, and passes (do not skip, deselect or mark it)",
        "if the base's test is meant to be skipped here, mark it skip or skipif in the base",
    ),
    "test-base-unrunnable": Said(
        "stop and tell the user the base's own tests could not be run on the base tree (the message says why); "
        "this is not a verdict on your change",
        "make the base's protected tests run at the base (its dependencies installed, its configuration valid)",
    ),
    "test-evidence-tampered": Said(
        "make the required test pass for real: run `{test}` and fix the code; do not touch the runner, "
        "its report, its exit status or the process's exit (atexit, os._exit)"
    ),
    "test-unstable": Said(
        "make the result independent of call order and history: run `{test}` twice and in another order, and "
        "remove state kept across calls (counters, toggles, caches keyed by the test's inputs)"
    ),
    "test-lenient-comparison": Said(
        "return the builtin value the test expects (a plain str, dict, list, bool): do not return an object whose "
        "__eq__, __bool__, __contains__ or ordering says yes to whatever the test compares it with; then run `{test}`"
    ),
    "test-config-unpredicted": Said(
        "leave pytest's configuration files as the base has them (pytest.toml, .pytest.toml, pytest.ini, "
        "pyproject.toml, tox.ini, setup.cfg, in any directory): do not add one that pytest would read instead; "
        "then run `{test}`"
    ),
    "test-runner-reached": Said(
        "remove the code that reaches for the test runner (atexit handlers that call os._exit, reading the "
        "runner's command line or report path, importing _pytest): the code must behave the same under any runner"
    ),
    "runner-shadowed": Said(
        "rename {path}'s top-level module or package (or move it under your own package): its name is one the "
        "test runner, the standard library or an installed distribution provides, and the required test must "
        "import the environment's, never the checkout's"
    ),
    "git-error": Said(
        "do what the message says if it names a step you can take (fetch a ref, run inside the repository); "
        "otherwise stop and tell the user score-diff could not read git"
    ),
    "internal-error": Said("stop and tell the user score-diff failed; this is not a verdict on your change"),
    # the guard's own findings
    "git-dir": Said("do not write inside .git; it holds git's hooks and refs"),
    "gate-skip": Said("run the command without that option or variable; the commit gate must run"),
}

# The facts a row may name, each worked out only when its row names it.
FACTS: dict[str, Callable[[Violation, Scene], str]] = {
    "path": lambda v, scene: str(v.path),
    "shell_path": lambda v, scene: shell_path(v.path or ""),
    "at": lambda v, scene: _at(v),
    "test": lambda v, scene: _test_command(scene),
    "run_test": lambda v, scene: _run_test(scene),
    "spec": lambda v, scene: _spec_pass(scene),
    "undo": lambda v, scene: _undo(v.path or "", scene),
}


class _Facts(dict[str, str]):
    def __init__(self, v: Violation, scene: Scene) -> None:
        super().__init__()
        self.v, self.scene = v, scene

    def __missing__(self, name: str) -> str:
        value = self[name] = FACTS[name](self.v, self.scene)
        return value


def _said(row: Said) -> Hint:
    """The one builder of a row's hint: its text with the violation's facts filled in."""

    def hint(v: Violation, scene: Scene) -> tuple[str, str]:
        facts = _Facts(v, scene)
        return row.hint.format_map(facts), row.fix.format_map(facts)

    return hint


_HINTS: dict[str, Hint] = {
    "empty-diff": _empty,
    "unlisted-path": _unlisted,
    "forbidden-path": _forbidden,
    "too-many-files": _too_many,
    "hunk-too-large": _hunk,
    "diff-too-large": _diff_size,
    "file-too-large": _file_size,
    "forbidden-token": _token,
    "hidden-change": _hidden,
    "manifest-changed": _manifest_changed,
    "manifest-invalid": _manifest_invalid,
    "manifest-hash-mismatch": _manifest_mismatch,
    "sensitive-path": _sensitive,
    "bad-justification": _bad_justification,
    "secret": _secret,
    "risky-shell": _risky,
    "test-timeout": _test_timeout,
    "test-side-effect": _test_side_effect,
    "test-weakened": _test_weakened,
    "test-config-changed": _test_config_changed,
    # the guard's own findings
    "outside-repo": _outside,
    **{code: _said(row) for code, row in SAID.items()},
}

HINTED_CODES = frozenset(_HINTS)
__all__ = ["HINTED_CODES", "Scene", "annotate", "hint_for", "scene_of", "undo_command"]
