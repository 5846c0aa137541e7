"""The trees the required test runs in: temporary checkouts, outside the working tree, of exactly
the scored content, so that ignored files of the developer's tree are not imported and nothing the
test writes reaches the tree being scored.

Two trees, both built in scratch indexes (the repository's own index is never touched):

- the **scored tree**: HEAD with every changed path as the working tree holds it (worktree
  mode), or the head commit's tree (`--base`, pre-receive);
- the **spec tree**: what the approver committed plus the job's code, and nothing else that runs
  implicitly. Taken from the base (what the base lacks is left out): each protected test; each file
  that configures pytest (`pytest_config`, pytest.toml and .pytest.toml included); each file Python
  or pytest loads unasked (sitecustomize, *.pth, *.dist-info / *.egg-info: `loads_implicitly`);
  every file the job added or changed under a test directory (`test_directories`: a shadow
  `tests/calc.py`, a helper that rebinds the code under test); and every module pytest would
  collect as a test (`test_*.py`, `*_test.py`) that the job added or changed anywhere.

The spec pass runs the base's tests on the job's code. When the job changed any of those files,
a second pass runs the scored tree as it is, so the job's own tests run too. docs/required-test.md
says what each pass proves.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import posixpath
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import pytest_config
from ..errors import ScoreDiffError

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..model import Inspection


class SpecSource(NamedTuple):
    """What the spec pass takes from the base: the base commit, and how to tell its tests."""

    base: str | None  # HEAD in worktree mode, the merge-base in --base mode; None: no base commit
    protected: Callable[[str], bool]  # a protected test (protected_tests, the required test's files)
    granted: Callable[[str], bool]  # a configuration file the manifest lets the job change


class Trees(NamedTuple):
    scored: str  # tree id of what was scored
    spec: str  # tree id of the spec pass: equal to `scored` when the job changed none of the fenced files
    from_base: tuple[str, ...]  # the paths the spec pass takes from the base (or leaves out)
    base: str | None = None  # the base's tree id, when its tests are the spec
    # (tree id, its listing) as plan() read them: a tree id names its content, so a pass that asks
    # again (the configuration check after the spec pass) reads these instead of two more ls-trees
    listings: tuple[tuple[str, Mapping[str, tuple[str, str]]], ...] = ()


def plan(repo: Repository, ins: Inspection, fence: SpecSource, scratch: str) -> Trees:
    """The scored tree, and the spec tree laid over it from the base."""
    scored = _scored_tree(repo, ins, os.path.join(scratch, "scored.index"))
    if fence.base is None:
        return Trees(scored, scored, ())
    base_tree = repo.tree_id(fence.base)
    base_files = repo.tree_listing(base_tree)
    scored_files = repo.tree_listing(scored)
    everything = base_files.keys() | scored_files.keys()
    differs = {p for p in everything if base_files.get(p) != scored_files.get(p)}
    # A base without protected tests defines no spec to run: the job's first tests stay in.
    has_spec = any(map(fence.protected, base_files))
    protected = fence.protected if has_spec else _nothing
    fenced = pytest_config.fenced_paths(everything, protected, fence.granted) & differs
    fenced |= {p for p in differs if pytest_config.loads_implicitly(p) and not fence.granted(p)}
    if has_spec:  # the job's own tests and helpers run in the job's pass, never beside the base's
        under = test_directories(base_files, fence.protected)
        fenced |= {p for p in differs if _test_module(p) or any(p.startswith(d + "/") for d in under)}
    sections = [p for p in differs - fenced if pytest_config.has_sections(p) and not fence.granted(p)]
    fenced |= set(_sections_changed(repo, sections, base_files, scored_files))
    plugins = pytest_config.plugin_files(_configs(repo, base_files), everything)
    fenced |= {p for p in plugins & differs if not fence.granted(p)}
    spec_base = base_tree if has_spec else None
    listings = ((base_tree, base_files), (scored, scored_files))
    if not fenced:
        return Trees(scored, scored, (), spec_base, listings)
    overlay = {p: base_files.get(p) for p in sorted(fenced)}
    spec = repo.tree_with(scored, overlay, os.path.join(scratch, "spec.index"))
    return Trees(scored, spec, tuple(sorted(fenced)), spec_base, listings)


def _nothing(path: str) -> bool:
    return False


_TEST_DIR_NAMES = frozenset({"tests", "test", "testing"})
_NOT_TEST_DIRS = frozenset({"", "src"})  # on the test's PYTHONPATH: the job's code lives there


def test_directories(base_files: Mapping[str, object], protected: Callable[[str], bool]) -> set[str]:
    """The directories of the base's protected tests, and the one pytest puts on sys.path for each
    (rootdir-relative "prepend" import: the first ancestor without an `__init__.py`), that hold
    tests rather than code: named tests/test/testing somewhere in their path, or holding no Python
    file at the base but protected tests, conftest.py and __init__.py. A test module beside the
    code it tests (`calc/test_calc.py`) does not make `calc/` a test directory."""
    tests = [p for p in base_files if protected(p) and p.endswith(".py")]
    found: set[str] = set()
    for test in tests:
        folder = posixpath.dirname(test)
        found.add(folder)
        while folder and posixpath.join(folder, "__init__.py") in base_files:
            folder = posixpath.dirname(folder)
        found.add(folder)
    return {d for d in found - _NOT_TEST_DIRS if _holds_tests(d, base_files, protected)}


def _holds_tests(folder: str, base_files: Mapping[str, object], protected: Callable[[str], bool]) -> bool:
    if _TEST_DIR_NAMES & set(folder.split("/")):
        return True
    inside = [p for p in base_files if posixpath.dirname(p) == folder and p.endswith(".py")]
    return all(protected(p) or posixpath.basename(p) in ("conftest.py", "__init__.py") for p in inside)


def _test_module(path: str) -> bool:
    """A name pytest collects as a test module by default (`python_files`: test_*.py, *_test.py)."""
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


# pytest loads no entry-point plugin unasked; `-p NAME` still loads one by its entry-point name
# (_pytest/config/__init__.py: consider_pluginarg -> import_plugin(consider_entry_points=True);
# https://github.com/pytest-dev/pytest/pull/14117, https://docs.pytest.org/en/stable/reference/reference.html)
AUTOLOAD_OFF = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def with_plugins(argv: Sequence[str], at: int, plugins: Sequence[str]) -> tuple[str, ...]:
    """The runner's argv with `-p NAME` for each of `plugins`, before its own arguments."""
    return (*argv[:at], *(a for name in plugins for a in ("-p", name)), *argv[at:])


