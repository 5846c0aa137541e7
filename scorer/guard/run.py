"""One hook payload in, one answer out: the guard's pipeline, shared by `guard` and `serve`.

Everything that goes wrong answers deny with the agent's blocking exit code and a one-line
reason: an exception here must never become Claude Code's non-blocking exit 1.
"""

from __future__ import annotations

import os
import time

from ..records import NamedTuple
from .answer import Answer, render
from .decide import ALLOW, ASK, DENY, Decision, GuardScope, TurnView, refuse
from .payload import CLAUDE, PROMPT, SHELL, PayloadError, ToolCall, parse_json

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from .coalesce import Coalescer
    from .heads import HeadListing, HeadListings

WOULD = {DENY: "would-block", ASK: "would-ask", ALLOW: "shadow-only"}


class GuardOptions(NamedTuple):
    """How `score-diff guard` and `serve` were asked to run (pipeline.Options is the scorer's)."""

    agent: str
    manifest: str | None = None  # --manifest, as for scoring
    cwd: str = "."  # the guard process's own directory (a relative --manifest is relative to it)
    shadow: bool = False
    log: bool = True
    log_db: str | None = None


class Loaded(NamedTuple):
    """A validated manifest for one repository, and the bytes it was read from."""

    fence: GuardScope
    raw_sha256: str
    allowed_tools: frozenset[str]
    shadow: bool


class FenceCache:
    """Where each working directory's repository is (the sidecar keeps it); the manifest is read on
    every call, one read shared by the calls that arrive together (coalesce.py), HEAD's listing
    kept by commit (heads.py)."""

    def __init__(self) -> None:
        self._roots: dict[str, tuple[str, str]] = {}
        self._reads: Coalescer[Loaded] | None = None
        self._heads: HeadListings | None = None

    def heads(self, root: str, git_dir: str, environ: Mapping[str, str]) -> HeadListing:
        if self._heads is None:
            from .heads import HeadListings

            self._heads = HeadListings()
        return self._heads.of(root, git_dir, environ)

    def close(self) -> None:
        if self._heads is not None:
            self._heads.close()

    @property
    def reads(self) -> Coalescer[Loaded]:
        """Made on first use: the command hook, which never shares a read, imports no threading."""
        if self._reads is None:
            from .coalesce import Coalescer

            self._reads = Coalescer(DEADLINE_S)
        return self._reads

    def locate(self, cwd: str, environ: Mapping[str, str]) -> tuple[str, str]:
        found = self._roots.get(cwd)
        if found is None:
            from ..inspection.gitprocess import locate

            found = locate(cwd, environ)
            if len(self._roots) > 1024:
                self._roots.clear()
            self._roots[cwd] = found
        return found


def _session_repository(call: ToolCall, environ: Mapping[str, str], cache: FenceCache | None) -> tuple[str, str]:
    """The repository the session started in (sessions.py), not the one the call's cwd is in."""
    from . import sessions

    found = sessions.pinned(call.session, environ)
    if found is not None:
        return found.root, found.git_dir
    root, git_dir = (cache or FenceCache()).locate(call.cwd, environ)
    sessions.pin(call.session, sessions.Pinned(root, git_dir), environ)
    return root, git_dir


def load_fence(
    root: str,
    git_dir: str,
    opts: GuardOptions,
    environ: Mapping[str, str],
    cache: FenceCache | None,
    heads: HeadListing | None = None,
) -> Loaded:
    """The fence worktree scoring judges against, found and read the way scoring reads it: the job's
    own manifest when the branch names one, a manifest tracked at HEAD read at HEAD (an edited copy
    on disk never loosens it), the pin from the same place, validated on every call (a cache of
    the validation would live where the job can write it). With a cache (the sidecar), requests
    that arrive together share one read that started after each of them arrived."""
    if cache is not None:
        key = (root, git_dir, opts.manifest, opts.cwd, id(environ))  # one environment per sidecar
        listing = cache.heads(root, git_dir, environ)
        return cache.reads.read(key, lambda: load_fence(root, git_dir, opts, environ, None, listing))
    from ..checks.job import Job
    from .fence import read_fence

    manifest, rel = read_fence(root, git_dir, opts.manifest, opts.cwd, environ, heads)  # `locate` asked git already
    scratch = tuple(os.path.realpath(os.path.expanduser(p)) for p in manifest.scratch_roots)
    fence = GuardScope(os.path.realpath(root), git_dir, Job(manifest, rel), rel, scratch, environ.get("HOME") or None)
    return Loaded(fence, manifest.sha256, frozenset(manifest.guard_allowed_tools), manifest.mode == "shadow")


def _line_counter(root: str) -> Callable[[str], int | None]:
    from ..checks.blast_radius import count_lines
    from ..inspection.worktree import read_worktree_file

    return lambda path: count_lines(read_worktree_file(root, path))


