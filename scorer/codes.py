"""Every violation code score-diff can emit, with a one-line title and help text.

Codes are stable, lower-case and hyphenated; docs/codes.md documents each one in a
section anchored `code-<code>` (SARIF's helpUri), and a test holds it and this table in step.
"""

from __future__ import annotations

from typing import NamedTuple


class Code(NamedTuple):
    title: str
    help: str
    could_not_score: bool = False  # exit 2 rather than 1


CODES: dict[str, Code] = {
    "empty-diff": Code("Nothing changed", "The job changed nothing; an empty result is not a finished job."),
    "unlisted-path": Code("Path not in allowed_paths", "A changed path is not granted by allowed_paths."),
    "forbidden-path": Code("Path matches forbidden_globs", "A changed path matches forbidden_globs, which always win."),
    "too-many-files": Code("Too many files changed", "More paths changed than max_files_changed allows."),
    "hunk-too-large": Code("Hunk too large", "A single -U0 hunk has more added+removed lines than max_hunk_lines."),
    "diff-too-large": Code("Diff too large", "Added+removed lines over the whole change exceed max_changed_lines."),
    "file-too-large": Code("File too large", "A changed file's new content is larger than max_file_bytes."),
    "forbidden-token": Code("Forbidden token added", "An added line contains a forbidden substring or pattern."),
    "unreadable-encoding": Code(
        "Source encoding not readable as Python reads it",
        "Python source declares an encoding (PEP 263 cookie) the scorer cannot decode the way Python would.",
    ),
    "binary-file": Code("Binary file changed", "A binary file (or an LFS pointer) changed and allow_binary is false."),
    "symlink": Code(
        "Symlink changed", "A symlink changed and allow_symlinks is false, or it points outside the repository."
    ),
    "submodule": Code("Submodule changed", "A submodule (gitlink) changed and allow_submodules is false."),
    "unmerged": Code("Unmerged path", "The index has unresolved merge conflicts."),
    "merge-conflict": Code(
        "Merging the branch into the base conflicts",
        "What merging head into the base would change cannot be established: the merge conflicts on this path.",
    ),
    "hidden-change": Code(
        "Change hidden from git",
        "Index flags, attributes or configuration would hide a change from git diff, a file cannot be read, or "
        "the staged blob is not the working-tree file.",
    ),
    "manifest-changed": Code("Manifest changed by the job", "The job edited its own manifest or its pin."),
    "manifest-invalid": Code("Manifest invalid", "The manifest is missing, unreadable or fails its schema.", True),
    "manifest-hash-mismatch": Code(
        "Manifest does not match its pin", "The manifest's sha256 differs from the pinned digest.", True
    ),
    "sensitive-path": Code(
        "Sensitive path without justification",
        "A blast-radius path changed without being named exactly and justified with evidence and rollback.",
    ),
    "bad-justification": Code(
        "Justification does not resolve", "A Justification's file:line evidence does not point at an existing line."
    ),
    "secret": Code("Secret in added lines", "An added line contains something shaped like a credential."),
    "risky-shell": Code(
        "Risky shell pattern",
        "An added line pipes remote content to a shell, edits shell profiles or SSH config, or chmods 777.",
    ),
    "test-failed": Code("Required test failed", "The required test exited non-zero or could not start."),
    "test-empty": Code(
        "Required test ran no tests",
        "The required test exited 0, but its result report is missing, stale, unreadable, or shows fewer "
        "executed tests than min_tests (default 1).",
    ),
    "test-side-effect": Code(
        "Required test changed the tree",
        "The required test changed HEAD, the index or the working tree it was scored on.",
    ),
    "test-timeout": Code("Required test timed out", "The required test ran past test_timeout_s and was killed."),
    "test-weakened": Code(
        "Protected test weakened",
        "A protected test lost an assertion or a test case, gained a skip, or was deleted or renamed.",
    ),
    "test-runner-detected": Code(
        "Source detects the test run",
        "Non-test code added by the job asks whether a test runner is running (sys.modules, PYTEST_CURRENT_TEST, "
        "sys.argv) or reads the call stack for the test that calls it.",
    ),
    "constant-equality": Code(
        "Equality that cannot fail",
        "A new or changed __eq__, __ne__, __hash__ or __bool__ returns a constant or ignores what it compares.",
    ),
    "special-cased-input": Code(
        "Test input special-cased",
        "Added source returns a base test's expected value when given that test's own input.",
    ),
    "flipped-test-special-cased": Code(
        "Flipped test's literals in added code",
        "A test that failed at the base and passes now has its input and its expected value together in "
        "added code (a branch, a table, one function, a data file).",
    ),
    "test-missing": Code(
        "Base test did not run",
        "A test the base's protected tests define (parametrize ids included) was missing from the required "
        "test's report, deselected, skipped or xfailed where the base does not mark it so.",
    ),
    "test-base-unrunnable": Code(
        "Base tests could not run at the base",
        "The base's protected tests could not be run on the base tree, so their reference outcomes are unknown.",
    ),
    "test-evidence-tampered": Code(
        "Test evidence disagrees",
        "The outcomes pytest streamed as the tests ran, the JUnit report and the exit status do not agree.",
    ),
    "test-unstable": Code(
        "Flipped test not stable",
        "A base test that failed at the base and passes now did not pass again, in a fresh process, in reverse "
        "order, twice.",
    ),
    "test-lenient-comparison": Code(
        "Flipped test decided by the job's comparison",
        "A base test that failed at the base passes now because a comparison or truthiness method of a class "
        "the job defined decides its assertion, where the base's assertion did not call that class.",
    ),
    "test-config-unpredicted": Code(
        "pytest read a configuration file the fence did not predict",
        "In the spec pass pytest reported a configuration file (config.inipath) other than the one the fence "
        "predicts from the tree and the required test's arguments, one outside the checkout, one not the base's, "
        "or no single answer.",
    ),
    "test-runner-reached": Code(
        "Source reaches for the runner's state",
        "Non-test code added by the job registers an atexit handler that calls os._exit, reads the runner's "
        "command line for its report, or imports pytest's internals (_pytest).",
    ),
    "test-config-changed": Code(
        "Test configuration changed",
        "A file that decides how pytest collects or reports tests (conftest.py, pytest.ini, pytest.toml, a pytest "
        "section, an __init__.py beside a protected test) or that Python or pytest loads unasked (sitecustomize, "
        "*.pth, *.dist-info / *.egg-info metadata) changed and allowed_test_config does not grant it.",
    ),
    "runner-shadowed": Code(
        "Job's tree shadows the runner or the standard library",
        "The job added or changed a top-level module or package whose name the standard library or an installed "
        "distribution provides (pytest, _pytest, pluggy, unittest, ...): the test's runner must come from the "
        "environment, never from the checkout.",
    ),
    "test-envelope": Code(
        "Required test reached outside its envelope",
        "The required test tried to write beneath no write root, connect to a host, start a program not on "
        "test_programs, or read another process's environment.",
    ),
    "test-envelope-unavailable": Code(
        "Test envelope cannot be enforced",
        "test_envelope is required and this platform cannot enforce the required test's envelope.",
        True,
    ),
    "git-error": Code("git failed", "git could not answer; the change could not be established.", True),
    "internal-error": Code("Internal error", "score-diff hit an unexpected error; nothing was established.", True),
}
