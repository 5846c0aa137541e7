"""A starter manifest from what the repository already holds: its tests, its test command,
and the blast-radius paths that exist. Pure: a file listing in, a manifest dict out."""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..checks.sensitive import classify

TEST_DIR_NAMES = frozenset({"tests", "test", "__tests__", "spec", "testing"})
NOT_SOURCE = frozenset(
    {"docs", "doc", "examples", "benchmarks", "scripts", "build", "dist", "node_modules", "vendor", "target"}
)
NO_TEST_FOUND = (
    "sh",
    "-c",
    "echo 'score-diff init found no test command: set required_test in the manifest' >&2; exit 1",
)  # fails closed: a starter must never PASS on a test nobody chose
STARTER_DESCRIPTION = (
    "Starter fence written by score-diff init: narrow allowed_paths to the files this job "
    "may change, and check required_test, before an agent starts."
)  # init's own words: a manifest still saying them is the unedited starter (pin refuses it)
# Test files by the names their runners collect (pytest's test_*.py and *_test.py, unittest's test*.py, go
# test, jest and mocha, rspec, JUnit): what a starter protects, so a new fence does not start empty.
TEST_FILE_NAMES = (
    "test*.py",
    "*_test.py",
    "*_test.go",
    "*.test.js",
    "*.test.ts",
    "*.test.jsx",
    "*.test.tsx",
    "*.spec.js",
    "*.spec.ts",
    "*_spec.rb",
    "*_test.rb",
    "*Test.java",
    "*Test.kt",
)
# All of them in one expression, a group each, as fnmatch reads them: one match per file of a large index.
_TEST_FILE = re.compile("|".join(f"(?P<n{i}>{fnmatch.translate(n)})" for i, n in enumerate(TEST_FILE_NAMES)))
PYTHON = "python3"  # found on PATH wherever the test runs: never a path inside the clone (.venv/...), which CI lacks
Reader = Callable[[str], bytes | None]  # a file's bytes by repo-relative path, None when absent


def test_dirs(files: Sequence[str]) -> list[str]:
    """The directories named like test directories that hold files, shallowest first."""
    found: set[str] = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i, part in enumerate(parts):
            if part.lower() in TEST_DIR_NAMES:
                found.add("/".join(parts[: i + 1]))
                break
    return sorted(found, key=lambda d: (d.count("/"), d))


def protected_globs(tracked: Sequence[str]) -> list[str]:
    """`protected_tests` for the test files git tracks: `DIR/**/NAME` for those under a test directory
    (so a test file added there later is protected too), the exact path for one elsewhere."""
    found: set[str] = set()
    for path in tracked:
        matched = _TEST_FILE.match(posixpath.basename(path))
        if matched is None:
            continue
        name = TEST_FILE_NAMES[int(str(matched.lastgroup)[1:])]  # the group that matched: n<index>
        home = test_dirs([path])
        found.add(f"{_as_glob(home[0])}/**/{name}" if home else _as_glob(path))
    return sorted(found)


def _as_glob(path: str) -> str:
    """A path as a glob that matches it: `[`, `]` and `\\` each as `?`, and a leading `!` or `#`, since
    the manifest reads `[x]` as a class (`test_[x].py` would miss itself), `\\` as `/` and `!` as a
    negation, and has no escape. `?` matches more than the one file, never less: a protection may be
    wider than asked, never narrower."""
    glob = "".join("?" if c in "[]\\" else c for c in path)
    return "?" + glob[1:] if glob[:1] in ("!", "#") else glob


def _python_tests(files: Sequence[str], read: Reader, python: str) -> tuple[str, ...] | None:
    """pytest when the project configures or depends on it; `python -m unittest` for plain test files."""
    names = {posixpath.basename(f) for f in files}
    pyproject = (read("pyproject.toml") or b"").decode("utf-8", "replace")
    setup_cfg = (read("setup.cfg") or b"").decode("utf-8", "replace")
    tox = (read("tox.ini") or b"").decode("utf-8", "replace")
    configured = (
        "pytest.ini" in files
        or "conftest.py" in names
        or "[tool.pytest" in pyproject
        or "[tool:pytest]" in setup_cfg
        or "[pytest]" in tox
        or "pytest" in pyproject
    )
    if configured:
        return (python, "-m", "pytest", "-q")
    test_files = [f for f in files if f.endswith(".py") and posixpath.basename(f).startswith("test")]
    if not test_files:
        return None
    top = test_dirs(test_files)
    return (python, "-m", "unittest", "discover", *(("-s", top[0]) if top else ()))


