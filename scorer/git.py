"""All git access. The only module that knows git's flags; it pins every option that
user or repository config could change, and turns every git failure into GitError.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import queue
import re
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from . import files, gitparse, model
from .errors import GitError
from .model import AddedText, ChangedPath, Hunk, Inspection, Violation

Watch = Callable[[AddedText], object]  # sees each batch of added lines as it is parsed

# Config that would change what git reports, pinned on every call.
_PINNED = {
    "core.quotePath": "false",
    "core.fsmonitor": "false",
    "core.untrackedCache": "false",
    "core.ignoreStat": "false",
    "core.trustctime": "true",  # an edit with mtime restored still changes ctime
    "core.checkStat": "default",
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

DIFF_ARGS = (
    "--raw", "-p", "-U0", "-z", "-M",
    "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", "--submodule=short",
    "--src-prefix=a/", "--dst-prefix=b/", "--diff-algorithm=myers", "--inter-hunk-context=0",
    "--no-relative", "-O/dev/null", "--no-abbrev",  # full object ids: blob sizes are looked up by them
)
# Environment that would bend git's answers, neutralised (GitPython cannot unset variables).
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
_REFUSED_ENV = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE")
EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# Where git looks for a short ref name, in order (git help revisions); `$GIT_DIR/NAME` comes
# first, but only for all-caps names such as HEAD.
_REF_RULES = ("refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")
_REF_NAME_END = re.compile(r"[~^:]|@\{")
_FULL_ID = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")


class Repository:
    """One git repository, opened through GitPython."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        import git as gitpython

        for name in _REFUSED_ENV:
            if os.environ.get(name):
                raise GitError(f"{name} is set; unset it so git reads this repository's own objects")
        try:
            self._repo = gitpython.Repo(path, search_parent_directories=True)
        except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError) as exc:
            raise GitError(f"not a git repository: {path} (run inside a repository or pass --repo)") from exc
        if self._repo.bare or not self._repo.working_tree_dir:
            raise GitError(f"{path} is a bare repository; score-diff needs a working tree")
        self.root = str(self._repo.working_tree_dir)
        self.git_dir = str(self._repo.git_dir)
        self._refuse_another_worktree()
        self._env = {**_ENV_OVERRIDES, "GIT_DIR": self.git_dir, "GIT_WORK_TREE": self.root}

    def _refuse_another_worktree(self) -> None:
        """git commits from $GIT_DIR, core.worktree and $GIT_WORK_TREE; GitPython may settle on other
        directories, and scoring one tree while git commits another would score nothing."""
        try:
            configured = str(self._repo.config_reader("repository").get_value("core", "worktree", ""))
        except Exception:  # an unreadable config: git itself says so on the first call
            configured = ""
        claims = [("GIT_DIR", os.environ.get("GIT_DIR", ""), self.git_dir),  # relative to the current directory
                  ("GIT_WORK_TREE", os.environ.get("GIT_WORK_TREE", ""), self.root)]
        if configured:  # relative to the git directory
            claims.append(("core.worktree", os.path.join(self.git_dir, configured), self.root))
        for source, where, scored in claims:
            if where and os.path.realpath(where) != os.path.realpath(scored):
                raise GitError(f"{source} makes git use {os.path.realpath(where)}, not {scored}; score the "
                               "repository git commits to, or unset it")

    # -- running git -------------------------------------------------------
    def start(self, *args: str, stdin: bool = False, literal: bool = False) -> Any:
        """Start git without waiting, so several calls and Python's own work overlap."""
        argv = ["git", *PINNED_ARGS, *(["--literal-pathspecs"] if literal else []), *args]
        try:
            return self._repo.git.execute(
                argv, as_process=True, istream=subprocess.PIPE if stdin else None, env=self._env
            )
        except Exception as exc:
            raise GitError(f"could not run git: {exc}") from exc

    def finish(self, handle: Any, stdin: bytes | None = None, ok: Sequence[int] = (0,)) -> bytes:
        """Wait for a started git call; raise GitError with its message unless it exited ok."""
        proc = handle.proc
        out, err = proc.communicate(stdin)
        _check(proc, err, ok)
        return bytes(out)

    def stream(self, handle: Any, seen: Callable[[bytes], object]) -> Iterator[bytes]:
        """A started git call's output as it is written.

        Threads drain stdout and stderr (reading releases the GIL), so git never waits for
        Python: it computes the next files while Python parses and checks the last ones.
        """
        proc = handle.proc
        _grow_pipe(proc.stdout)
        chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        errors: list[bytes] = []
        broken: list[BaseException] = []

        def pump() -> None:
            try:
                while chunk := proc.stdout.read1(1 << 20):
                    chunks.put(chunk)
            except BaseException as exc:  # a half-read diff must never pass for a whole one
                broken.append(exc)
                proc.kill()
            finally:
                chunks.put(None)

        threads = [threading.Thread(target=pump, daemon=True),
                   threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)]
        for thread in threads:
            thread.start()
        while (chunk := chunks.get()) is not None:
            seen(chunk)
            yield chunk
        proc.wait()
        for thread in threads:
            thread.join()
        if broken:
            raise GitError(f"could not read git's output: {broken[0]}")
        _check(proc, b"".join(errors), (0,))

    def run(self, *args: str, stdin: bytes | None = None, ok: Sequence[int] = (0,), literal: bool = False) -> bytes:
        return self.finish(self.start(*args, stdin=stdin is not None, literal=literal), stdin, ok)

    # -- refs ----------------------------------------------------------------
    def head(self) -> str | None:
        """Commit id of HEAD, or None in a repository with no commits yet."""
        try:  # GitPython reads the ref files itself: no process to start on every commit
            # (head.is_valid() would start `git cat-file --batch-check` to look at the object)
            from git.refs.symbolic import SymbolicReference

            sha = str(SymbolicReference.dereference_recursive(self._repo, "HEAD"))
            if len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha):
                return sha
        except Exception:  # noqa: S110 - unborn HEAD, or ref formats GitPython cannot read: ask git
            pass
        out = self.run("rev-parse", "--verify", "-q", "HEAD^{commit}", ok=(0, 1))
        return out.decode().strip() or None

    def branch(self) -> str | None:
        """Current branch name, or None when HEAD is detached."""
        try:
            head = self._repo.head
            if head.is_detached:
                return None
            name = head.reference.path
            if name.startswith("refs/heads/"):
                return str(name[len("refs/heads/") :])
        except Exception:  # noqa: S110 - ask git instead
            pass
        out = self.run("symbolic-ref", "-q", "--short", "HEAD", ok=(0, 1))
        return out.decode("utf-8", "replace").strip() or None

    def resolve(self, ref: str) -> str:
        meanings = self._ref_meanings(ref)
        if len(meanings) > 1:
            raise GitError(f"{ref!r} is ambiguous ({', '.join(meanings)}): git would silently pick one, and a "
                           "pushed tag can win over the branch; pass a full ref name such as refs/heads/main "
                           "or a full commit id")
        out = self.run("rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", ok=(0, 1))
        if not out.strip():
            raise GitError(f"{ref!r} is not a commit in this repository (fetch it, or fetch with full history)")
        return out.decode().strip()

    def _ref_meanings(self, ref: str) -> list[str]:
        """Everything the name at the start of `ref` could mean to git: a tag `main` beats the branch
        `main`, and any ref beats an abbreviated commit id, so a ref the agent pushed could move --base."""
        name = _REF_NAME_END.split(ref, maxsplit=1)[0]
        if not name or _FULL_ID.fullmatch(name):  # a full commit id always means itself
            return []
        wanted = {rule.format(name) for rule in _REF_RULES} | ({name} if name.startswith("refs/") else set())
        out = self.run("for-each-ref", "--format=%(refname)", *sorted(wanted))
        found = sorted(set(out.decode("utf-8", "replace").splitlines()) & wanted)
        if re.fullmatch(r"[A-Z_]+", name) and os.path.isfile(os.path.join(self.git_dir, name)):
            found.insert(0, name)  # HEAD, FETCH_HEAD, ...
        if found and re.fullmatch(r"[0-9a-fA-F]{4,}", name):
            found.append("an abbreviated commit id")
        return found

    def merge_base(self, base: str, head: str) -> str:
        out = self.run("merge-base", base, head, ok=(0, 1))
        if not out.strip():
            raise GitError(f"{base} and {head} have no common ancestor (fetch full history: fetch-depth 0)")
        return out.decode().strip()

    def _empty_tree(self) -> str:
        return self.run("hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip() or EMPTY_TREE_SHA1

    # -- files at a revision ---------------------------------------------------
    def read_file(self, rev: str | None, path: str) -> bytes | None:
        """A file's bytes at `rev`, or in the working tree when rev is None; None if absent.

        Never follows a symlink: a symlink (in git or on disk) reads as absent.
        """
        if rev is None:
            return files.read_worktree_file(self.root, path)
        out = self.run("ls-tree", "-z", "--full-tree", rev, "--", path, literal=True)
        fields = out.rstrip(b"\0").split(b"\t", 1)[0].split()
        if len(fields) != 3 or fields[1] != b"blob" or fields[0] == gitparse.SYMLINK_MODE.encode():
            return None
        return self.run("cat-file", "blob", fields[2].decode())

    def display_diff(self, base: str, head: str) -> str:
        """`git diff --stat` and the patch, for a person to read after a PASS."""
        plain = ("--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", "-M")
        stat = self.run("diff", "--stat", *plain, base, head)
        patch = self.run("diff", *plain, "--src-prefix=a/", "--dst-prefix=b/", base, head)
        return (stat + b"\n" + patch).decode("utf-8", "replace")

    def commit_messages(self, base: str, head: str) -> list[str]:
        out = self.run("log", "--format=%B%x00", f"{base}..{head}", "--")
        return [m.decode("utf-8", "replace") for m in out.split(b"\0") if m.strip()]

    # -- inspection ----------------------------------------------------------
    def inspect_worktree(self, watch: Watch | None = None) -> Inspection:
        """Everything that differs from HEAD: staged, unstaged and untracked."""
        return self.start_worktree()(watch)

    def start_worktree(self) -> Callable[[Watch | None], Inspection]:
        """Start the git calls now; the returned function collects them into an Inspection.

        git works while the caller imports and validates the manifest. `watch`, if given,
        sees every added line exactly once, a batch at a time, while git is still writing.
        """
        head = self.head()
        old = head or self._empty_tree()
        diff = self.start("diff", old, *DIFF_ARGS)
        # What `git commit` records is the index: a staged version that differs from the
        # working tree (staged, then reverted on disk) would be committed unscored.
        index_state = self.start("status", "--porcelain=v2", "-z", "--untracked-files=no", "--no-renames",
                                 "--ignore-submodules=dirty")
        listing = self.start("ls-files", "-z", "-v", "-c", "-o", "--exclude-per-directory=.gitignore")
        ignored = self.start("ls-files", "-z", "-o", "-i", "--directory", "--exclude-per-directory=.gitignore")
        filters = self.start("config", "-z", "--get-regexp", r"^filter\..*\.(clean|process)$")
        branch = self.branch()

        def finish(watch: Watch | None = None) -> Inspection:
            pieces, digest = gitparse.Pieces(), hashlib.sha256()
            found, _ = self._changes(diff, head, None, pieces, digest, watch)
            changes = [self._with_worktree_facts(c) for c in found]
            untracked, flagged = gitparse.parse_ls_files_v(self.finish(listing))
            unreadable: list[Violation] = []
            changes += [self._untracked(p, pieces, digest, unreadable) for p in untracked]
            anomalies = self._flag_anomalies(flagged) + unreadable
            unmerged = {path for tag, path in flagged if tag == "M"}
            anomalies += _unscored_index(gitparse.partially_staged(self.finish(index_state)), unmerged)
            anomalies += _ignored_gitignores(gitparse.split_z(self.finish(ignored)))
            anomalies += _filter_drivers(self.finish(filters, ok=(0, 1)))
            if watch is not None:
                watch(pieces.take_new())  # the untracked files
            return Inspection(
                mode="worktree", repo_root=self.root, head=head, branch=branch,
                changed=tuple(changes), added=pieces.build(), anomalies=tuple(anomalies),
                change_digest=digest.hexdigest(),
            )

        return finish

    def inspect_range(
        self, base: str, head: str | None, need_sizes: bool = False, watch: Watch | None = None
    ) -> Inspection:
        """The commits from the merge-base of base and head to head."""
        head_sha = self.resolve(head or "HEAD")
        base_sha = self.merge_base(self.resolve(base), head_sha)
        pieces, digest = gitparse.Pieces(), hashlib.sha256()
        changes, entries = self._changes(self.start("diff", base_sha, head_sha, *DIFF_ARGS), base_sha, head_sha,
                                         pieces, digest, watch)
        changes = self._with_link_targets(changes, entries)
        if need_sizes:
            changes = self._with_blob_sizes(changes, entries)
        return Inspection(
            mode="range", repo_root=self.root, head=head_sha, base=base_sha, branch=self.branch(),
            changed=tuple(changes), added=pieces.build(), change_digest=digest.hexdigest(),
        )

    def _changes(
        self, diff: Any, old: str | None, new: str | None, pieces: gitparse.Pieces, digest: Any,
        watch: Watch | None = None,
    ) -> tuple[list[ChangedPath], list[gitparse.RawEntry]]:
        """Parse the started diff as it streams; then look again at what git called binary."""
        changes: list[ChangedPath] = []
        entries: list[gitparse.RawEntry] = []
        for part in gitparse.stream_diff(self.stream(diff, digest.update)):
            changes += gitparse.to_changes(part, pieces)
            entries += part.entries
            if watch is not None:
                watch(pieces.take_new())
        suspect = [i for i, (e, c) in enumerate(zip(entries, changes, strict=False)) if c.binary and _plain_file(e)]
        if suspect:
            # git said "binary": maybe it is, maybe .gitattributes says `-diff` to hide the lines.
            subset = [entries[i] for i in suspect]
            paths = sorted({p for e in subset for p in (e.path, e.old_path) if p})
            revs = [old or self._empty_tree()] + ([new] if new else [])
            text = gitparse.parse_diff(self.run("diff", *revs, *DIFF_ARGS, "--text", "--", *paths, literal=True))
            binary_only = gitparse.DiffOutput(subset, "", [(0, 0)] * len(subset), [True] * len(subset))
            for i, change in zip(suspect, gitparse.to_changes(binary_only, pieces, text), strict=False):
                changes[i] = change
            if watch is not None:
                watch(pieces.take_new())
        return changes, entries

    def _with_worktree_facts(self, change: ChangedPath) -> ChangedPath:
        if change.status == model.DELETED:
            return change
        try:
            st = os.lstat(os.path.join(self.root, change.path))
        except OSError:
            return change
        target = files.readlink(self.root, change.path) if change.symlink else None
        return change._replace(size=st.st_size, symlink_target=target)

    def _with_link_targets(self, changes: list[ChangedPath], entries: list[gitparse.RawEntry]) -> list[ChangedPath]:
        """A symlink's target is its whole blob: -U0 shows only the lines of it that changed."""
        return [
            c._replace(symlink_target=os.fsdecode(self.run("cat-file", "blob", e.new_sha)))
            if c.symlink and e.new_mode == gitparse.SYMLINK_MODE else c
            for c, e in zip(changes, entries, strict=True)
        ]

    def _with_blob_sizes(self, changes: list[ChangedPath], entries: list[gitparse.RawEntry]) -> list[ChangedPath]:
        shas = [e.new_sha for e in entries]
        wanted = [s for s in shas if set(s) != {"0"}]
        if not wanted:
            return changes
        batch = "\n".join(wanted).encode() + b"\n"
        out = self.run("cat-file", "--batch-check=%(objectname) %(objectsize)", stdin=batch)
        sizes = dict(line.split() for line in out.decode().splitlines() if len(line.split()) == 2)
        return [c._replace(size=int(sizes[s]) if s in sizes else None) for c, s in zip(changes, shas, strict=False)]

    def _untracked(self, path: str, pieces: gitparse.Pieces, digest: Any, problems: list[Violation]) -> ChangedPath:
        if path.endswith("/"):  # an untracked nested repository: git lists only its directory
            return ChangedPath(path=path.rstrip("/"), status=model.ADDED, untracked=True, submodule=True)
        content = files.read_untracked(self.root, path)
        if content.error:
            problems.append(Violation("hidden-change", f"cannot read this untracked file ({content.error}), so "
                                      "its content could not be checked; make it readable or remove it", path))
        digest.update(os.fsencode(path) + b"\0" + hashlib.sha256(content.data).digest())
        if content.link is not None:
            pieces.add(path, 1, content.link)
            return ChangedPath(path=path, status=model.ADDED, untracked=True, symlink=True, added=1,
                               hunks=(Hunk(0, 0, 1, 1),), size=content.size, symlink_target=content.link,
                               new_mode=gitparse.SYMLINK_MODE)
        if content.binary:
            return ChangedPath(path=path, status=model.ADDED, untracked=True, binary=True, size=content.size)
        text = content.data.decode("utf-8", errors="replace")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        pieces.add(path, 1, text)
        return ChangedPath(path=path, status=model.ADDED, untracked=True, added=lines,
                           hunks=(Hunk(0, 0, 1, lines),) if lines else (), size=content.size)

    def _flag_anomalies(self, flagged: list[tuple[str, str]]) -> list[Violation]:
        found: dict[str, Violation] = {}
        hidden = []
        for tag, path in flagged:
            if tag == "M":
                found[path] = Violation("unmerged", "unresolved merge conflict in the index", path)
            elif tag == "S" or tag.islower():
                hidden.append((tag, path))
        found.update({v.path or "": v for v in self._hidden_by_flags(hidden)})
        return list(found.values())

    def _hidden_by_flags(self, flagged: list[tuple[str, str]]) -> list[Violation]:
        """assume-unchanged / skip-worktree tell git not to look; look anyway."""
        if not flagged:
            return []
        paths = [p for _, p in flagged]
        index = {}
        for rec in self.run("ls-files", "-s", "-z", "--", *paths, literal=True).split(b"\0"):
            if b"\t" in rec:
                meta, name = rec.split(b"\t", 1)
                mode, sha = meta.decode().split()[:2]
                index[os.fsdecode(name)] = (mode, sha)
        actual = self._on_disk(paths, index)
        problems = []
        for tag, path in flagged:
            flag = "skip-worktree" if tag == "S" else "assume-unchanged"
            if path not in actual and flag == "skip-worktree":
                continue  # sparse checkout: absent on purpose
            if actual.get(path) != index.get(path):
                problems.append(Violation("hidden-change", f"the index flag {flag} hides a change to this file "
                                          f"(clear it: git update-index --no-{flag} -- <path>)", path))
        return problems

    def _on_disk(
        self, paths: list[str], index: dict[str, tuple[str, str]]
    ) -> dict[str, tuple[str, str | None]]:
        """(mode, blob id) of each path present on disk, as git would record it, never following a symlink."""
        modes = {p: st.st_mode for p in paths if (st := files.lstat(os.path.join(self.root, p))) is not None}
        # Hash only regular files: git would follow a symlink (to /dev/zero, and hang) or block on a FIFO.
        regular = [p for p, mode in modes.items() if stat.S_ISREG(mode)]
        out = self.run("hash-object", "--no-filters", "--stdin-paths",
                       stdin=b"".join(_c_quoted(p) + b"\n" for p in regular)) if regular else b""
        shas = out.decode().split()
        found: dict[str, tuple[str, str | None]] = {
            p: ("100755" if modes[p] & stat.S_IXUSR else "100644", sha)
            for p, sha in zip(regular, shas, strict=True)
        }
        for p, mode in modes.items():
            if stat.S_ISLNK(mode):
                target = os.readlink(os.fsencode(os.path.join(self.root, p)))
                found[p] = (gitparse.SYMLINK_MODE, _blob_id(target, index.get(p, ("", ""))[1]))
            found.setdefault(p, (oct(mode), None))  # a directory, FIFO or device is never the indexed blob
        return found


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


def _c_quoted(path: str) -> bytes:
    """A path in git's C quoting, which `--stdin-paths` reads back exactly (newlines, a leading quote)."""
    out = bytearray(b'"')
    for byte in os.fsencode(path):
        if byte in b'"\\':
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte >= 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


def _blob_id(data: bytes, like: str) -> str:
    """git's object id for a blob of `data`, in the hash the repository uses (as long as `like`)."""
    algo = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()


def _plain_file(entry: gitparse.RawEntry) -> bool:
    modes = (entry.old_mode, entry.new_mode)
    return gitparse.SYMLINK_MODE not in modes and gitparse.GITLINK_MODE not in modes


def _ignored_gitignores(ignored: list[str]) -> list[Violation]:
    return [
        Violation("hidden-change", "an untracked .gitignore that ignores itself hides the files it lists; "
                  "remove it or commit the ignore rule", path)
        for path in ignored if posixpath.basename(path.rstrip("/")) == ".gitignore"
    ]


def _unscored_index(both: list[str], unmerged: set[str]) -> list[Violation]:
    """Paths whose staged version differs from the working tree: the commit would not be what was scored."""
    return [
        Violation("hidden-change", "the index holds a staged version that differs from the working tree, so "
                  "git commit would record content that was not scored; stage it (git add) or unstage it "
                  "(git restore --staged)", path)
        for path in sorted(set(both) - unmerged)
    ]


def _filter_drivers(out: bytes) -> list[Violation]:
    """Clean filters rewrite content before git compares it; only git-lfs is trusted."""
    problems = []
    for record in out.split(b"\0"):
        key, _, value = record.decode("utf-8", "replace").partition("\n")
        if key and not value.strip().startswith("git-lfs "):
            problems.append(Violation("hidden-change", f"git config sets {key}={value!r}: a clean filter can "
                                      "rewrite file content before git compares it; remove it", None))
    return problems
