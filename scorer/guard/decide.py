"""One decision per tool call, with the diff gate's own matchers and content checks.

Long because it is the whole decision: paths, content, shell, sensitive paths and the refusal text.

Every path a call would write is checked as `checks.check_paths` checks a changed path
(`Job.allowed`, `Job.forbidden`), the manifest cannot be edited (`manifest-changed`),
sensitive paths follow the blast-radius rule (`sensitive.classify`, named exactly in
allowed_paths, justified once per turn), kinds follow `checks.check_kinds`, and the
content the call adds goes through `checks.CONTENT_CHECKS` (forbidden tokens and
patterns, secrets, risky shell). What cannot be established is asked (or denied where the
agent cannot ask), never allowed.
"""

from __future__ import annotations

import os

from ..records import NamedTuple
from . import paths
from .payload import OPAQUE, OTHER, PROMPT, READ, SHELL, WRITE, Target, ToolCall
from .sessions import nested_repository

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..checks.job import Job
    from ..model import Violation

ALLOW, DENY, ASK = "allow", "deny", "ask"
DO_NOT_WIDEN = "Do not edit the job manifest, its pin or the hook configuration to get around this."


class GuardScope(NamedTuple):
    """The guard's scope for one call: the job and the repository the decision is taken against."""

    root: str  # real path of the working tree
    git_dir: str
    job: Job
    manifest_rel: str | None  # the manifest's repo-relative path, if it lives in the repository
    scratch: tuple[str, ...] = ()  # real paths of the manifest's scratch_roots
    home: str | None = None
    cdpath: bool = False  # CDPATH is set where the agent's commands run: a relative cd may go elsewhere


class Finding(NamedTuple):
    code: str
    message: str
    path: str | None = None


class Decision(NamedTuple):
    action: str  # allow, deny or ask
    code: str  # the first finding's code, or "ok"
    reason: str  # what the agent reads: what happened and exactly what to do next
    paths: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    prompted: tuple[str, ...] = ()  # sensitive paths prompted for in this decision (turn state)
    granted: tuple[str, ...] = ()  # sensitive paths whose justification was accepted
    rewrite: str | None = None  # an allowed shell call runs this command instead (jailed.py)


def allow(reason: str, paths_: Sequence[str] = ()) -> Decision:
    return Decision(ALLOW, "ok", reason, tuple(paths_))


def refuse(code: str, reason: str) -> Decision:
    """The fail-closed answer: a one-line reason, nothing established."""
    return Decision(
        DENY,
        code,
        f"score-diff guard blocked this call: {reason}. Stop and tell the user the guard "
        f"could not check it; do not retry it another way.",
        findings=(Finding(code, reason),),
    )


class TurnView(NamedTuple):
    """What this session's current turn already holds (turns.py keeps it)."""

    prompted: frozenset[str] = frozenset()
    granted: frozenset[str] = frozenset()
    justified: Callable[[str], str | None] = lambda path: None  # None: the latest message justifies `path`


def decide(call: ToolCall, fence: GuardScope, turn: TurnView, allowed_tools: frozenset[str]) -> Decision:
    """The decision for one normalised call."""
    if call.kind == PROMPT:
        return allow("a new turn: sensitive-path justifications start over")
    if call.kind not in (WRITE, SHELL, READ, OTHER, OPAQUE):
        return allow(f"{call.event} is not a tool call the guard decides")
    if call.kind == READ:
        return allow(f"{call.tool} writes nothing")
    if call.kind == OTHER:
        if call.tool in allowed_tools:
            return allow(f"{call.tool} is listed in the manifest's guard_allowed_tools")
        return Decision(
            ASK,
            "unknown-tool",
            f"score-diff guard cannot see what {call.tool} writes, and this job's "
            "manifest does not list it in guard_allowed_tools; a person must confirm this call.",
            findings=(Finding("unknown-tool", call.tool),),
        )
    if call.kind == OPAQUE:
        return _ask([call.note], ())
    findings: list[Finding] = []
    unresolved: list[str] = []
    targets = list(call.targets)
    if call.kind == SHELL:
        targets += _shell(call, fence, findings, unresolved)
    return _judge(call, fence, turn, targets, findings, unresolved)


def _shell(call: ToolCall, fence: GuardScope, findings: list[Finding], unresolved: list[str]) -> list[Target]:
    from . import shell

    command = call.command or ""
    where = call.workdir or call.cwd
    facts = shell.analyse(command, where, fence.home, "set" if fence.cdpath else None, root=fence.root)
    nested = nested_repository(where, fence.root)
    if nested is not None:
        unresolved.append(
            f"the command runs in {nested}, a repository nested in the session's, with a fence of its own"
        )
    findings += [Finding("gate-skip", s) for s in facts.gate_skips]
    findings += [Finding(v.code, v.message) for v in _content(fence.job, [("(the command)", command)])]
    unresolved += facts.unresolved
    return list(facts.targets)