def check_out(repo: Repository, tree: str, into: str, index_file: str) -> None:
    """Write `tree`'s files into the new directory `into`."""
    os.mkdir(into)
    repo.check_out_into(tree, into, index_file)


class Workdir:
    """The checkout the passes of a run take turns in (the base's tree, the spec's, the job's): made to
    hold each tree by rewriting what differs from the tree it held and removing whatever a run created
    (the one kept from the last run included, `workdir`), then verified: every file hashed afresh, as
    `git add` would store it, must make exactly that tree. On any doubt (a mismatch, a git error) it is
    written whole again. On a 5,000-file tree a switch costs a few git calls and a read of every
    file, where writing the checkout whole costs over ten times as much."""

    def __init__(self, repo: Repository, where: str, scratch: str | None = None) -> None:
        self._repo = repo
        self.root = os.path.join(where, "tree")
        self._index = os.path.join(where, "tree.index")
        self._scratch = scratch or where  # this run's own directory: the verifying index, a fallback place
        self._made = os.path.isdir(self.root) and os.path.isfile(self._index)  # kept from the last run
        self.written = 0  # times written whole: 0 when every tree was reached by switching

    # Below this size of index (about 600 files) writing the checkout whole costs less than the
    # five git calls of a switch and its verification (benchmarks/commit_cost.py: +0.1 s a commit).
    switch_from = 64 << 10

    def hold(self, tree: str) -> str:
        """Make the checkout hold exactly `tree` (a full tree id); its root."""
        if not (self._made and self._worth_switching() and self._switched(tree)):
            self._write_whole(tree)
        return self.root

    def _worth_switching(self) -> bool:
        try:
            return os.path.getsize(self._index) >= self.switch_from
        except OSError:
            return False

    def _switched(self, tree: str) -> bool:
        verifying = os.path.join(self._scratch, "verify.index")
        try:
            self._repo.switch_checkout(tree, self.root, self._index)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(verifying)
            return self._repo.tree_of_checkout(self.root, verifying) == tree
        except (ScoreDiffError, OSError):
            return False

    def _write_whole(self, tree: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._index)
        shutil.rmtree(self.root, ignore_errors=True)
        if os.path.lexists(self.root):  # what a run left there cannot be removed: a new place of this run's
            where = tempfile.mkdtemp(dir=self._scratch)
            self.root, self._index = os.path.join(where, "tree"), os.path.join(where, "tree.index")
        check_out(self._repo, tree, self.root, self._index)
        self._made = True
        self.written += 1


