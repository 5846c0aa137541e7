"""Protected tests: the job may add tests to these paths but not remove or loosen existing ones.

An agent that cannot make a test pass can make the test pass (replace an assertion with `pass`).
On `protected_tests` paths, and on the required test's own files when allowed_paths lists them,
each test of the base version must still be there with every assertion it had, reachable and
not newly skipped. Python is compared by its syntax tree (checks.assertions); other languages
by line patterns on the removed and added lines.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from .. import model, pytest_config
from ..lazy_re import LazyPattern
from ..manifest.globs import PathMatcher, grant_matcher, normalise_path
from ..model import ChangedPath, Hunk, Inspection, Violation
from . import assertions
from .contract import CheckInput, Findings
from .job import Job

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from ..manifest.load import Manifest

ReadFiles = Callable[[Sequence[str]], Mapping[str, bytes | None]]
# Lines that hold an assertion or declare a test, in the languages tests are written in. Compiled on
# first use: only a changed test in a language other than Python reads them, and compiling the two
# costs about as much as all the checks of a small scoring (issue 29).
_ASSERTION = LazyPattern(
    r"\bassert\w*\s*[(!]|\bassert\b|\bexpect\s*\(|\.should\b|\bshould\w*\s*\(|\b(it|test|describe)\s*\("
    r"|\bt\.(Error|Fatal|Fail)\w*\s*\(|\brequire\.\w+\s*\(|@Test\b|#\[test\]|\bfn test_\w+"
)
_SKIP = LazyPattern(
    r"\b(it|describe|test|context)\.(skip|todo)\b|\bx(it|describe|test)\s*\(|@(Disabled|Ignore)\b|#\[ignore\]"
    r"|\bt\.Skip\w*\s*\(|\bpending\s*\(|\bskip\s*\(|\.only\s*\("
)
_WORDS = re.compile(r"\s+")


def required_test_files(m: Manifest) -> list[str]:
    """Each required-test argument that names a file (or directory) allowed_paths grants."""
    allowed = grant_matcher(m.allowed_paths)
    return list(dict.fromkeys(p for p in map(_as_path, m.required_test[1:]) if p and allowed(p)))


def protected_paths(m: Manifest) -> list[str]:
    """What is protected, as the fence shows it: `protected_tests`, then the required test's files."""
    return list(dict.fromkeys([*m.protected_tests, *required_test_files(m)]))


def protected_matcher(job: Job) -> Callable[[str], bool]:
    """`protected_tests`, plus each required-test argument that names a file allowed_paths grants."""
    m = job.manifest
    named = set(required_test_files(m))
    globs = PathMatcher(m.protected_tests) if m.protected_tests else None
    return lambda path: (
        path in named or any(path.startswith(n.rstrip("/") + "/") for n in named) or bool(globs and globs(path))
    )


def _as_path(arg: str) -> str | None:
    """A required-test argument as a repo-relative path: `tests/test_x.py::case`, `tests/`, or the
    module `tests.test_x` (unittest); None for options and words that name no file."""
    if arg.startswith("-") or not arg or " " in arg:
        return None
    arg = arg.split("::", 1)[0]
    if "/" not in arg and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", arg) and not arg.endswith(".py"):
        arg = arg.replace(".", "/") + ".py"
    return normalise_path(arg)


def check_protected_tests(
    ins: Inspection, job: Job, read_base: ReadFiles | None, read_new: ReadFiles
) -> list[Violation]:
    """test-weakened for each protected test that lost ground; `read_base` None: no base commit."""
    protected = protected_matcher(job)
    found: list[Violation] = []
    touched = [c for c in ins.changed if any(protected(p) for p in c.paths)]
    if not touched or read_base is None:
        return found
    for c in touched:
        old = c.old_path or c.path
        if c.status == model.DELETED and protected(c.path):
            found.append(Violation("test-weakened", "a protected test file was deleted", c.path))
        elif c.status == model.RENAMED and protected(old):
            found.append(Violation("test-weakened", f"a protected test file was renamed to {c.path}", old))
    edited = [
        c
        for c in touched
        if c.status in (model.MODIFIED, model.ADDED, model.TYPECHANGE, model.MODE_CHANGE) and not c.binary
    ]
    base = read_base([c.path for c in edited])
    new = read_new([c.path for c in edited])
    python = [(c.path, base.get(c.path), new.get(c.path)) for c in edited if c.path.endswith(".py")]
    found += assertions.compare_python(python)
    for c in edited:
        if not c.path.endswith(".py"):
            found += _by_lines(c, base.get(c.path), new.get(c.path))
    return found


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", "replace").splitlines() if data else []


