"""How score-diff starts git: the process, its environment and its errors, and nothing else.

Every git call goes through `GitProcess.start`: it pins every option that user or
repository config could change, builds git's environment from the environment it is
given (never from os.environ behind the caller's back), refuses the variables that would
point git at other objects or another tree, and turns every git failure into GitError.
What score-diff asks git, and how it reads the answers, is `scorer.inspection.git`.
"""

from __future__ import annotations

import os

from ..errors import GitError

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import Any

# subprocess, threading and queue are imported where git is started: a guard call whose fence
# needs no git (a pinned session, a manifest outside the repository) does not pay for them.

# Config that would change what git reports, pinned on every call.
_PINNED = {
    "core.quotePath": "false",
    "core.fsmonitor": "false",
    "core.untrackedCache": "false",
    "core.ignoreStat": "false",
    "core.trustctime": "true",  # an edit with mtime restored still changes ctime
    "core.checkStat": "default",
    "core.ignoreCase": "false",  # true hides an untracked `makefile` beside a tracked `Makefile`
    "diff.noprefix": "false",
    "diff.mnemonicPrefix": "false",
    "diff.relative": "false",
    "diff.renameLimit": "1000",
    "diff.ignoreSubmodules": "none",
    "color.ui": "never",
}
if os.name == "posix":
    _PINNED.update({"core.fileMode": "true", "core.symlinks": "true"})