def _turn_view(call: ToolCall, loaded: Loaded, turn: object) -> TurnView:
    text: list[str | None] = []

    def justified(path: str) -> str | None:
        if not call.transcript:  # nothing to read: the retry itself is the acknowledgement
            return None
        from . import transcript  # only when a sensitive write is retried

        if not text:
            root = transcript.transcript_root(call.agent, loaded.fence.home)
            text.append(transcript.latest_assistant_text(call.transcript, root))
        return transcript.check(text[0], path, _line_counter(loaded.fence.root))

    return TurnView(getattr(turn, "prompted", frozenset()), getattr(turn, "granted", frozenset()), justified)


class Outcome(NamedTuple):
    decision: Decision  # what the guard decided (in shadow mode: what it would have done)
    answer: Answer  # what the agent is told
    call: ToolCall | None
    loaded: Loaded | None
    shadow: bool
    git_dir: str | None


def evaluate(raw: bytes, opts: GuardOptions, environ: Mapping[str, str], cache: FenceCache | None = None) -> Outcome:
    """Decide one payload. Never raises: every failure is a deny."""
    call = loaded = git_dir = None
    try:
        from .agents import lookup  # one module per agent, by name

        call = lookup(opts.agent).normalise(parse_json(raw))
        root, git_dir = _session_repository(call, environ, cache)
        loaded = load_fence(root, git_dir, opts, environ, cache)
        if environ.get("CDPATH"):  # the hook runs in the agent's environment, so its commands see it too
            loaded = loaded._replace(fence=loaded.fence._replace(cdpath=True))
        decision = _decide(call, loaded, git_dir)
    except PayloadError as exc:
        decision = refuse("invalid-payload", str(exc))
    except Exception as exc:  # ScoreDiffError (manifest, git) and anything unexpected: fail closed
        code = getattr(exc, "code", "internal-error")
        decision = refuse(code, f"{exc}" if code != "internal-error" else f"unexpected {type(exc).__name__}: {exc}")
    shadow = opts.shadow or bool(loaded and loaded.shadow)
    told = decision._replace(action=ALLOW, rewrite=None) if shadow and decision.code != "ok" else decision
    if shadow and decision.code != "ok":
        told = told._replace(reason=f"shadow mode: allowed; would have answered {decision.action}")
    answer = render(told, opts.agent, call.event if call else "PreToolUse")
    if call is not None and call.event == SESSION_START and opts.agent == CLAUDE:
        # Nothing is written at session start, so nothing is blocked: the fence, or (when it cannot
        # be read) nothing; the tool calls that follow are still decided, and refused, as ever.
        given = session_start(loaded, opts.agent) if loaded is not None and told.action == ALLOW else None
        answer = given or Answer("", "", 0, {})
    return Outcome(decision, answer, call, loaded, shadow, git_dir)


SESSION_START = "SessionStart"


def session_start(loaded: Loaded, agent: str) -> Answer | None:
    """Claude Code's SessionStart: the fence (`score-diff fence`) as `additionalContext`, so the agent
    knows it before its first write (https://code.claude.com/docs/en/hooks#sessionstart). Other
    agents get the normal answer."""
    from .. import jsontext
    from ..feedback.fence import fence_facts, render_markdown

    if agent != CLAUDE:
        return None
    context = render_markdown(fence_facts(loaded.fence.job.manifest, loaded.fence.manifest_rel))
    body = {"hookSpecificOutput": {"hookEventName": SESSION_START, "additionalContext": context}}
    return Answer(jsontext.dumps(body) + "\n", "", 0, body)


def _decide(call: ToolCall, loaded: Loaded, git_dir: str) -> Decision:
    from . import turns
    from .decide import decide

    if call.kind == PROMPT:
        turns.new_turn(git_dir, call.session)
        return decide(call, loaded.fence, TurnView(), loaded.allowed_tools)
    turn = turns.current(git_dir, call.session, call.turn)
    decision = decide(call, loaded.fence, _turn_view(call, loaded, turn), loaded.allowed_tools)
    if decision.code == "unresolved" and call.kind == SHELL and call.command and _rewrites(call.agent):
        from . import jailed

        decision = jailed.rewrite(decision, loaded.fence, call.command)
    if not loaded.shadow:  # shadow mode tells the agent nothing, so it grants and prompts nothing
        turns.record(git_dir, turn, decision.prompted, decision.granted)
    return decision


def _rewrites(agent: str) -> bool:
    """Whether the agent lets a hook replace a shell call's command (its module's REWRITES_SHELL)."""
    from .agents import lookup

    return bool(getattr(lookup(agent), "REWRITES_SHELL", False))


def _logged(d: Decision, shadow: bool) -> str:
    """The decision as the log says it: in shadow mode, what the guard would have done (a command it
    would have run rewritten into the jail is `would-jail`)."""
    if not shadow:
        return d.action
    return "would-jail" if d.rewrite is not None else WOULD[d.action]