def _judge(
    call: ToolCall,
    fence: GuardScope,
    turn: TurnView,
    targets: list[Target],
    findings: list[Finding],
    unresolved: list[str],
) -> Decision:
    sensitive: list[tuple[str, str]] = []  # (path, category: reason)
    contents: list[tuple[str, str]] = []
    checked: list[str] = []
    links = _links(call, targets, fence)
    for target in targets:
        place = paths.resolve(
            target.path, target.cwd or call.cwd, fence.root, fence.home, None if target.op == "link" else links
        )
        if place is None:
            unresolved.append(f"where {target.path!r} lands cannot be told ('~user' or no HOME)")
            continue
        for same in _identities(place, fence, unresolved):
            shown = same.rel if same.rel is not None else same.real
            checked.append(shown)
            findings += _path_findings(target, same, fence, sensitive, unresolved)
            if target.content and same.rel is not None:
                contents.append((same.rel, target.content))
    findings += [Finding(v.code, v.message, v.path) for v in _content(fence.job, contents)]
    if findings:
        return _deny(findings, checked, fence)
    return _sensitive_or_ask(sensitive, unresolved, checked, turn)


def _links(call: ToolCall, targets: list[Target], fence: GuardScope) -> dict[str, str]:
    """The symlinks the call makes (link -> where it points, both absolute), so a later write
    through one is judged where it lands (`ln -s ../tests/x src/t && echo > src/t`)."""
    made: dict[str, str] = {}
    for t in targets:
        if t.op != "link" or not t.link_target:
            continue
        full = paths.expand(t.path, t.cwd or call.cwd, fence.home)
        if full is None:
            continue
        link = os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))
        made[link] = os.path.normpath(os.path.join(os.path.dirname(link), t.link_target))
    return made


def _identities(place: paths.Place, fence: GuardScope, unresolved: list[str]) -> list[paths.Place]:
    """The target and every other name of the same file (st_dev, st_ino) in the repository."""
    others = paths.same_files(place.real, fence.root)
    if others is None:
        unresolved.append(f"{place.named!r} is a hard link whose other names the guard cannot all find")
        return [place]
    return [place] + [paths.Place(o, paths.relative_to(o, fence.root), place.named) for o in others]


def _path_findings(
    target: Target, place: paths.Place, fence: GuardScope, sensitive: list[tuple[str, str]], unresolved: list[str]
) -> list[Finding]:
    from ..checks.sensitive import classify

    rel, m = place.rel, fence.job.manifest
    if rel is None:
        if paths.under(place.real, fence.scratch):
            return []
        where = f"{place.real} is outside the repository"
        return [
            Finding(
                "outside-repo", where + (" and outside the job's scratch_roots" if fence.scratch else ""), place.real
            )
        ]
    if rel == "" or target.op == "tree":
        unresolved.append(f"{target.path!r} is a directory: every file under it would change")
        return []
    if paths.in_git_dir(rel):
        return [Finding("git-dir", "is inside git's own directory, where hooks and refs live", rel)]
    if fence.manifest_rel and rel in (fence.manifest_rel, fence.manifest_rel + ".sha256"):
        return [
            Finding("manifest-changed", "is the job manifest or its pin; the job may not change its own fence", rel)
        ]
    if fence.job.forbidden(rel):
        return [Finding("forbidden-path", "matches forbidden_globs", rel)]
    if not fence.job.allowed(rel):
        return [Finding("unlisted-path", "is not in allowed_paths", rel)]
    found = _kind_findings(target, place, fence)
    hit = classify(
        rel, extra_globs=m.sensitive_globs, exempt=frozenset(m.sensitive_exempt), manifest_path=fence.manifest_rel
    )
    if hit is not None:
        from ..manifest.globs import normalise_path

        if rel not in {normalise_path(p) for p in m.allowed_paths}:
            found.append(
                Finding(
                    "sensitive-path",
                    f"is a sensitive path ({hit.category}) this job does not name "
                    "exactly in allowed_paths (a glob never grants one)",
                    rel,
                )
            )
        else:
            sensitive.append((rel, f"{hit.category}: {hit.reason}"))
    return found


def _kind_findings(target: Target, place: paths.Place, fence: GuardScope) -> list[Finding]:
    from ..checks.paths import escapes_repo

    m, rel, found = fence.job.manifest, place.rel or "", []
    nested = paths.nested_repository(fence.root, rel)
    if nested is not None and not m.allow_submodules:
        found.append(Finding("submodule", f"is inside the nested repository {nested!r}; allow_submodules is off", rel))
    if target.op == "link":
        link = target.link_target or ""
        if not link or escapes_repo(rel, link):
            found.append(Finding("symlink", f"would be a symlink pointing outside the repository ({link!r})", rel))
        elif not m.allow_symlinks:
            found.append(Finding("symlink", "would be a symlink; allow_symlinks is off", rel))
    content = target.content or ""
    if "\0" in content and not m.allow_binary:
        found.append(Finding("binary-file", "would get binary content, which cannot be checked for tokens", rel))
    size = len(content.encode("utf-8", "surrogatepass"))
    if target.op == "write" and m.max_file_bytes is not None and size > m.max_file_bytes:
        found.append(Finding("file-too-large", f"would be {size} bytes; max_file_bytes is {m.max_file_bytes}", rel))
    return found