def _npm_test(read: Reader) -> tuple[str, ...] | None:
    raw = read("package.json")
    if raw is None:
        return None
    try:
        scripts = json.loads(raw).get("scripts") or {}
    except (ValueError, AttributeError):
        return None
    return ("npm", "test") if isinstance(scripts, dict) and scripts.get("test") else None


def test_commands(files: Sequence[str], read: Reader, python: str = PYTHON) -> list[tuple[str, ...]]:
    """Every test command the repository shows, the first being the one the starter uses."""
    found = [
        _python_tests(files, read, python),
        _npm_test(read),
        ("go", "test", "./...") if "go.mod" in files else None,
        ("cargo", "test") if "Cargo.toml" in files else None,
    ]
    return [c for c in found if c is not None]


def sensitive_globs_present(files: Sequence[str], manifest_path: str) -> list[str]:
    """Forbidden globs for the blast-radius paths that exist: a sensitive directory as `dir/**`
    (its shallowest sensitive ancestor), a sensitive file by its exact path."""
    found: set[str] = set()
    for f in files:
        if f == manifest_path or classify(f) is None:
            continue
        parts = f.split("/")
        ancestor = next(("/".join(parts[:i]) for i in range(1, len(parts)) if classify("/".join(parts[:i]))), None)
        # A root file is spelt ./NAME: the root file exactly, which load's root-only warning leaves alone.
        found.add(f"{_as_glob(ancestor)}/**" if ancestor else _as_glob(f) if "/" in f else f"./{_as_glob(f)}")
    return sorted(found)


def source_globs(files: Sequence[str], tests: Sequence[str], forbidden: Sequence[str]) -> list[str]:
    """The top-level directories that look like code (not tests, docs or hidden), as `dir/**`."""
    tops = {f.split("/")[0] for f in files if "/" in f}
    skip = {t.split("/")[0] for t in tests} | {g.removesuffix("/**").removeprefix("./") for g in forbidden}
    dirs = sorted(d for d in tops if not d.startswith(".") and d.lower() not in NOT_SOURCE and d not in skip)
    return [f"{d}/**" for d in dirs if _as_glob(d) == d] or ["src/**"]  # a grant is exact or left out


def starter_manifest(
    files: Sequence[str],
    read: Reader,
    job_id: str,
    manifest_path: str,
    python: str = PYTHON,
    tracked: Sequence[str] = (),
) -> tuple[dict[str, Any], list[tuple[str, ...]]]:
    """The starter manifest and every test command found (the first one is in the manifest).
    `tracked`: the files in git's index, whose test files become `protected_tests`."""
    tests = test_dirs(files)
    commands = test_commands(files, read, python)
    forbidden = sensitive_globs_present(files, manifest_path)
    manifest = {
        "job_id": job_id,
        "description": STARTER_DESCRIPTION,
        "allowed_paths": [*source_globs(files, tests, forbidden), *(f"{t}/**" for t in tests if _as_glob(t) == t)],
        "forbidden_globs": forbidden,
        "required_test": list(commands[0] if commands else NO_TEST_FOUND),
        "max_files_changed": 20,
        "protected_tests": protected_globs(tracked),
    }
    return manifest, commands


def is_starter(description: str) -> bool:
    """The manifest still carries init's starter description: nobody has said what the job is yet."""
    return description.strip() == STARTER_DESCRIPTION


STARTER_REFUSED = (
    "{rel} is still score-diff init's starter (its description is init's own): write what the job is in "
    "description, narrow allowed_paths to the files this job may change and check required_test, then pin it"
)
