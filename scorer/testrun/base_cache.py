"""The base paid once: the base's collected test ids and marks, cached under the git directory.

Collecting the base (basetests.py) runs pytest over a checkout of the base tree on every scoring
with the required test, though the base rarely changes between commits. Its result is cached
in a `cache_store.Store` by everything it depends on:

- the base tree id (the base's tests, conftest files and pytest configuration);
- the configuration digest: the manifest's sha256 (the required test's argv, test_env, the
  protected globs that filter the ids, the envelope);
- the runner version: the `pytest-<version>.dist-info` directories of the interpreter's prefix
  (name and mtime). When none is found the result is not cached at all: an unknown runner is
  never assumed unchanged;
- the environment digest (verdict_record.environment_digest: what the test inherits, the
  interpreter, score-diff's version, the program PATH finds);
- the pytest configuration files in the temporary directory and its parents, where pytest
  would find a file above the checkout (db068ee: such a file fails the run, and only the
  collection reads it).

Only a clean collection is cached: one with a note (an error, a timeout), a configuration
from outside the checkout, or no list of the plugins pytest autoloaded at the base (the spec pass
loads exactly those, autoload off) is collected again next time.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from . import basetests
from .basetests import Collected
from .cache_store import Store

if TYPE_CHECKING:
    from ..manifest.load import Manifest

KIND = "base-tests"
# The files pytest reads its configuration from, in a directory above its arguments (pytest's
# "Configuration: rootdir and configfile"; pytest 9 reads pytest.toml and .pytest.toml first).
CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_SITE_DIRS = ("lib/python3*/site-packages", "lib/python3*/dist-packages", "local/lib/python3*/dist-packages")


def collected(
    git_dir: str,
    base_tree: str | None,
    manifest: Manifest,
    environ: Mapping[str, str],
    repo_root: str | None,
    collect: Callable[[], Collected | None],
    checkout_root: str = "",
) -> Collected | None:
    """The cached collection for this base, configuration, runner and environment, else `collect()`.

    `checkout_root` is where this run's checkout is: an id can name it (a test parametrized with
    its own `__file__`), and each run may check out somewhere else, so the record keeps it as a
    mark and reads it back as this run's."""
    if base_tree is None:
        return collect()
    key = cache_key(base_tree, manifest, environ, repo_root)
    store = Store(git_dir, KIND)
    if key is not None:
        hit = _from_plain(store.get(key))
        if hit is not None:
            return _moved(hit, HERE, checkout_root) if checkout_root else hit
    found = collect()
    if key is not None and found is not None and not found.problem and not found.foreign_config and _known(found):
        store.put(key, basetests.to_json(_moved(found, checkout_root, HERE) if checkout_root else found))
    return found


HERE = "\0checkout\0"  # the checkout's place in a stored record: no path or pytest id holds a NUL


def _moved(found: Collected, old: str, new: str) -> Collected:
    """`found` with `old` written `new` in every id, path, mark and message."""

    def at(text: str) -> str:
        return text.replace(old, new)

    tests = tuple(t._replace(nodeid=at(t.nodeid), path=at(t.path), marks=tuple(map(at, t.marks))) for t in found.tests)
    return found._replace(tests=tests, uncollected=tuple(map(at, found.uncollected)), problem=at(found.problem))


def cache_key(
    base_tree: str, manifest: Manifest, environ: Mapping[str, str], repo_root: str | None
) -> dict[str, str] | None:
    """Everything the base's collection depends on; None when the runner's version is unknown."""
    from .environment import test_environment
    from .verdict_record import environment_digest

    try:
        runner = runner_version(manifest.required_test, test_environment(environ, manifest.test_env), repo_root)
        if runner is None:
            return None
        return {
            "base_tree": base_tree,
            "configuration": manifest.sha256,
            "runner": runner,
            "environment": environment_digest(manifest, environ),
            "configuration_above": configs_above(tempfile.gettempdir()),
        }
    except (OSError, ValueError):
        return None


def runner_version(argv: tuple[str, ...], env: Mapping[str, str], repo_root: str | None) -> str | None:
    """The pytest installed beside the program the required test starts, as `pytest-X.Y.dist-info`
    names and mtimes; None when none is found there."""
    if not argv:
        return None
    program = argv[0]
    if os.sep in program and not os.path.isabs(program) and repo_root is not None:
        program = os.path.join(repo_root, program)
    found = program if os.sep in program else shutil.which(program, path=env.get("PATH", ""))
    if not found:
        return None
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(found)))  # not realpath: a venv's python links out
    infos = sorted(
        p
        for root in (prefix, *_system_site(prefix))
        for pattern in _SITE_DIRS
        for p in glob.glob(os.path.join(glob.escape(root), pattern, "pytest-*.dist-info"))
    )
    if not infos:
        return None
    return ";".join(f"{os.path.basename(p)}@{os.stat(p).st_mtime_ns}" for p in infos)


def _system_site(prefix: str) -> list[str]:
    """The base interpreter's prefix when `prefix` is a virtualenv made with --system-site-packages
    (its pyvenv.cfg: `home` names the base's bin directory, PEP 405), whose pytest it may run."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as fh:
            cfg = dict(line.partition("=")[::2] for line in fh.read().splitlines())
    except (OSError, UnicodeDecodeError):
        return []
    cfg = {k.strip().lower(): v.strip() for k, v in cfg.items()}
    if cfg.get("include-system-site-packages", "").lower() != "true" or not cfg.get("home"):
        return []
    return [os.path.dirname(cfg["home"].rstrip(os.sep))]


def configs_above(directory: str) -> str:
    """sha256 over the pytest configuration files in `directory` and every parent (path, content)."""
    digest = hashlib.sha256()
    here = os.path.realpath(directory)
    while True:
        for name in CONFIG_NAMES:
            path = os.path.join(here, name)
            if os.path.lexists(path):
                digest.update(os.fsencode(path) + b"\0")
                try:
                    with open(path, "rb") as fh:
                        digest.update(hashlib.sha256(fh.read(1 << 20)).digest())
                except OSError as exc:
                    digest.update(f"unreadable {exc.errno}".encode())
        parent = os.path.dirname(here)
        if parent == here:
            return digest.hexdigest()
        here = parent


def _known(found: Collected) -> bool:
    """Whether `found` says which plugins the base autoloaded (a record without them is never kept)."""
    return found.plugins is not None


def _from_plain(plain: Any) -> Collected | None:
    """A Collected from what `collected` stored (the base's run: ids, marks and outcomes); None unless
    it is exactly that shape."""
    try:
        found = basetests.from_json(plain)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if found.plugins is None:
        return None  # what the base autoloaded is unknown: run the base again
    texts = [found.problem, found.foreign_config, *found.uncollected, *found.plugins]
    for t in found.tests:
        texts += [t.nodeid, t.path, t.outcome, *t.marks]
    if not all(isinstance(x, str) for x in [*texts, found.runner]):
        return None
    return found
