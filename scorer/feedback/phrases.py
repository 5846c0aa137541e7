"""The scene a hint is written for, and the phrases and exact commands hints are made of.

A hint names the exact command for this path in this state (untracked, added, renamed, worktree or
--base mode); the commands are built here, once, so every hint that undoes a change undoes it the
same way, keeping every version that exists nowhere else.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from ..model import ChangedPath, Violation
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from ..manifest.load import Manifest

WORKTREE, RANGE, TOOL_CALL = "worktree", "range", "tool-call"
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


def commit_fence_first(path: str, scene: Scene) -> tuple[str, str]:
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


def undo(path: str, scene: Scene, why: str = "") -> str:
    """'undo your change to P: `cmd`' (or, before the write, 'leave P unchanged')."""
    if scene.mode == TOOL_CALL:
        return f"leave {path} unchanged{why}"
    status = status_of(path, scene)
    command = undo_command(path, scene)
    if command is None:
        return (
            f"move {path}{status} out of the repository (there is nothing committed to restore it from, and it "
            f"may be the only copy){why}"
        )
    return f"undo your change to {path}{status}: run `{command}`{came_in(path, scene)}{why}"


def status_of(path: str, scene: Scene) -> str:
    change = scene.changed.get(path)
    if change is None:
        return ""
    if change.untracked:
        return " (untracked)"
    return f" ({change.status})"


def came_in(path: str, scene: Scene) -> str:
    commit = scene.introduced.get(path)
    return f" (it came in with commit {commit})" if commit else ""


def allowed_list(scene: Scene) -> str:
    paths = scene.manifest.allowed_paths if scene.manifest else ()
    if not paths:
        return ""
    shown = ", ".join(paths[:_LISTED]) + (f" and {len(paths) - _LISTED} more" if len(paths) > _LISTED else "")
    return f"; this job may change only: {shown}"


def test_command(scene: Scene) -> str:
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


def run_test(scene: Scene) -> str:
    """How the agent sees what the gate saw: the reproducing command, or (before a write) the test itself."""
    if scene.mode == TOOL_CALL:
        return f"run `{test_command(scene)}`"
    return f"run `{reproduce_command(scene)}` (it runs `{test_command(scene)}` exactly as the gate did)"


def spec_pass(scene: Scene) -> str:
    """The spec pass alone, when the base's tests are what failed: its output is the failure to fix."""
    if scene.mode == TOOL_CALL:
        return ""
    command = reproduce_command(scene).replace("score-diff test", "score-diff test --spec", 1)
    return f" (`{command}` runs the spec pass alone: the base's tests against your code)"


def at(v: Violation) -> str:
    return f"line {v.line} of {v.path}" if v.path and v.line else (v.path or "the change")


def after(message: str, marker: str) -> str:
    _, sep, rest = message.partition(marker)
    return rest.strip() if sep else ""