def _content(job: Job, contents: Sequence[tuple[str, str]]) -> list[Violation]:
    """Forbidden tokens, patterns, secrets and risky shell, exactly as on added lines in a diff."""
    from ..checks.content import CONTENT_CHECKS
    from ..model import AddedText

    pieces, starts, locations, offset = [], [], [], 0
    for path, text in contents:
        block = text if text.endswith("\n") else text + "\n"
        starts.append(offset)
        locations.append((path, 1))
        pieces.append(block)
        offset += len(block)
    if not pieces:
        return []
    added = AddedText("".join(pieces), tuple(starts), tuple(locations))
    return [v for check in CONTENT_CHECKS for v in check(added, job)]


def _deny(findings: list[Finding], checked: Sequence[str], fence: GuardScope) -> Decision:
    """The refusal: each finding, then what to do, from the same hints a FAIL report gives."""
    from ..feedback import hints
    from ..model import Violation
    from ..secrets.redaction import redact  # key bodies without their header too, as every report

    scene = hints.Scene(hints.TOOL_CALL, manifest=fence.job.manifest, manifest_rel=fence.manifest_rel)
    lines, steps = [], []
    for f in findings[:8]:
        lines.append(redact(f"- {f.path + ' ' if f.path else ''}{f.message} [{f.code}]"))
        step = hints.hint_for(Violation(f.code, f.message, f.path), scene)[0]
        if step not in steps:
            steps.append(redact(step))
    if len(findings) > 8:
        lines.append(f"- ... and {len(findings) - 8} more")
    reason = (
        "score-diff guard blocked this call; the job's manifest does not allow it:\n"
        + "\n".join(lines)
        + ("\nWhat to do: " + "; ".join(steps) + ". " + DO_NOT_WIDEN)
    )
    return Decision(DENY, findings[0].code, reason, tuple(checked), tuple(findings))


def _ask(unresolved: Sequence[str], checked: Sequence[str]) -> Decision:
    items = list(dict.fromkeys(unresolved))
    reason = (
        "score-diff guard cannot tell what this call writes: " + "; ".join(items[:5]) + ". A person must "
        "confirm it. To avoid this, name every file the command writes literally (no variables, globs, eval "
        "or inline scripts that write files), or use the file-editing tool."
    )
    return Decision(ASK, "unresolved", reason, tuple(checked), tuple(Finding("unresolved", u) for u in items))


def prompt_text(path: str, why: str) -> str:
    """The blast-radius prompt: what to write before the retry, and the commit trailers."""
    return (
        f"score-diff guard: {path} is a sensitive path ({why}). Before changing it, write these two lines in your "
        "reply, then repeat exactly the same call:\n"
        "1. JUSTIFICATION: <file>:<line> <why> - a file and line you have read that shows this change is needed\n"
        "2. ROLLBACK: <the exact command that undoes this change>\n"
        f"Put the same in the commit message as trailers: 'Blast-Radius: {path}', "
        "'Justification: <file>:<line> <why>', 'Rollback: <command>'."
    )


def _sensitive_or_ask(
    sensitive: list[tuple[str, str]], unresolved: list[str], checked: Sequence[str], turn: TurnView
) -> Decision:
    new = [(p, why) for p, why in sensitive if p not in turn.prompted and p not in turn.granted]
    if new:
        path, why = new[0]
        return Decision(
            DENY,
            "sensitive-path",
            prompt_text(path, why),
            tuple(checked),
            (Finding("sensitive-path", why, path),),
            prompted=tuple(p for p, _ in new),
        )
    pending = [p for p, _ in sensitive if p not in turn.granted]
    for path in pending:
        problem = turn.justified(path)
        if problem is not None:
            why = dict(sensitive)[path]
            return Decision(
                DENY,
                "bad-justification",
                f"score-diff guard: {problem}. " + prompt_text(path, why),
                tuple(checked),
                (Finding("bad-justification", problem, path),),
            )
    if unresolved:
        return _ask(unresolved, checked)._replace(granted=tuple(pending))
    what = f"{len(checked)} path{'s' if len(checked) != 1 else ''} checked" if checked else "nothing it writes"
    return Decision(ALLOW, "ok", f"within the job manifest ({what})", tuple(checked), granted=tuple(pending))
