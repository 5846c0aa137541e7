"""What score-diff asks git, and how: every git query score-diff makes, with its flags.

Long because it is that table: refs, trees, diffs, the index, attributes, files at a
revision, commit messages, merges. Each is one git call started through
`scorer.inspection.gitprocess` (the process, its pinned config and environment, its
errors); gitparse reads the NUL-separated output of the ones that need parsing.
"""

from __future__ import annotations

import os

from ..errors import GitError
from ..lazy_re import MULTILINE, LazyPattern
from ..records import NamedTuple
from .gitprocess import PINNED_ARGS, QUARANTINE_ENV, GitProcess, git_environment, locate
from .trees import TreeReader

TYPE_CHECKING = False  # typing's, without importing typing on the guard's path (issue 29)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence

__all__ = [
    "DIFF_ARGS",
    "PINNED_ARGS",
    "QUARANTINE_ENV",
    "Repository",
    "blob_id",
    "cut_at_scissors",
    "git_environment",
    "locate",
]

# gitparse is imported where it is used: the guard's one call (locate) never parses git output.

DIFF_ARGS = (
    "--raw",
    "-p",
    "-U0",
    "-z",
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=none",
    "--submodule=short",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--diff-algorithm=myers",
    "--inter-hunk-context=0",
    "--no-relative",
    "-O/dev/null",
    "--no-abbrev",  # full object ids: blob sizes are looked up by them
)
EMPTY_TREE_SHA1 = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# Where git looks for a short ref name, in order (git help revisions); `$GIT_DIR/NAME` comes
# first, but only for all-caps names such as HEAD.
_REF_RULES = ("refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")
# Compiled where first used: the guard reads its fence from HEAD through this module (issue 29).
_REF_NAME_END = LazyPattern(r"[~^:]|@\{")
_FULL_ID = LazyPattern(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
_REF_WORD = LazyPattern(r"[A-Z_]+")
_SHORT_ID = LazyPattern(r"[0-9a-fA-F]{4,}")


class WorktreeCalls(NamedTuple):
    """`Repository.start_worktree_calls`, started; `changes.start_worktree` collects them."""

    old: str  # what the working tree is compared with: --since's merge-base, HEAD, or the empty tree
    diff: subprocess.Popen[bytes]
    # What `git commit` records is the index: a staged version that differs from the
    # working tree (staged, then reverted on disk) would be committed unscored.
    index_state: subprocess.Popen[bytes]
    listing: subprocess.Popen[bytes]
    ignored: subprocess.Popen[bytes]
    filters: subprocess.Popen[bytes]


class Repository(TreeReader):
    """One git repository; every question about it is answered by a git process.

    A bare repository (a git server's) has no working tree: `root` is None, and only commits
    can be scored.
    """

    # -- refs ----------------------------------------------------------------
    def head(self) -> str | None:
        """Commit id of HEAD, or None in a repository with no commits yet."""
        out = self.run("rev-parse", "--verify", "-q", "HEAD^{commit}", ok=(0, 1))
        return out.decode().strip() or None

    def resolve(self, ref: str) -> str:
        # git resolves the name while the refs it could mean are listed: two questions, one wait
        verify = self.start("rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}")
        try:
            meanings = self._ref_meanings(ref)
        except BaseException:
            self._reap(verify)
            raise
        if len(meanings) > 1:
            self._reap(verify)
            raise GitError(
                f"{ref!r} is ambiguous ({', '.join(meanings)}): git would silently pick one, and a "
                "pushed tag can win over the branch; pass a full ref name such as refs/heads/main "
                "or a full commit id"
            )
        out = self.finish(verify, ok=(0, 1))
        if not out.strip():
            raise GitError(
                f"{ref!r} is not a commit in this repository{self._remote_hint(ref)} "
                "(fetch it, or fetch with full history)"
            )
        return out.decode().strip()

    def _remote_hint(self, ref: str) -> str:
        """A fresh clone (CI's checkout) has `origin/main` but no `main`: name the remote-tracking ref."""
        name = _REF_NAME_END.split(ref, 1)[0]
        if not name or name.startswith("refs/") or _FULL_ID.fullmatch(name):
            return ""
        out = self.run("for-each-ref", "--format=%(refname:short)", f"refs/remotes/*/{name}")
        remotes = [r for r in out.decode("utf-8", "replace").splitlines() if r]
        if not remotes:
            return ""
        rest = ref[len(name) :]
        return (
            f"; this clone has only the remote-tracking {' and '.join(remotes)}: pass --base "
            f"{remotes[0]}{rest}, or create the branch with git fetch {remotes[0].split('/')[0]} {name}:{name}"
        )

    def _ref_meanings(self, ref: str) -> list[str]:
        """Everything the name at the start of `ref` could mean to git: a tag `main` beats the branch
        `main`, and any ref beats an abbreviated commit id, so a ref the agent pushed could move --base."""
        name = _REF_NAME_END.split(ref, 1)[0]
        if not name or _FULL_ID.fullmatch(name):  # a full commit id always means itself
            return []
        wanted = {rule.format(name) for rule in _REF_RULES} | ({name} if name.startswith("refs/") else set())
        out = self.run("for-each-ref", "--format=%(refname)", *sorted(wanted))
        found = sorted(set(out.decode("utf-8", "replace").splitlines()) & wanted)
        if _REF_WORD.fullmatch(name) and os.path.isfile(os.path.join(self.git_dir, name)):
            found.insert(0, name)  # HEAD, FETCH_HEAD, ...
        if found and _SHORT_ID.fullmatch(name):
            found.append("an abbreviated commit id")
        return found

    def names_under(self, rev: str, directory: str) -> list[str]:
        """Repo-relative paths of the files in `directory` at `rev` (not recursing; empty when it is absent)."""
        from . import gitparse

        out = self.run(
            "ls-tree", "-z", "--name-only", "--full-tree", rev, "--", directory.rstrip("/") + "/", literal=True
        )
        return gitparse.split_z(out)

    def files_at(self, rev: str) -> list[str]:
        """Repo-relative paths of every file in `rev`'s tree (the base's tests, for the cheat checks)."""
        from . import gitparse

        return gitparse.split_z(self.run("ls-tree", "-r", "-z", "--name-only", "--full-tree", rev))

    def refs_named(self, patterns: Sequence[str]) -> list[str]:
        """Full names of the refs matching any of `patterns` (for-each-ref's own matching)."""
        out = self.run("for-each-ref", "--format=%(refname)", *patterns)
        return [r for r in out.decode("utf-8", "replace").splitlines() if r]

    def default_branch(self) -> str | None:
        """The branch agents start from: origin's default branch (`refs/remotes/origin/HEAD`, as a
        clone records it), else a local `main` or `master`; a local branch of that name is named
        over its remote-tracking copy (the fence is committed there first). None when none exists."""
        out = self.run("symbolic-ref", "-q", "refs/remotes/origin/HEAD", ok=(0, 1))
        remote = out.decode("utf-8", "replace").strip().removeprefix("refs/remotes/")
        names = [remote.split("/", 1)[1]] if "/" in remote else []
        have = set(self.refs_named([f"refs/heads/{n}" for n in (*names, "main", "master")]))
        for name in (*names, "main", "master"):
            if f"refs/heads/{name}" in have:
                return name
        return remote or None

    def check_out_into(self, commit: str, tree: str, index_file: str) -> None:
        """Write `commit`'s files into the empty directory `tree` through a temporary index file: no
        ref, no worktree entry and no index of the repository's own changes (inside pre-receive git
        forbids ref updates, git-receive-pack(1) "QUARANTINE ENVIRONMENT", so `git worktree add` is out)."""
        env = {**self._env, "GIT_INDEX_FILE": index_file, "GIT_WORK_TREE": tree}
        self.finish(self.start("read-tree", f"{commit}^{{tree}}", env=env))
        # -u records each file's stat data, so switch_checkout can tell what a run changed
        self.finish(self.start("checkout-index", "-u", "--all", "--force", env=env))

    def switch_checkout(self, tree: str, work_tree: str, index_file: str) -> None:
        """Make the checkout `work_tree` (made by check_out_into with `index_file`) hold exactly `tree`,
        whatever a run left in it: what it created is removed (ignored files too), what it changed or
        deleted is written again, and only the paths that differ between the two trees are rewritten."""
        env = {**self._env, "GIT_INDEX_FILE": index_file, "GIT_WORK_TREE": work_tree}
        self.finish(self.start("clean", "-ffdxq", env=env, cwd=work_tree))
        self.finish(self.start("read-tree", "--reset", "-u", f"{tree}^{{tree}}", env=env, cwd=work_tree))
        stale = self.finish(self.start("diff-files", "-z", "--name-only", env=env, cwd=work_tree))
        if stale:
            proc = self.start("checkout-index", "-u", "-f", "-z", "--stdin", stdin=True, env=env, cwd=work_tree)
            self.finish(proc, stale)

    def tree_of_checkout(self, work_tree: str, index_file: str) -> str:
        """The tree id of every file in the checkout `work_tree` (ignored ones too), each hashed
        afresh into the new index `index_file`: no stat data of an earlier index is trusted."""
        env = {**self._env, "GIT_INDEX_FILE": index_file, "GIT_WORK_TREE": work_tree}
        self.finish(self.start("add", "--all", "--force", "--", ".", env=env, cwd=work_tree))
        return self.finish(self.start("write-tree", env=env, cwd=work_tree)).decode().strip()

    def tree_of_worktree(self, head: str | None, paths: Sequence[str], index_file: str) -> str:
        """The tree id of HEAD with each of `paths` as the working tree holds it now (absent: removed),
        built in the scratch index `index_file`, as `git add` would store it: the repository's own
        index is not touched. The blobs are written to the object store (`git add` writes the same)."""
        self.run("read-tree", *([f"{head}^{{tree}}"] if head else ["--empty"]), index=index_file)
        if paths:
            stdin = b"".join(os.fsencode(p) + b"\0" for p in paths)
            self.run("update-index", "--add", "--remove", "--replace", "-z", "--stdin", stdin=stdin, index=index_file)
        return self.run("write-tree", index=index_file).decode().strip()

    def index_tree(self) -> str | None:
        """The tree id of the index (in a commit hook, the one $GIT_INDEX_FILE names), as `git commit`
        builds it: `git write-tree`; None when it cannot be one tree (unmerged entries)."""
        out = self.run("write-tree", ok=(0, 128))
        return out.decode().strip() or None

    def tree_id(self, rev: str) -> str:
        """The full id of `rev`'s tree (a commit id or a tree id)."""
        return self.run("rev-parse", "--verify", "--end-of-options", f"{rev}^{{tree}}").decode().strip()

    def tree_listing(self, tree: str) -> dict[str, tuple[str, str]]:
        """{path: (mode, object id)} of every file, link and submodule of `tree`, recursively."""
        out = self.run("ls-tree", "-r", "-z", "--full-tree", tree)
        found = {}
        for rec in out.split(b"\0"):
            meta, tab, name = rec.partition(b"\t")
            if tab and len(fields := meta.decode("ascii", "replace").split()) == 3:
                found[os.fsdecode(name)] = (fields[0], fields[2])
        return found

    def tree_with(self, tree: str, entries: Mapping[str, tuple[str, str] | None], index_file: str) -> str:
        """The tree id of `tree` with each path of `entries` set to (mode, object id), or removed
        where None; through the scratch index `index_file`."""
        self.run("read-tree", f"{tree}^{{tree}}", index=index_file)
        zero = "0" * len(tree)  # a full object id: its length is the repository's hash's
        records = b"".join(
            (f"{e[0]} {e[1]}" if e else f"0 {zero}").encode() + b"\t" + os.fsencode(p) + b"\0"
            for p, e in entries.items()
        )
        if records:
            self.run("update-index", "-z", "--index-info", stdin=records, index=index_file)
        return self.run("write-tree", index=index_file).decode().strip()

    def hooks_dir(self) -> str:
        """Where git looks for this repository's hooks (core.hooksPath, or hooks/ in the git dir)."""
        return self.run("rev-parse", "--path-format=absolute", "--git-path", "hooks").decode().strip()

    def file_names(self) -> list[str]:
        """Tracked and untracked, not ignored, files of the working tree (a starter manifest reads them)."""
        from . import gitparse

        return gitparse.split_z(self.run("ls-files", "-z", "-c", "-o", "--exclude-standard"))

    def merge_base(self, base: str, head: str) -> str:
        out = self.run("merge-base", base, head, ok=(0, 1))
        if not out.strip():
            raise GitError(f"{base} and {head} have no common ancestor (fetch full history: fetch-depth 0)")
        return out.decode().strip()

    def merge_tree(self, ours: str, theirs: str) -> tuple[str, list[str]]:
        """(tree, conflicted paths) of merging `theirs` into `ours`, as `git merge` would make it,
        computed without a working tree or index (`merge-tree --write-tree`, git 2.38+): the merge's
        own virtual base, so several merge-bases (a criss-cross) are merged the way git merges them.
        The options that decide where a merge puts a file are pinned to git's defaults."""
        proc = self.start(
            *("-c", "merge.renames=true", "-c", "merge.directoryRenames=conflict", "-c", "merge.renormalize=false"),
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            "-z",
            ours,
            theirs,
        )
        out = self.finish(proc, ok=(0, 1))
        tree, *paths = out.split(b"\0")
        if not _FULL_ID.fullmatch(tree.decode("ascii", "replace")):
            raise GitError(f"git merge-tree wrote no tree for {ours} and {theirs} (git 2.38 or later is needed)")
        conflicted = sorted({os.fsdecode(p) for p in paths if p})
        if proc.returncode == 1 and not conflicted:
            raise GitError(f"git merge-tree reported a conflict between {ours} and {theirs} but named no path")
        return tree.decode("ascii"), conflicted

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor)."""
        proc = self.start("merge-base", "--is-ancestor", ancestor, descendant)
        self.finish(proc, ok=(0, 1))
        return proc.returncode == 0

    def empty_tree(self) -> str:
        return self.run("hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip() or EMPTY_TREE_SHA1

    # -- what changed: each started here, parsed by gitparse, judged by nobody here --
    def start_diff(
        self,
        old: str,
        new: str | None = None,
        paths: Sequence[str] | None = None,
        cached: bool = False,
        index: str | None = None,
    ) -> subprocess.Popen[bytes]:
        """The raw + -U0 patch diff of `old` against `new` (or the working tree, or with `cached`
        the index: what `git commit` records), for every path or only `paths`."""
        revs = ["--cached", old] if cached else [old, *([new] if new else [])]
        where = ["--", *paths] if paths is not None else []
        return self.start_drained("diff", *revs, *DIFF_ARGS, *where, literal=paths is not None, index=index)

    def diff_as_text(self, old: str, new: str | None, paths: Sequence[str], index: str | None = None) -> bytes:
        """The same diff for `paths`, with git's binary guess (and `-diff` attributes) overridden.

        With `index` (a scratch index), of the index's blobs rather than the working tree's files.
        """
        revs = ["--cached", old] if index else [old, *([new] if new else [])]
        return self.run("diff", *revs, *DIFF_ARGS, "--text", "--", *paths, literal=True, index=index)

    def start_worktree_calls(self, old: str) -> WorktreeCalls:
        """The git calls of a working tree's inspection that need nothing but the commit `old` it
        is compared with, the diff (git's longest answer) first: a caller can start them before it
        imports the rest of the inspection and the manifest's readers (`changes.start_worktree`)."""
        diff = self.start_diff(old)
        return WorktreeCalls(
            old, diff, self.start_index_state(), self.start_listing(), self.start_ignored(), self.start_filter_config()
        )

    def start_index_state(self) -> subprocess.Popen[bytes]:
        """Per-path index vs HEAD vs working tree (porcelain v2), to find staged-only versions; and
        the branch (`gitparse.status_branch`), without counting commits against its upstream."""
        return self.start(
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--no-ahead-behind",
            "--untracked-files=no",
            "--no-renames",
            "--ignore-submodules=dirty",
        )

    def start_listing(self) -> subprocess.Popen[bytes]:
        """Tracked files with their index flags, and untracked files."""
        return self.start("ls-files", "-z", "-v", "-c", "-o", "--exclude-per-directory=.gitignore")

    def start_index_records(self) -> subprocess.Popen[bytes]:
        """Every index entry by content: tag (flags), mode, object id, stage, path; no stat data."""
        return self.start("ls-files", "-s", "-v", "-z")

    def start_status_all(self) -> subprocess.Popen[bytes]:
        """HEAD, the branch, and every changed or untracked path, untracked directories expanded."""
        return self.start(
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=none",
        )

    def start_ignored(self) -> subprocess.Popen[bytes]:
        return self.start("ls-files", "-z", "-o", "-i", "--directory", "--exclude-per-directory=.gitignore")

    def start_filter_config(self) -> subprocess.Popen[bytes]:
        """Configured clean/process filters, which rewrite content on its way into the index."""
        return self.start("config", "-z", "--get-regexp", r"^filter\..*\.(clean|process)$")

    def blob(self, sha: str) -> bytes:
        return self.run("cat-file", "blob", sha)

    def blob_sizes(self, shas: Sequence[str]) -> dict[str, int]:
        batch = "\n".join(shas).encode() + b"\n"
        out = self.run("cat-file", "--batch-check=%(objectname) %(objectsize)", stdin=batch)
        return {f[0]: int(f[1]) for line in out.decode().splitlines() if len(f := line.split()) == 2}

    def index_entries(self, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(mode, blob id) in the index for each of `paths` that is there."""
        return self.finish_index_entries(self.start_index_entries(paths))

    def start_index_entries(self, paths: Sequence[str]) -> subprocess.Popen[bytes]:
        return self.start("ls-files", "-s", "-z", "--", *paths, literal=True)

    def finish_index_entries(self, proc: subprocess.Popen[bytes]) -> dict[str, tuple[str, str]]:
        index = {}
        for rec in self.finish(proc).split(b"\0"):
            if b"\t" in rec:
                meta, name = rec.split(b"\t", 1)
                mode, sha = meta.decode().split()[:2]
                index[os.fsdecode(name)] = (mode, sha)
        return index

    def hash_files(self, paths: Sequence[str], as_added: bool = False) -> list[str]:
        """Blob ids of regular files (the caller checked they are regular): of their bytes as they
        are, or with `as_added` of what `git add` would store (attributes' conversions applied)."""
        if not paths:
            return []
        return self.finish(self.start_hash_files(paths, as_added), self.hash_input(paths)).decode().split()

    def start_hash_files(self, paths: Sequence[str], as_added: bool = False) -> subprocess.Popen[bytes]:
        return self.start("hash-object", *([] if as_added else ["--no-filters"]), "--stdin-paths", stdin=True)

    @staticmethod
    def hash_input(paths: Sequence[str]) -> bytes:
        return b"".join(_c_quoted(p) + b"\n" for p in paths)

    def hash_as_added(self, data: bytes, path: str) -> str:
        """The blob id `git add` would store for `data` at `path` (attributes' conversions applied)."""
        return self.run("hash-object", "--stdin", f"--path={path}", stdin=data).decode().strip()

    def check_attr(
        self, paths: Sequence[str], names: Sequence[str], tree: str | None = None
    ) -> dict[str, dict[str, str]]:
        """{path: {attribute: value}} for the attributes that are set, unset or have a value.

        Without `tree`, as `git add` reads them (the working tree's .gitattributes, then the
        index's, info/attributes, core.attributesFile, the system file). With `tree`, the
        .gitattributes committed there stand in for the working tree's: what a checkout of it does.
        """
        if not paths:
            return {}
        if tree is None:
            return _parse_attr(
                self.run("check-attr", "-z", "--stdin", *names, stdin=b"".join(os.fsencode(p) + b"\0" for p in paths))
            )
        import tempfile  # only range mode needs a scratch index; the guard imports this module on every call

        with tempfile.TemporaryDirectory(prefix="score-diff-attr-") as scratch:
            index = os.path.join(scratch, "index")
            self._index_of_attributes(tree, index)
            return _parse_attr(
                self.run(
                    "check-attr",
                    "--cached",
                    "-z",
                    "--stdin",
                    *names,
                    index=index,
                    stdin=b"".join(os.fsencode(p) + b"\0" for p in paths),
                )
            )

    def _index_of_attributes(self, tree: str, index: str) -> None:
        """A scratch index holding only the .gitattributes files of `tree`.

        One recursive listing: git matches thousands of pathspecs against every entry far
        more slowly than it lists a 50,000-file tree.
        """
        listing = self.run("ls-tree", "-r", "-z", "--full-tree", tree)
        records = [
            r
            for r in listing.split(b"\0")
            if r.startswith((b"100644 blob ", b"100755 blob "))
            and (r.endswith(b"/.gitattributes") or r.endswith(b"\t.gitattributes"))
        ]
        self.run("update-index", "-z", "--index-info", index=index, stdin=b"".join(r + b"\0" for r in records))

    # -- files at a revision ---------------------------------------------------
    def read_file(self, rev: str | None, path: str) -> bytes | None:
        """A file's bytes at `rev`, or in the working tree when rev is None; None if absent.

        Never follows a symlink: a symlink (in git or on disk) reads as absent.
        """
        if rev is None:
            from . import worktree  # here: the guard's fence at HEAD reads no working tree (worktree loads contextlib)

            return worktree.read_worktree_file(self.work_tree, path)
        from . import gitparse

        out = self.run("ls-tree", "-z", "--full-tree", rev, "--", path, literal=True)
        fields = out.rstrip(b"\0").split(b"\t", 1)[0].split()
        if len(fields) != 3 or fields[1] != b"blob" or fields[0] == gitparse.SYMLINK_MODE.encode():
            return None
        return self.run("cat-file", "blob", fields[2].decode())

    def read_files(self, rev: str | None, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Several regular files' bytes at `rev` in one git call (`cat-file --batch`), or from the
        working tree when rev is None; None where a path is absent or not a file."""
        if rev is None:
            from . import worktree

            return worktree.read_worktree_files(self.work_tree, list(paths))
        found: dict[str, bytes | None] = {p: self.read_file(rev, p) for p in paths if "\n" in p}  # no batch line
        batch = [p for p in paths if "\n" not in p]
        if not batch:
            return found
        out = self.run(
            "cat-file",
            "--batch=%(objecttype) %(objectsize)",
            stdin=b"".join(rev.encode() + b":" + os.fsencode(p) + b"\n" for p in batch),
        )
        at = 0
        for path in batch:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            at = end + 1
            if len(header) == 2 and header[1].isdigit():
                size = int(header[1])
                found[path] = out[at : at + size] if header[0] == b"blob" else None
                at += size + 1
            else:  # "<name> missing" (or ambiguous): no file there
                found[path] = None
        return found

    def first_commits(self, base: str, head: str, paths: Sequence[str]) -> dict[str, str]:
        """For each of `paths`, the oldest commit in base..head that changed it (renames count
        as a deletion and an addition, so both sides are found): one `git log` for all of them."""
        if not paths:
            return {}
        out = self.run(
            "log",
            "--reverse",
            "--no-renames",
            "--format=%x01%H",
            "--name-only",
            "-z",
            f"{base}..{head}",
            "--",
            *paths,
            literal=True,
        )
        found: dict[str, str] = {}
        commit, first = "", False
        for token in out.split(b"\0"):
            if token.startswith(b"\x01") and _FULL_ID.fullmatch(token[1:].decode("ascii", "replace")):
                commit, first = token[1:].decode("ascii"), True
                continue
            if first:  # git ends the commit line with a newline before its first name
                token, first = token[1:] if token.startswith(b"\n") else token, False
            if token and commit:
                found.setdefault(os.fsdecode(token), commit)
        return found

    def display_diff(self, base: str, head: str) -> str:
        """`git diff --stat` and the patch, for a person to read after a PASS."""
        plain = ("--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", "-M")
        stat = self.run("diff", "--stat", *plain, base, head)
        patch = self.run("diff", *plain, "--src-prefix=a/", "--dst-prefix=b/", base, head)
        return (stat + b"\n" + patch).decode("utf-8", "replace")

    def commit_messages(self, base: str, head: str) -> list[tuple[str, str]]:
        """(commit id, message as stored) of each commit in base..head, newest first."""
        out = self.run("log", "--format=%H%n%B%x00", f"{base}..{head}", "--")
        found = []
        for record in out.split(b"\0"):
            commit, _, message = record.strip(b"\n").partition(b"\n")
            if commit:
                found.append((commit.decode("ascii"), message.decode("utf-8", "replace")))
        return found

    def message_as_stored(self, text: str) -> str:
        """A commit-msg hook's message as `git commit` will record it, read the strictest way.

        git cleans the message *after* the hook runs, with a mode the hook cannot see (`--cleanup`
        on the command line, or an editor); so every mode that could strip a line is assumed: the
        text below a scissors line goes, then every line starting with a comment character the
        commit could use (core.commentChar, also from `git -c`; `auto` means any of git's candidates).
        """
        text = cut_at_scissors(text)
        out = self.run("config", "-z", "--get-regexp", r"^core\.comment(char|string)$", ok=(0, 1), env=self._commit_env)
        values = [r.partition(b"\n")[2].decode("utf-8", "replace") for r in out.split(b"\0") if r]
        comment = values[-1] if values else "#"
        if comment.lower() == "auto":
            text = "".join(line for line in text.splitlines(True) if line[:1] not in _AUTO_COMMENT_CHARS)
            comment = "#"
        stored = self.run(
            "-c",
            f"core.commentChar={comment}",
            "stripspace",
            "--strip-comments",
            stdin=text.encode("utf-8", "surrogateescape"),
        )
        return stored.decode("utf-8", "replace")


# `git commit -v` appends the diff below this line; git drops it (any comment character).
_SCISSORS = LazyPattern(r"^\S\s*-{3,}\s*>8\s*-{3,}\s*$", MULTILINE)
# The characters `core.commentChar=auto` may choose (git's builtin/commit.c).
_AUTO_COMMENT_CHARS = frozenset("#;@!$%^&|:")


class ObjectNames:
    """What a name (HEAD) means now, from a `git cat-file --batch-check` kept running: git
    resolves the name afresh for every question, so a HEAD that moved is seen."""

    def __init__(self, git: GitProcess, timeout_s: float = 2.0) -> None:
        from .gitprocess import Batch

        self._batch = Batch(git, ("cat-file", "--batch-check"), timeout_s)

    def object_id(self, name: str) -> str | None:
        """The full object id `name` names, or None when it names nothing (HEAD with no commit yet)."""
        if not name or name != name.strip():  # cat-file would read a name without its spaces
            raise GitError(f"not an object name for cat-file: {name!r}")
        answer = self._batch.ask(name.encode("utf-8", "surrogateescape"))
        fields = answer.split(b" ")
        if answer == name.encode("utf-8", "surrogateescape") + b" missing":
            return None
        if len(fields) == 3 and _FULL_ID.fullmatch(fields[0].decode("ascii", "replace")) and fields[2].isdigit():
            return fields[0].decode("ascii")
        raise GitError(f"git cat-file --batch-check answered {answer[:80]!r} for {name}")

    @property
    def started(self) -> int:
        return self._batch.started

    def close(self) -> None:
        self._batch.close()


def cut_at_scissors(text: str) -> str:
    """`text` above git's scissors line: the message, without the diff `git commit -v` adds."""
    m = _SCISSORS.search(text)
    return text if m is None else text[: m.start()]


def _parse_attr(out: bytes) -> dict[str, dict[str, str]]:
    """`check-attr -z` output (path NUL attribute NUL value NUL ...), the unspecified ones left out."""
    fields = out.split(b"\0")
    found: dict[str, dict[str, str]] = {}
    for path, name, value in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        if value != b"unspecified":  # nearly every answer: skipped without decoding
            found.setdefault(os.fsdecode(path), {})[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return found


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


def blob_id(data: bytes, like: str) -> str:
    """git's object id for a blob of `data`, in the hash the repository uses (as long as `like`)."""
    import hashlib  # OpenSSL's, for files of any size; the guard's path does without it (_small_blob_id)

    algo = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()