def log_row(outcome: Outcome, opts: GuardOptions, duration_s: float) -> dict[str, object]:
    from .. import __version__

    d, call, loaded = outcome.decision, outcome.call, outcome.loaded
    manifest = loaded.fence.job.manifest if loaded else None
    return {
        "job_id": manifest.job_id if manifest else None,
        "mode": "guard",
        "manifest_sha256": loaded.raw_sha256 if loaded else None,
        "verdict": _logged(d, outcome.shadow),
        "decision": _logged(d, outcome.shadow),
        "exit_code": outcome.answer.exit_code,
        "shadow": int(outcome.shadow),
        "violations": [{"code": f.code, "path": f.path, "line": None, "message": f.message} for f in d.findings],
        "duration_s": duration_s,
        "version": __version__,
        "agent": opts.agent,
        "event": call.event if call else None,
        "tool": call.tool if call else None,
        "paths": list(d.paths),
        "reason": d.reason,
        "session": call.session if call else None,
        "turn": (call.turn if call else None),
    }


def log(outcome: Outcome, opts: GuardOptions, duration_s: float) -> str | None:
    """Append the decision to the decision log; a warning (never an exception) if it cannot be."""
    if not opts.log:
        return None
    try:
        from ..decision_log import default_db_name, record_guard

        if opts.log_db:
            db = opts.log_db
        elif outcome.git_dir:
            db = default_db_name(outcome.git_dir)
        else:
            return None  # no repository found: nowhere to log
        return record_guard(db, log_row(outcome, opts, duration_s))
    except Exception as exc:
        return f"decision log not written: {exc}"


def log_batch(items: list[tuple[Outcome, GuardOptions, float]]) -> list[str]:
    """`log` for the sidecar's backlog: the rows of each decision log with one journal write; the warnings."""
    from pathlib import Path

    from ..decision_log import default_db_path, record_guards

    by_db: dict[Path, list[dict[str, object]]] = {}
    warnings = []
    for outcome, opts, duration_s in items:
        if not opts.log or not (opts.log_db or outcome.git_dir):
            continue  # not asked for, or no repository found: nowhere to log
        try:
            db = Path(opts.log_db) if opts.log_db else default_db_path(Path(outcome.git_dir or ""))
            by_db.setdefault(db, []).append(log_row(outcome, opts, duration_s))
        except Exception as exc:
            warnings.append(f"decision log not written: {exc}")
    for db, rows in by_db.items():
        try:
            warnings.append(record_guards(db, rows) or "")
        except Exception as exc:
            warnings.append(f"decision log not written: {exc}")
    return [w for w in warnings if w]


DEADLINE_S = 10.0  # the command hook answers by then: well inside every agent's hook timeout (docs/guard.md)


class _Deadline(BaseException):
    """The deadline's alarm (a BaseException, so no `except Exception` on the way swallows it)."""


def evaluate_in_time(
    raw: bytes, opts: GuardOptions, environ: Mapping[str, str], deadline_s: float | None = None
) -> Outcome:
    """`evaluate`, answered by the deadline: past it, a deny that says so.

    Each lock and read on the path has its own shorter deadline (safeio.py); this one also
    covers what has none of its own: a manifest path that names a FIFO, a git that hangs. In
    the command hook (the main thread) it is an interval timer, no thread: its signal stops a
    blocked read or a wait for git (whose process subprocess then kills). The one call it
    could not stop, tree-sitter's parse in C, is bounded by its input (shell/walker.py,
    MAX_HEREDOCS), so it ends in milliseconds. Elsewhere (the sidecar's handler threads) the
    work runs on a thread that is abandoned at the deadline. Which of the two is signal's own
    answer: only the main thread may set a handler, so the command hook does not import threading."""
    limit = DEADLINE_S if deadline_s is None else deadline_s
    alarmed = _with_alarm(raw, opts, environ, limit)
    if alarmed is not None:
        return alarmed
    import threading

    box: list[Outcome] = []
    worker = threading.Thread(target=lambda: box.append(evaluate(raw, opts, environ)), daemon=True)
    worker.start()
    worker.join(limit)
    return box[0] if box else _timed_out(opts, limit)


def _with_alarm(raw: bytes, opts: GuardOptions, environ: Mapping[str, str], limit: float) -> Outcome | None:
    """`evaluate` under an interval timer; None where there is none (not the main thread, no setitimer)."""
    if TYPE_CHECKING:
        import signal
    else:  # the C module the interpreter loaded at start-up: signal.py's enums cost 3.5M instructions
        import _signal as signal

    def ring(signum: int, frame: object) -> None:
        raise _Deadline

    if not hasattr(signal, "setitimer"):
        return None
    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except ValueError:  # "signal only works in main thread of the main interpreter"
        return None
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return evaluate(raw, opts, environ)
    except _Deadline:
        return _timed_out(opts, limit)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _timed_out(opts: GuardOptions, limit: float) -> Outcome:
    decision = refuse(
        "guard-timeout",
        f"the guard did not decide within {limit:g} s (a file, lock or git call on its path did not answer)",
    )
    answer = Answer("", "", 0, {}) if opts.shadow else render(decision, opts.agent)
    return Outcome(decision, answer, None, None, opts.shadow, None)


def guard(raw: bytes, opts: GuardOptions, environ: Mapping[str, str], cache: FenceCache | None = None) -> Outcome:
    """Evaluate and log one payload."""
    started = time.monotonic()
    outcome = evaluate(raw, opts, environ, cache)
    log(outcome, opts, time.monotonic() - started)
    return outcome