KEPT = 4  # checkouts kept per user (the most recently used), each for one repository and job
_KEPT_NAME = re.compile(r"[0-9a-f]{24}(\.lock)?")


def kept_key(git_dir: str, job_id: str) -> str:
    """The name of the checkout kept for one repository and job."""
    named = f"{os.path.realpath(git_dir)}\0{job_id}".encode("utf-8", "surrogateescape")
    return hashlib.sha256(named).hexdigest()[:24]


@contextlib.contextmanager
def workdir(repo: Repository, scratch: str, key: str | None) -> Iterator[Workdir]:
    """The checkout a run's passes take turns in: the one kept for `key` (`kept_key`) from the last
    run, locked for this run, when it can be had; else a new one in the run's `scratch` (no key, no
    locking on this platform, a run beside this one holding the lock, or a place that is not this
    user's alone or holds anything but checkouts). What was kept is verified before each use."""
    place = _kept(key, repo.root) if key is not None else None
    if place is None:
        yield Workdir(repo, scratch, scratch)
        return
    where, lock = place
    try:
        yield Workdir(repo, where, scratch)
    finally:
        os.close(lock)  # the lock goes with it


def _kept(key: str, repo_root: str | None) -> tuple[str, int] | None:
    try:
        import fcntl
    except ImportError:  # no flock: never shared
        return None
    parent = os.path.join(tempfile.gettempdir(), f"score-diff-checkouts-{os.getuid()}")
    where = os.path.join(parent, key)
    for directory in (parent, where):
        with contextlib.suppress(FileExistsError, OSError):
            os.mkdir(directory, 0o700)
        if not _private(directory):
            return None
    # pytest reads configuration files upward from the checkout: nothing but checkouts lives here
    if not (_only(parent, _KEPT_NAME.fullmatch) and _only(where, {"tree", "tree.index"}.__contains__)):
        return None
    if repo_root is not None and os.path.commonpath([os.path.realpath(repo_root), os.path.realpath(where)]) == (
        os.path.realpath(repo_root)
    ):
        return None
    try:
        lock = os.open(f"{where}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.utime(where)
    except OSError:
        os.close(lock)
        return None
    _forget_old(parent, fcntl)
    return where, lock


def _private(directory: str) -> bool:
    """A real directory (not a link) of this user's that no one else may write or read."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def _only(directory: str, allowed: Callable[[str], object]) -> bool:
    try:
        return all(allowed(name) for name in os.listdir(directory))
    except OSError:
        return False


def _forget_old(parent: str, fcntl: Any) -> None:
    """Remove the kept checkouts beyond the KEPT most recently used, each one no run holds."""
    try:
        kept = [e for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
        kept.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime, reverse=True)
    except OSError:
        return
    for old in kept[KEPT:]:
        try:
            lock = os.open(f"{old.path}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(old.path, ignore_errors=True)
        except OSError:
            pass
        finally:
            os.close(lock)


def _scored_tree(repo: Repository, ins: Inspection, index_file: str) -> str:
    if ins.mode == "range":
        assert ins.head is not None
        return repo.tree_id(ins.head)
    # What inspection scored: the diff of HEAD against the working tree, and the untracked files.
    # A nested repository (an untracked submodule) has no content git would check out.
    paths = sorted({p for c in ins.changed if not c.submodule for p in c.paths})
    return repo.tree_of_worktree(ins.head, paths, index_file)


def _configs(repo: Repository, files: dict[str, tuple[str, str]]) -> dict[str, bytes]:
    """The bytes of every file of a tree listing that configures pytest (plugins are named there)."""
    paths = [
        p
        for p, (mode, _) in files.items()
        if mode.startswith("100") and (pytest_config.is_whole_file(p) or pytest_config.has_sections(p))
    ]
    data = repo.blobs(sorted({files[p][1] for p in paths})) if paths else {}
    return {p: data[files[p][1]] for p in paths if files[p][1] in data}


def _sections_changed(
    repo: Repository,
    paths: Sequence[str],
    base_files: dict[str, tuple[str, str]],
    scored_files: dict[str, tuple[str, str]],
) -> list[str]:
    """The pyproject.toml, tox.ini and setup.cfg among `paths` whose pytest section differs."""
    if not paths:
        return []
    shas = {e[1] for p in paths for e in (base_files.get(p), scored_files.get(p)) if e and e[0].startswith("1")}
    data = repo.blobs(sorted(shas)) if shas else {}

    def content(entry: tuple[str, str] | None) -> bytes | None:
        return data.get(entry[1]) if entry else None

    return [
        p for p in paths if pytest_config.config_changed(p, content(base_files.get(p)), content(scored_files.get(p)))
    ]
