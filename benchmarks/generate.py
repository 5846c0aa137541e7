"""Deterministic generator of synthetic repositories for the score-diff benchmark.

A repository is a base commit (written with one `git fast-import` stream) plus an
uncommitted change in the worktree: staged and unstaged modifications, a staged
new file, renames through `git mv`, staged and unstaged deletions, untracked files
and a few ignored files.  Everything derives from one seeded `random.Random`, so
the same size, seed and GENERATOR_VERSION give byte-identical repositories.

    python benchmarks/generate.py --size large            # prints the repo path
    python benchmarks/generate.py --files 20 --changed 6 --untracked 1 --dest DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

if TYPE_CHECKING:
    from pymodules import ModuleContent

# Bump whenever the output for a given size and seed changes; it is part of the cache key.
GENERATOR_VERSION = 3
DEFAULT_SEED = 20240601
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "score-diff-bench"
MARKER = "score-diff-bench.json"  # lives in .git/ so it never shows up as a change
FORBIDDEN_SUBSTRINGS = ("eval(", "exec(", "pickle")
EPOCH = "1700000000 +0000"
IDENTITY = "Bench Mark <bench@example.invalid>"


class Size(NamedTuple):
    """How big a generated repository is.

    `changed` counts the entries of `git status --porcelain -uall`, untracked
    files included, so a rename counts once.
    """

    name: str
    files: int
    changed: int
    untracked: int
    hunks: tuple[int, int] = (1, 3)  # hunks per modified file, inclusive range
    removed_per_hunk: int = 3  # 0..N old lines replaced in each hunk
    added_per_hunk: int = 6  # 1..N new lines in each hunk
    modules: bool = False  # .py files are Python modules that parse (pymodules.py), nearly all files .py


SIZES = {
    "small": Size("small", files=200, changed=3, untracked=1),
    "medium": Size("medium", files=5_000, changed=200, untracked=20, hunks=(2, 5)),
    "large": Size(
        "large",
        files=50_000,
        changed=5_000,
        untracked=200,
        hunks=(3, 8),
        removed_per_hunk=6,
        added_per_hunk=15,
    ),
    # The medium shape with many changed modules: every .py file parses, so the checks that read a
    # syntax tree do all their work (issue 29: ~6 s of cheat checks at 230 changed modules).
    "modules": Size("modules", files=5_000, changed=230, untracked=20, hunks=(2, 5), modules=True),
}


class Plan(NamedTuple):
    """How many tracked files get each kind of change."""

    modified: int
    renamed: int
    deleted: int
    added: int


class Generated(NamedTuple):
    """A generated repository and the facts a benchmark needs about it."""

    repo: Path
    manifest: Path  # allows everything with "**"
    literal_manifest: Path  # lists every changed path literally
    info: dict[str, Any]


def plan_for(size: Size) -> Plan:
    """Split the tracked part of the change into modifications, renames, deletions, additions."""
    tracked = size.changed - size.untracked
    if tracked < 0 or size.changed > size.files:
        raise ValueError(f"impossible size: {size}")
    if tracked < 4:
        return Plan(tracked, 0, 0, 0)
    renamed = deleted = math.ceil(tracked * 0.04)
    added = math.ceil(tracked * 0.02)
    return Plan(tracked - renamed - deleted - added, renamed, deleted, added)


# --- content -----------------------------------------------------------------

# No word contains or ends a forbidden substring ("retrieval(" would contain "eval(").
WORDS = (
    "alpha", "beta", "gamma", "delta", "core", "util", "model", "view", "parser", "render",
    "config", "cache", "store", "index", "query", "event", "queue", "token", "graph", "layout",
    "report", "schema", "loader", "writer", "reader", "buffer", "stream", "socket", "client",
    "server", "router", "handler", "widget", "record", "column", "filter", "sort", "merge",
    "split", "format", "encode", "decode", "window", "panel", "button", "label", "table", "field",
)  # fmt: skip
# Names that exercise quoting: spaces, accents, non-Latin scripts (all NFC).
SPECIAL_NAMES = ("docs and notes", "données", "Ünïcode", "日本語", "naïve café", "ресурсы")
TEMPLATES = (
    "{a}_{n} = {b}({c}, {m})",
    "    return {a}.{b}_{n}",
    "def {a}_{b}_{n}({c}):",
    "    if {a} > {n}:",
    "# {a} {b} {c} {n}",
    "    {a}[{n}] = {b}_{c}",
    "class {A}{B}{n}:",
    "    {a}_{b} += {m}",
)
EXTENSIONS = (".py", ".py", ".py", ".md", ".txt", ".js")
MODULE_EXTENSIONS = (".py", ".py", ".py", ".py", ".py", ".md")


def _line_pool(rng: random.Random, count: int = 8192) -> list[str]:
    pool = []
    for _ in range(count):
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        line = rng.choice(TEMPLATES).format(
            a=a, b=b, c=c, A=a.title(), B=b.title(), n=rng.randrange(10_000), m=rng.randrange(100)
        )
        pool.append(line)
    # A line never contains a newline, so joining lines cannot create a forbidden substring.
    assert not any(bad in line for line in pool for bad in FORBIDDEN_SUBSTRINGS)
    return pool


class Content:
    """Draws file bodies and edits from a shared pool of plausible code lines."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pool = _line_pool(rng)

    def lines(self, count: int) -> list[str]:
        return self.rng.choices(self.pool, k=count)

    def file_length(self) -> int:
        return 10 + min(400, int(self.rng.expovariate(1 / 45)))

    def edit(self, lines: list[str], hunks: int, size: Size) -> list[str]:
        """Return `lines` with `hunks` separate replacements, at least 8 lines apart."""
        slots = max(1, len(lines) // 10)
        starts = sorted(self.rng.sample(range(slots), min(hunks, slots)), reverse=True)
        new = list(lines)
        for slot in starts:  # bottom-up, so earlier positions stay valid
            at = slot * 10 + 1
            removed = self.rng.randint(0, min(size.removed_per_hunk, 6))
            new[at : at + removed] = self.lines(self.rng.randint(1, size.added_per_hunk))
        return new


def body(lines: Sequence[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


# --- layout ------------------------------------------------------------------


class Namer:
    """Unique, deterministic directory and file names; a few with spaces and unicode."""

    def __init__(self, rng: random.Random, extensions: Sequence[str] = EXTENSIONS) -> None:
        self.rng = rng
        self.counter = 0
        self.extensions = tuple(extensions)

    def _stem(self, special_rate: float) -> str:
        self.counter += 1
        if self.rng.random() < special_rate:
            return f"{self.rng.choice(SPECIAL_NAMES)} {self.counter}"
        return f"{self.rng.choice(WORDS)}_{self.counter}"

    def directory(self) -> str:
        return self._stem(0.03)

    def file(self, special_rate: float = 0.03) -> str:
        return self._stem(special_rate) + self.rng.choice(self.extensions)


def _directories(rng: random.Random, namer: Namer, files: int) -> list[str]:
    """A random nested tree with about 20 files per directory, at most 5 deep."""
    dirs = [""]
    depth = {"": 0}
    while len(dirs) < max(1, files // 20):
        parent = rng.choice(dirs)
        if depth[parent] >= 5:
            continue
        child = f"{parent}/{namer.directory()}".lstrip("/")
        dirs.append(child)
        depth[child] = depth[parent] + 1
    return dirs


def _join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


# --- git ---------------------------------------------------------------------


def git_env(home: str) -> dict[str, str]:
    """An environment in which neither the user's nor the system's git config applies."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    name, email = IDENTITY[:-1].split(" <")
    env.update(
        HOME=home,
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_AUTHOR_DATE=EPOCH,
        GIT_COMMITTER_DATE=EPOCH,
    )
    return env


class Git:
    """Runs git in one repository with a pinned environment; batch calls only."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.repo = repo
        self.env = env

    def __call__(self, *args: str, stdin: bytes | BinaryIO | None = None) -> bytes:
        argv = ["git", "-c", "gc.auto=0", "-c", "core.compression=1", "--literal-pathspecs", *args]
        if isinstance(stdin, bytes | None):
            proc = subprocess.run(argv, cwd=self.repo, env=self.env, input=stdin, capture_output=True)
        else:
            proc = subprocess.run(argv, cwd=self.repo, env=self.env, stdin=stdin, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr.decode(errors='replace')}")
        return proc.stdout

    def update_index(self, option: str, paths: Sequence[str]) -> None:
        """Stage (--add) or unstage (--force-remove) many paths in one call.

        `git add` and `git rm` would match every index entry against every
        pathspec, which is quadratic; update-index takes the paths as they are.
        """
        if paths:
            stdin = b"".join(p.encode() + b"\0" for p in paths)
            self("update-index", option, "-z", "--stdin", stdin=stdin)


def _fast_import_stream(files: dict[str, bytes]) -> Iterator[bytes]:
    message = b"base\n"
    yield b"commit refs/heads/main\n"
    yield f"author {IDENTITY} {EPOCH}\ncommitter {IDENTITY} {EPOCH}\n".encode()
    yield b"data %d\n%s" % (len(message), message)
    for path, data in files.items():
        # The path is the last field of the M command, so spaces need no quoting.
        yield b"M 100644 inline " + path.encode() + b"\n"
        yield b"data %d\n%s\n" % (len(data), data)
    yield b"\n"


def _commit_base(git: Git, files: dict[str, bytes]) -> None:
    git("init", "-q", "--initial-branch=main", ".")
    with tempfile.TemporaryFile() as stream:
        for chunk in _fast_import_stream(files):
            stream.write(chunk)
        stream.seek(0)
        # --depth=0: no delta search; it halves the import time and the pack stays small.
        git("fast-import", "--quiet", "--depth=0", stdin=stream)
    git("reset", "-q", "--hard", "main")  # populate index and worktree in one C loop


# --- the change --------------------------------------------------------------


def _write(repo: Path, path: str, data: bytes) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


class Builder:
    """Builds one repository: base commit, then the uncommitted change."""

    def __init__(self, size: Size, seed: int, repo: Path, env: dict[str, str]) -> None:
        self.size = size
        self.rng = random.Random(f"score-diff-bench:{seed}:{size.files}:{size.changed}")
        self.repo = repo
        self.git = Git(repo, env)
        self.content = Content(self.rng)
        self.modules: ModuleContent | None = None
        if size.modules:
            from pymodules import ModuleContent  # beside this file: the harness runs from benchmarks/

            self.modules = ModuleContent(self.rng)
        self.namer = Namer(self.rng, MODULE_EXTENSIONS if size.modules else EXTENSIONS)
        self.touched: list[str] = []  # every path the change touches, old and new

    def build(self, settle: bool = True) -> None:
        dirs = _directories(self.rng, self.namer, self.size.files)
        self.dirs = dirs
        paths = [_join(self.rng.choice(dirs), self.namer.file()) for _ in range(self.size.files - 1)]
        lines = {p: self._fresh(p) for p in paths}
        base = {".gitignore": b"*.log\nbuild/\n", **{p: body(v) for p, v in lines.items()}}
        _commit_base(self.git, base)
        plan = plan_for(self.size)
        picked = self.rng.sample(paths, plan.modified + plan.renamed + plan.deleted)
        modified = picked[: plan.modified]
        renamed = picked[plan.modified : plan.modified + plan.renamed]
        deleted = picked[plan.modified + plan.renamed :]
        unstaged = self._modify(modified, lines)
        self._rename(renamed, lines)
        self._delete(deleted)
        self._add(plan.added)
        for path, data in unstaged:  # after every index write, so they stay unstaged
            _write(self.repo, path, data)
        self._untracked()
        if settle:
            self._settle()

    def _content(self, path: str) -> Content | ModuleContent:
        return self.modules if self.modules is not None and path.endswith(".py") else self.content

    def _fresh(self, path: str, extra: int = 0) -> list[str]:
        """A new file's lines (a module's blocks)."""
        if self.modules is not None and path.endswith(".py"):
            return self.modules.module(self.modules.file_length() + extra)
        return self.content.lines(self.content.file_length() + extra)

    def _hunks(self) -> int:
        return self.rng.randint(*self.size.hunks)

    def _modify(self, modified: list[str], lines: dict[str, list[str]]) -> list[tuple[str, bytes]]:
        """Stage every other modification; return the rest, to be written unstaged.

        No path is both staged and edited again: score-diff reports a staged
        version that differs from the worktree as hidden-change (git commit would
        record content that was not scored), and the benchmark needs a PASS.
        """
        staged, unstaged = [], []
        for i, path in enumerate(modified):
            edited = body(self._content(path).edit(lines[path], self._hunks(), self.size))
            if i % 2:
                unstaged.append((path, edited))
            else:
                _write(self.repo, path, edited)
                staged.append(path)
        self.git.update_index("--add", staged)
        self.touched += modified
        return unstaged

    def _rename(self, renamed: list[str], lines: dict[str, list[str]]) -> None:
        """`git mv` in groups of up to 25 into new directories; a few alone to a new name."""
        alone, grouped = renamed[:3], renamed[3:]
        moves = []
        for path in alone:
            target = _join(self.rng.choice(self.dirs), self.namer.file(special_rate=0.5))
            self.git("mv", "--", path, target)
            moves.append((path, target))
        for start in range(0, len(grouped), 25):
            group = grouped[start : start + 25]
            destination = f"moved/{self.namer.directory()}"
            (self.repo / destination).mkdir(parents=True)
            self.git("mv", "--", *group, destination + "/")
            moves += [(p, f"{destination}/{Path(p).name}") for p in group]
        edited = []
        for i, (path, target) in enumerate(moves):
            self.touched += [path, target]
            if i % 2:  # renamed, then edited a little (so git still pairs them) and staged
                _write(self.repo, target, body(lines[path] + self._content(path).lines(2)))
                edited.append(target)
        self.git.update_index("--add", edited)

    def _delete(self, deleted: list[str]) -> None:
        for path in deleted:
            (self.repo / path).unlink()
        self.git.update_index("--force-remove", deleted[::2])  # what `git rm` does
        self.touched += deleted

    def _add(self, count: int) -> None:
        added = [_join(self.rng.choice(self.dirs), self.namer.file()) for _ in range(count)]
        for path in added:
            _write(self.repo, path, body(self._fresh(path, 40)))
        self.git.update_index("--add", added)
        self.touched += added

    def _untracked(self) -> None:
        """Untracked files (the first always with a space and unicode), and ignored ones."""
        new_dirs = [f"new/{self.namer.directory()}" for _ in range(1 + self.size.untracked // 20)]
        for i in range(self.size.untracked):
            where = self.rng.choice(new_dirs if self.rng.random() < 0.3 else self.dirs)
            name = self.namer.file(special_rate=1.0 if i == 0 else 0.1)
            path = _join(where, name)
            _write(self.repo, path, body(self._fresh(path, 40)))
            self.touched.append(path)
        for i in range(self.size.untracked // 4):
            ignored = f"build/out_{i}.txt" if i % 2 else _join(self.rng.choice(self.dirs), f"run_{i}.log")
            _write(self.repo, ignored, b"ignored\n")

    def _settle(self) -> None:
        """Refresh the index once every file's mtime is in the past.

        An index entry whose mtime is not older than the index file itself is
        "racily clean" and git re-reads its content on every diff; refreshing
        after the clock has moved on makes every diff stat-only for clean files.
        """
        time.sleep(1.05 - time.time() % 1)
        self.git("update-index", "-q", "--refresh")


# --- facts, manifests, cache -------------------------------------------------


def status_entries(repo: Path, env: dict[str, str]) -> list[tuple[str, str]]:
    """(XY, path) for each `git status --porcelain -z -uall` entry; renames once."""
    out = Git(repo, env)("status", "--porcelain", "-z", "--untracked-files=all")
    fields = out.decode().split("\0")[:-1]
    entries, i = [], 0
    while i < len(fields):
        xy, path = fields[i][:2], fields[i][3:]
        entries.append((xy, path))
        i += 2 if xy[0] in "RC" else 1  # the source path follows in its own field
    return entries


def changed_lines(repo: Path, env: dict[str, str]) -> int:
    """Added plus removed lines in tracked changes and untracked files."""
    git = Git(repo, env)
    total = 0
    for row in git("diff", "HEAD", "--numstat", "-z", "-M").split(b"\0"):
        if b"\t" in row:
            added, removed = row.split(b"\t")[:2]
            total += int(added) + int(removed)
    for path in git("ls-files", "-o", "-z", "--exclude-standard").split(b"\0"):
        if path:
            total += (repo / path.decode()).read_bytes().count(b"\n")
    return total


def manifest(job_id: str, allowed_paths: list[str]) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "allowed_paths": allowed_paths,
        "forbidden_globs": [],
        "max_files_changed": 100_000,
        "max_hunk_lines": 100_000,
        "required_test": ["true"],
        "forbidden_substrings": list(FORBIDDEN_SUBSTRINGS),
    }


def _fingerprint(repo: Path, env: dict[str, str]) -> str:
    entries = status_entries(repo, env)
    return hashlib.sha256(json.dumps(entries).encode()).hexdigest()


def generate(size: Size, seed: int, repo: Path, settle: bool = True) -> dict[str, Any]:
    """Create the repository at `repo` (which must not exist) and return its facts.

    settle=False skips the one-second wait that keeps later diffs stat-only;
    for tests, which time nothing.
    """
    repo.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="score-diff-bench-home-") as home:
        env = git_env(home)
        started = time.perf_counter()
        builder = Builder(size, seed, repo, env)
        builder.build(settle)
        entries = status_entries(repo, env)
        untracked = sum(xy == "??" for xy, _ in entries)
        if (len(entries), untracked) != (size.changed, size.untracked):
            raise RuntimeError(f"generated {len(entries)} changes, {untracked} untracked, for {size}")
        info: dict[str, Any] = {
            "generator_version": GENERATOR_VERSION,
            "size": size._asdict(),
            "seed": seed,
            "status_entries": len(entries),
            "untracked": untracked,
            "changed_lines": changed_lines(repo, env),
            "touched_paths": sorted(set(builder.touched)),
            "fingerprint": _fingerprint(repo, env),
            "seconds": round(time.perf_counter() - started, 2),
        }
    (repo / ".git" / MARKER).write_text(json.dumps(info, ensure_ascii=False, indent=1))
    return info


def ensure(size: Size, seed: int = DEFAULT_SEED, cache: Path = DEFAULT_CACHE) -> Generated:
    """Return the cached repository for size+seed+version, generating it if needed."""
    key = f"{size.name}-seed{seed}-v{GENERATOR_VERSION}"
    repo = cache / key
    marker = repo / ".git" / MARKER
    info = json.loads(marker.read_text()) if marker.exists() else None
    if info is None or info["size"] != json.loads(json.dumps(size._asdict())):  # tuples become lists
        if repo.exists():
            shutil.rmtree(repo)  # half-built or built for other parameters
        info = generate(size, seed, repo)
    plain = cache / f"{key}.manifest.json"
    literal = cache / f"{key}.literal.manifest.json"
    paths = list(info["touched_paths"])
    plain.write_text(json.dumps(manifest(f"bench-{size.name}", ["**"]), indent=1))
    literal.write_text(json.dumps(manifest(f"bench-{size.name}-literal", paths), ensure_ascii=False))
    return Generated(repo, plain, literal, info)


def check_unchanged(generated: Generated) -> None:
    """Fail if something (a scorer under test) modified the benchmark repository."""
    with tempfile.TemporaryDirectory(prefix="score-diff-bench-home-") as home:
        now = _fingerprint(generated.repo, git_env(home))
    if now != generated.info["fingerprint"]:
        raise SystemExit(f"{generated.repo} changed since it was generated; delete it to regenerate")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    custom = parser.add_argument_group("custom size (written to --dest, not cached)")
    custom.add_argument("--files", type=int)
    custom.add_argument("--changed", type=int)
    custom.add_argument("--untracked", type=int, default=1)
    custom.add_argument("--dest", type=Path)
    args = parser.parse_args(argv)
    if args.files is not None:
        if args.dest is None or args.changed is None:
            parser.error("--files needs --changed and --dest")
        info = generate(Size("custom", args.files, args.changed, args.untracked), args.seed, args.dest)
        print(args.dest)
    else:
        generated = ensure(SIZES[args.size], args.seed, args.cache_dir)
        info = generated.info
        print(generated.repo)
    summary = {k: v for k, v in info.items() if k != "touched_paths"}
    print(json.dumps(summary, ensure_ascii=False), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