def _picked(lines: list[str], hunks: Sequence[Hunk], old: bool) -> list[tuple[int, str]]:
    out = []
    for h in hunks:
        start, count = (h.old_start, h.old_lines) if old else (h.new_start, h.new_lines)
        out += [(n, lines[n - 1]) for n in range(start, start + count) if 0 < n <= len(lines)]
    return out


def _by_lines(c: ChangedPath, base: bytes | None, new: bytes | None) -> list[Violation]:
    """Other languages: a removed assertion line that is not added back (reformatting and moving
    keep its words), and an added skip marker."""
    if base is None:
        return []
    removed = _picked(_lines(base), c.hunks, old=True)
    added = _picked(_lines(new), c.hunks, old=False)
    kept = {_WORDS.sub("", text) for _, text in added}
    found = [
        Violation(
            "test-weakened",
            f"removed an assertion or test that is not added back (base line {n}: {text.strip()[:80]!r})",
            c.path,
            None,
        )
        for n, text in removed
        if _ASSERTION.search(text) and _WORDS.sub("", text) not in kept
    ]
    was = {_WORDS.sub("", text) for _, text in removed}
    found += [
        Violation("test-weakened", f"added a skip marker ({text.strip()[:80]!r})", c.path, n)
        for n, text in added
        if _SKIP.search(text) and _WORDS.sub("", text) not in was
    ]
    return found


ListDir = Callable[[str], Sequence[str]]  # repo-relative file paths in a directory at the base


def check_test_config(
    ins: Inspection, job: Job, read_base: ReadFiles | None, read_new: ReadFiles, list_base: ListDir | None
) -> list[Violation]:
    """test-config-changed for each file pytest reads its collection and reporting from that the
    change touched and the manifest does not grant (`allowed_test_config`)."""
    granted = PathMatcher(job.manifest.allowed_test_config)
    protected = protected_matcher(job)
    sides = sorted({p for c in ins.changed for p in c.paths if not granted(p)})
    found = [
        _config_violation(p, "a conftest.py, pytest.ini or pytest.toml")
        for p in sides
        if pytest_config.is_whole_file(p)
    ]
    found += [
        _config_violation(p, "a file Python or pytest loads without being asked")
        for p in sides
        if pytest_config.loads_implicitly(p)
    ]
    sections = [p for p in sides if pytest_config.has_sections(p)]
    if sections:
        old = read_base(sections) if read_base else {}
        new = read_new(sections)
        found += [
            _config_violation(p, "its pytest section")
            for p in sections
            if pytest_config.config_changed(p, old.get(p), new.get(p))
        ]
    changed = {p for c in ins.changed for p in c.paths}
    for init in (p for p in sides if posixpath.basename(p) == "__init__.py"):
        folder = posixpath.dirname(init)
        beside = [p for p in changed if posixpath.dirname(p) == folder]
        if list_base is not None and folder:
            beside += list_base(folder)
        if any(protected(p) and p.endswith(".py") and p != init for p in beside):
            found.append(_config_violation(init, "an __init__.py beside a protected test"))
    return found


def _config_violation(path: str, what: str) -> Violation:
    return Violation(
        "test-config-changed",
        f"changes how pytest collects or reports tests ({what}); the base's version is the one the "
        "required test's spec pass runs",
        path,
    )


def _base_rev(given: CheckInput) -> str | None:
    """Protected tests are compared with the base: HEAD in worktree mode, the merge-base in --base
    and --since mode."""
    return given.ins.base or given.ins.head


def check_protected(given: CheckInput) -> Findings:
    """`check_protected_tests` against the base, on the scored tree."""
    base_rev = _base_rev(given)
    read_base = partial(given.trees.read_files, base_rev) if base_rev else None
    read_new = partial(given.trees.read_files, given.scored_rev)
    return Findings(tuple(check_protected_tests(given.ins, given.job, read_base, read_new)))


def check_config(given: CheckInput) -> Findings:
    """`check_test_config` against the base, on the scored tree."""
    base_rev = _base_rev(given)
    read_base = partial(given.trees.read_files, base_rev) if base_rev else None
    read_new = partial(given.trees.read_files, given.scored_rev)
    list_base = partial(given.trees.names_under, base_rev) if base_rev else None
    return Findings(tuple(check_test_config(given.ins, given.job, read_base, read_new, list_base)))