PINNED_ARGS = tuple(arg for key, value in _PINNED.items() for arg in ("-c", f"{key}={value}"))
# Environment that would bend git's answers, neutralised.
_ENV_OVERRIDES = {
    "GIT_OPTIONAL_LOCKS": "0",  # never write the index while a commit holds its lock
    "GIT_CONFIG_PARAMETERS": "",
    "GIT_CONFIG_COUNT": "0",
    "GIT_EXTERNAL_DIFF": "",
    "GIT_DIFF_OPTS": "",
    "GIT_NO_REPLACE_OBJECTS": "1",  # `git replace` could swap what a commit contains
    "GIT_GRAFT_FILE": os.devnull,  # .git/info/grafts could give main the agent's commit as a parent
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
}
_KEPT_ENV = frozenset({"GIT_INDEX_FILE", "GIT_EXEC_PATH"})
_REFUSED_ENV = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE")
# What receive-pack sets for its hooks while a push is quarantined (git-receive-pack(1), "QUARANTINE
# ENVIRONMENT"): the pushed objects live in a temporary directory under objects/ until pre-receive
# accepts them, and only these variables let git see them. Passed through for the server hooks alone.
QUARANTINE_ENV = ("GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


def git_environment(
    environ: Mapping[str, str], git_dir: str, work_tree: str | None, kept: frozenset[str] = _KEPT_ENV
) -> dict[str, str]:
    """The caller's environment without git's own variables, plus the pinned ones.

    GIT_INDEX_FILE is kept: inside a commit hook git names there the index it will commit.
    """
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_") or k in kept}
    env.update(_ENV_OVERRIDES, GIT_DIR=git_dir)
    if work_tree is not None:
        env["GIT_WORK_TREE"] = work_tree
    return env


class GitProcess:
    """The git processes of one repository: discovered as git discovers it, started with the
    pinned config and environment, collected, and stopped if an error came first.

    A bare repository (a git server's) has no working tree: `root` is None. `receiving` is for
    the server hooks alone: git itself set the quarantine variables for them, and they are
    passed through instead of refused.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        environ: Mapping[str, str] | None = None,
        receiving: bool = False,
        discovered: tuple[str, str, bool] | None = None,  # (work tree, git dir, bare) from `locate`
        read_head: bool = False,  # HEAD's commit read by discovery's own git call (`discovered_head`)
    ) -> None:
        environ = dict(os.environ) if environ is None else environ
        for name in _REFUSED_ENV:
            if environ.get(name) and not (receiving and name in QUARANTINE_ENV):
                raise GitError(f"{name} is set; unset it so git reads this repository's own objects")
        where = os.path.abspath(path)
        if not os.path.isdir(where):
            raise GitError(f"not a git repository: {where} (run inside a repository or pass --repo)")
        heads: list[str | None] = []
        top, git_dir, bare = discovered or _discover(where, environ, heads if read_head else None)
        # HEAD as discovery read it, handed out once (`discovered_head`): a second question is asked afresh
        self._head_at_discovery = heads
        if top and os.path.commonpath([os.path.realpath(where), os.path.realpath(top)]) != os.path.realpath(top):
            raise GitError(
                f"git's work tree for {where} is {top} (set by core.worktree or GIT_WORK_TREE): git "
                "would commit from there; score that directory, or unset it"
            )
        self.root: str | None = None if bare else top
        self.git_dir = git_dir
        self._refuse_another_worktree(environ, where)
        kept = _KEPT_ENV | (_quarantine(environ, git_dir) if receiving else frozenset())
        self._env = git_environment(environ, self.git_dir, self.root, kept)
        # `git -c core.commentChar=X commit` reaches a hook only through these: the config the
        # commit will clean its message with, read only by message_as_stored.
        self._commit_env = {**self._env, **{k: v for k, v in environ.items() if k.startswith("GIT_CONFIG")}}
        self._live: list[subprocess.Popen[bytes]] = []  # started and not yet collected
        self._drains: dict[subprocess.Popen[bytes], _Drain] = {}  # whose output threads read as it comes

    def discovered_head(self) -> tuple[bool, str | None]:
        """(True, HEAD's commit id or None before the first commit) as discovery read it, the first
        time it is asked; (False, None) after that, or when discovery did not read HEAD."""
        if not self._head_at_discovery:
            return False, None
        return True, self._head_at_discovery.pop()

    @property
    def work_tree(self) -> str:
        """The working tree's root; a bare repository has none, so worktree mode cannot score it."""
        if self.root is None:
            raise GitError(
                f"{self.git_dir} is a bare repository; score-diff needs a working tree "
                "(score commits with --base, or on a server with score-diff pre-receive)"
            )
        return self.root

    def close(self) -> None:
        """Stop and reap every git call that was started and never collected (an error came first)."""
        while self._live:
            proc = self._live.pop()
            proc.kill()
            drain = self._drains.pop(proc, None)
            if drain is None:
                proc.communicate()
            else:  # its threads are the pipes' only readers: they end at the killed git's end of file
                drain.join()
                proc.wait()
                for pipe in (proc.stdout, proc.stderr):
                    if pipe is not None:
                        pipe.close()

    def _refuse_another_worktree(self, environ: Mapping[str, str], cwd: str) -> None:
        """git commits from $GIT_DIR and $GIT_WORK_TREE: scoring one tree while git commits
        another would score nothing."""
        claims = [
            ("GIT_DIR", environ.get("GIT_DIR", ""), self.git_dir),
            ("GIT_WORK_TREE", environ.get("GIT_WORK_TREE", ""), self.root or self.git_dir),
        ]
        for source, where, scored in claims:
            if where and os.path.realpath(os.path.join(cwd, where)) != os.path.realpath(scored):
                raise GitError(
                    f"{source} makes git use {os.path.realpath(where)}, not {scored}; score the "
                    "repository git commits to, or unset it"
                )

    # -- running git -------------------------------------------------------
    def start(
        self,
        *args: str,
        stdin: bool = False,
        literal: bool = False,
        env: Mapping[str, str] | None = None,
        index: str | None = None,
        cwd: str | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start git without waiting, so several calls and Python's own work overlap.

        `index` names a scratch index of the caller's own instead of the one git commits from;
        `cwd`, a directory of the caller's own (a temporary checkout) instead of the repository root.
        """
        import subprocess

        argv = ["git", *PINNED_ARGS, *(["--literal-pathspecs"] if literal else []), *args]
        env = self._env if env is None else env
        if index is not None:
            env = {**env, "GIT_INDEX_FILE": index}
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd or self.root,
                env=env,
                stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise GitError(f"could not run git: {exc.strerror or exc} (is git installed and on PATH?)") from exc
        # A 64 KiB pipe stops git as soon as it is full; started calls are collected only after the
        # manifest is validated, so without room git would wait for Python instead of working beside it.
        _grow_pipe(proc.stdout)
        self._live.append(proc)
        return proc

    def finish(self, proc: subprocess.Popen[bytes], stdin: bytes | None = None, ok: Sequence[int] = (0,)) -> bytes:
        """Wait for a started git call; raise GitError with its message unless it exited ok."""
        out, err = proc.communicate(stdin)
        self._forget(proc)
        _check(proc, err, ok)
        return out

    def _reap(self, proc: subprocess.Popen[bytes]) -> None:
        """Collect a started call whose answer is no longer wanted (an error came first)."""
        proc.communicate()
        self._forget(proc)

    def _forget(self, proc: subprocess.Popen[bytes]) -> None:
        if proc in self._live:
            self._live.remove(proc)

    def start_drained(self, *args: str, **options: Any) -> subprocess.Popen[bytes]:
        """`start`, with git's output read into memory from now on: a diff of many megabytes fills
        even a 1 MiB pipe at once, and git would then wait while Python validates the manifest.
        `stream` yields what was read meanwhile, and the rest as it comes."""
        proc = self.start(*args, **options)
        self._drains[proc] = _Drain(proc)
        return proc

    def stream(self, proc: subprocess.Popen[bytes], seen: Callable[[bytes], object]) -> Iterator[bytes]:
        """A started git call's output as it is written.

        Threads drain stdout and stderr (reading releases the GIL), so git never waits for
        Python: it computes the next files while Python parses and checks the last ones.
        """
        drain = self._drains.get(proc)
        if drain is None:
            drain = self._drains[proc] = _Drain(proc)
        while (chunk := drain.chunks.get()) is not None:
            seen(chunk)
            yield chunk
        proc.wait()
        drain.join()
        del self._drains[proc]
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
        self._forget(proc)
        if drain.broken:
            raise GitError(f"could not read git's output: {drain.broken[0]}")
        _check(proc, b"".join(drain.errors), (0,))

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        ok: Sequence[int] = (0,),
        literal: bool = False,
        env: Mapping[str, str] | None = None,
        index: str | None = None,
    ) -> bytes:
        from . import spawn  # no subprocess in a process with one thread (the command hook)

        argv = ["git", *PINNED_ARGS, *(["--literal-pathspecs"] if literal else []), *args]
        given = self._env if env is None else env
        if index is not None:
            given = {**given, "GIT_INDEX_FILE": index}
        try:  # a bare repository's call runs in our directory, as Popen's cwd=None runs it
            done = spawn.run(argv, self.root or ".", given, stdin)
        except spawn.Busy:  # other threads run (the sidecar, scoring): subprocess, as before
            proc = self.start(*args, stdin=stdin is not None, literal=literal, env=env, index=index)
            return self.finish(proc, stdin, ok)
        except OSError as exc:
            raise GitError(f"could not run git: {exc.strerror or exc} (is git installed and on PATH?)") from exc
        _check(done, done.stderr, ok)
        return done.stdout


class Batch:
    """A git process kept running that answers each line written to it with one line
    (`cat-file --batch-check`): a question in one pipe round trip instead of a process.

    Serialised with a lock. An answer must come within `timeout_s` and be exactly one line;
    anything else (git ended, a broken pipe, silence, more than was asked) stops the process
    and raises GitError, and the next question starts a new one. A process that had answered
    before is given one retry on a new process, since it may have died since.
    """

    def __init__(self, git: GitProcess, args: Sequence[str], timeout_s: float = 2.0) -> None:
        import threading

        self._git = git
        self._args = tuple(args)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self.timeout_s = timeout_s
        self.started = 0  # processes started (for tests)

    def ask(self, line: bytes) -> bytes:
        """git's one-line answer to `line`, without its newline."""
        if b"\n" in line:
            raise GitError(f"git {self._args[0]}: a question of one line was expected, not {line[:80]!r}")
        with self._lock:
            while True:
                fresh = self._proc is None
                if self._proc is None:
                    self._proc = self._git.start(*self._args, stdin=True)
                    self.started += 1
                try:
                    return self._exchange(self._proc, line)
                except (OSError, ValueError, GitError) as exc:
                    self._stop()
                    if fresh:
                        what = exc if isinstance(exc, GitError) else f"{type(exc).__name__}: {exc}"
                        raise GitError(f"git {' '.join(self._args)} did not answer: {what}") from exc

    def _exchange(self, proc: subprocess.Popen[bytes], line: bytes) -> bytes:
        import select
        import time

        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        fd, answer = proc.stdout.fileno(), b""
        until = time.monotonic() + self.timeout_s
        while not answer.endswith(b"\n"):
            left = until - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise GitError(f"no answer within {self.timeout_s:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise GitError(f"git ended (exit {proc.poll()})")
            answer += chunk
        if answer.count(b"\n") != 1:
            raise GitError(f"more than one line: {answer[:80]!r}")
        return answer[:-1]

    def _stop(self) -> None:
        self._proc = None
        self._git.close()  # kills and reaps it

    def close(self) -> None:
        with self._lock:
            self._stop()


def _quarantine(environ: Mapping[str, str], git_dir: str) -> frozenset[str]:
    """The quarantine variables that are set, each checked to name a directory inside this
    repository: receive-pack puts them there, and anything else is not git's doing."""
    inside = os.path.realpath(git_dir)
    for name in QUARANTINE_ENV:
        for where in filter(None, environ.get(name, "").split(os.pathsep)):
            real = os.path.realpath(where)
            if os.path.commonpath([real, inside]) != inside:
                raise GitError(
                    f"{name} names {where}, outside {git_dir}: git's own quarantine is always "
                    "inside the repository; unset it"
                )
    return frozenset(name for name in QUARANTINE_ENV if environ.get(name))


def _discover(where: str, environ: Mapping[str, str], head: list[str | None] | None = None) -> tuple[str, str, bool]:
    """(work tree, git dir, bare?) as git itself finds them from `where`. Given `head`, the same
    git call also resolves HEAD to a commit (`git rev-parse --verify -q HEAD^{commit}`, as
    `Repository.head` asks it) and appends the id, or None before the first commit."""
    import subprocess

    env = git_environment(environ, "", None)
    del env["GIT_DIR"]  # discovery from the directory, as `git commit` run there would do
    argv = [
        "git",
        *PINNED_ARGS,
        "rev-parse",
        "--path-format=absolute",
        "--absolute-git-dir",
        "--is-bare-repository",
        "--show-toplevel",
        *(("--verify", "-q", "HEAD^{commit}") if head is not None else ()),
    ]
    try:
        proc = subprocess.run(argv, cwd=where, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except OSError as exc:
        raise GitError(f"could not run git: {exc.strerror or exc} (is git installed and on PATH?)") from exc
    lines, code = proc.stdout.decode("utf-8", "surrogateescape").split("\n"), proc.returncode
    if head is not None and code in (0, 1) and len(lines) >= 3 and lines[1] == "false":
        head.append(_head_line(code, lines))
        lines, code = lines[:3], 0  # a working tree's three answers, read as they are without HEAD
    if code != 0 and len(lines) < 2:
        raise GitError(f"not a git repository: {where} (run inside a repository or pass --repo)")
    git_dir, bare = lines[0], lines[1] == "true"
    top = lines[2] if len(lines) > 2 and code == 0 else ""
    if not bare and not top:
        raise GitError(f"{where} is inside a git directory, not a working tree; run in the working tree")
    return top, git_dir, bare


def _head_line(returncode: int, lines: list[str]) -> str | None:
    """HEAD's commit from discovery's fourth line (git ends every line with a newline): exit 1 with
    nothing after the three answers is `--verify -q` finding no commit; anything else is refused."""
    rest = lines[3:]
    if returncode == 1 and rest == [""]:
        return None
    if returncode == 0 and len(rest) == 2 and rest[1] == "" and _is_object_id(rest[0]):
        return rest[0]
    raise GitError(f"git rev-parse answered {lines[3:5]!r} for HEAD while finding the repository")


def _is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


class _Drain:
    """Threads that read a started git call's stdout (in chunks, to a queue) and stderr."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        import queue
        import threading

        self._proc = proc
        self.chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()  # None: the end
        self.errors: list[bytes] = []
        self.broken: list[BaseException] = []
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._pump, self._err)]
        for thread in self._threads:
            thread.start()

    def _pump(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            while chunk := stdout.read1(1 << 20):  # type: ignore[attr-defined]
                self.chunks.put(chunk)
        except BaseException as exc:  # a half-read diff must never pass for a whole one
            self.broken.append(exc)
            self._proc.kill()
        finally:
            self.chunks.put(None)

    def _err(self) -> None:
        assert self._proc.stderr is not None
        self.errors.append(self._proc.stderr.read())

    def join(self) -> None:
        for thread in self._threads:
            thread.join()


def _grow_pipe(stream: Any) -> None:
    """A 1 MiB pipe lets git run ahead of the reader (Linux; elsewhere the default stays)."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError, ValueError):
        pass


def _check(proc: Any, err: bytes, ok: Sequence[int]) -> None:
    if proc.returncode not in ok:
        cmd = " ".join(str(a) for a in proc.args[len(PINNED_ARGS) + 1 :][:3])
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {cmd} failed: {message[-1] if message else f'exit {proc.returncode}'}")


def locate(path: str, environ: Mapping[str, str], timeout_s: float = 10.0) -> tuple[str, str]:
    """(working tree root, absolute git dir) of the repository holding `path`: one git call, no GitPython,
    for the guard that runs on every tool call. The environment is the one given, with git's
    answer-bending variables neutralised and GIT_DIR/GIT_WORK_TREE dropped so `path` decides."""
    import subprocess

    env = {k: v for k, v in environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", *_REFUSED_ENV)}
    env.update(_ENV_OVERRIDES)
    argv = ["git", *PINNED_ARGS, "rev-parse", "--show-toplevel", "--absolute-git-dir"]
    try:
        proc = subprocess.run(argv, cwd=path, env=env, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"could not run git in {path}: {exc}") from exc
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != 2:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"{path} is not inside a git working tree ({err[0] if err else 'no answer from git'})")
    return lines[0], lines[1]
