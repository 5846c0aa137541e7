"""What to do next about each violation: a `hint` for the agent, a `fix` for the manifest's author.

One table, a hint per violation code: the agent-facing wording in one place, with the hints that
are text over a few facts as rows in said.py and the commands they name built in phrases.py.

The one place both are written. A FAIL and a guard denial are read by the agent as its tool
result, so a hint is an instruction it can follow at once: imperative, with the exact command
for this path in this state (untracked, added, renamed, worktree or --base mode). A hint never
asks the agent to change its fence (the manifest, its pin, the hooks); what the fence could
allow instead is the `fix`, which only the manifest's author acts on.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from ..model import Violation
from .phrases import (
    RANGE,
    TOOL_CALL,
    WORKTREE,
    Scene,
    after,
    allowed_list,
    at,
    came_in,
    commit_fence_first,
    git_path,
    run_test,
    scene_of,
    shell_path,
    test_command,
    uncommitted_fence,
    undo,
    undo_command,
)
from .said import SAID, SAID_HINTS, Hint

MORE = "... and "  # cap_per_code's summary violation starts so


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
        return commit_fence_first(v.path, scene)
    return _HINTS.get(v.code, _unknown)(v, scene)


# -- one function per code ------------------------------------------------------------


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
    return (undo(path, scene, "") + allowed_list(scene), f"if the job needs {path}, add it to allowed_paths: {path!r}")


def _forbidden(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    return (
        undo(path, scene, "; this job may never change it") + allowed_list(scene),
        f"{path} matches forbidden_globs, which always win over allowed_paths",
    )


def _too_many(v: Violation, scene: Scene) -> tuple[str, str]:
    limit = after(v.message, "max_files_changed is ")
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
    limit = after(v.message, "max_hunk_lines is ")
    where = f"{v.path} at line {v.line}" if v.line else (v.path or "")
    command = None if scene.mode == TOOL_CALL else undo_command(v.path or "", scene)
    again = f"; to start this file over, run `{command}`" if command else ""
    return (
        f"split this hunk into smaller edits: the change to {where} is one block of "
        f"{after(v.message, 'hunk of ').split(' ')[0] or 'too many'} lines and at most {limit} may change "
        "together, so change only the lines the job needs and leave unchanged lines between separate "
        f"edits (do not rewrite or reformat the file){again}",
        "raise max_hunk_lines if the job needs larger edits",
    )


def _diff_size(v: Violation, scene: Scene) -> tuple[str, str]:
    biggest = sorted(scene.changed.values(), key=lambda c: c.added + c.removed, reverse=True)
    largest = f" (largest: {biggest[0].path}, {biggest[0].added + biggest[0].removed} lines)" if biggest else ""
    total, limit = v.message.split(" ")[0], after(v.message, "max_changed_lines is ")
    return (
        f"change fewer lines: {total} lines changed and at most {limit} may; keep only the lines the job "
        f"needs{largest}",
        "raise max_changed_lines if the job needs a larger change",
    )


def _file_size(v: Violation, scene: Scene) -> tuple[str, str]:
    size, limit = v.message.split(" ")[0], after(v.message, "max_file_bytes is ")
    what = f" ({size} bytes; at most {limit} are allowed)" if limit else ""
    return (
        f"make {v.path} smaller{what}, or " + undo(v.path or "", scene),
        "raise max_file_bytes if the job needs larger files",
    )


def _token(v: Violation, scene: Scene) -> tuple[str, str]:
    what = after(v.message, "contains ") or "a forbidden token"
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
            undo(path, scene, "; this job has not been granted this sensitive path") + allowed_list(scene),
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
        f"remove the credential from {at(v)} (do not allow it, encode it or split it): read it from the "
        f"environment at run time instead{history}",
        fix,
    )


def _risky(v: Violation, scene: Scene) -> tuple[str, str]:
    if scene.mode == TOOL_CALL:
        return "do not run or write this; use a safer command that does not do it", ""
    return f"remove {at(v)} ({v.message}); do it a safer way or leave it to the user", ""


def _test_timeout(v: Violation, scene: Scene) -> tuple[str, str]:
    timeout = scene.manifest.test_timeout_s if scene.manifest else None
    within = f" within {timeout:g} s" if timeout else ""
    return (
        f"make the required test finish{within}: {run_test(scene)} and find what hangs or is slow",
        "raise test_timeout_s if the test is slow by nature",
    )


def _test_side_effect(v: Violation, scene: Scene) -> tuple[str, str]:
    path = v.path or ""
    clean = f"delete what it created (`rm -f -- {shell_path(path)}`) and " if "created" in v.message else ""
    return (
        f"{clean}make the required test leave {path} as it found it: write temporary files outside the "
        f"repository or under an ignored directory; then rerun score-diff (`{test_command(scene)}` shows "
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
        f"; only to start the file over (your new tests go with it, {kept}), run `{command}`{came_in(path, scene)}"
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
    undo = "" if scene.mode == TOOL_CALL else f": run `{undo_command(path, scene)}`{came_in(path, scene)}"
    return (
        f"undo your change to {path}{undo}; the base's tests run under the base's test configuration, so "
        "make the code pass them, and put a fixture or helper a new test needs in that test's own module",
        "grant the file in allowed_test_config if the job must change how tests are collected",
    )


def _unknown(v: Violation, scene: Scene) -> tuple[str, str]:
    if v.path and scene.mode != TOOL_CALL:
        return undo(v.path, scene), ""
    return "undo the change the message names, then rerun score-diff", ""


# Guard-only findings (no diff yet, so never a restore command).
def _outside(v: Violation, scene: Scene) -> tuple[str, str]:
    scratch = scene.manifest.scratch_roots if scene.manifest else ()
    where = f" or under {', '.join(scratch)}" if scratch else ""
    return f"write only inside the repository{where}", "add the directory to scratch_roots"


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
    **SAID_HINTS,
}

HINTED_CODES = frozenset(_HINTS)
__all__ = [
    "HINTED_CODES",
    "RANGE",
    "SAID",
    "TOOL_CALL",
    "WORKTREE",
    "Scene",
    "annotate",
    "hint_for",
    "scene_of",
    "undo_command",
]
