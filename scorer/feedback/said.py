"""Hints that are text over a few facts: one row each, and the one builder that fills them in."""

from __future__ import annotations

from collections.abc import Callable

from ..model import Violation
from ..records import NamedTuple
from .phrases import Scene, at, run_test, shell_path, spec_pass, test_command, undo

Hint = Callable[[Violation, Scene], tuple[str, str]]


class Said(NamedTuple):
    """A hint and its fix as text; `{name}` is a fact of the violation and its scene (FACTS)."""

    hint: str
    fix: str = ""


def _cheat(do: str, detector: str) -> Said:
    """Source written to fool the tests: what to do instead, never how to hide it."""
    return Said(
        f"at {{at}}, {do}; then run `{{test}}` and make it pass by fixing the behaviour the test describes, "
        "for every input",
        f"if this code is intended (not written for the test), add {detector!r} to disabled_detectors",
    )


def _kind(noun: str, instead: str, setting: str) -> Said:
    """A kind of file the job may not add (binary, symlink, submodule)."""
    return Said(f"{instead}, or {{undo}}", f"set {setting} to true if the job may add {noun}")


SAID: dict[str, Said] = {
    "unreadable-encoding": Said(
        "save {path} as UTF-8 and remove or correct its `# -*- coding: ... -*-` line, so its tokens can "
        "be checked as Python reads them"
    ),
    "binary-file": _kind("binary files", "write text content instead of binary", "allow_binary"),
    "symlink": _kind("symlinks", "write a regular file instead of a symlink", "allow_symlinks"),
    "submodule": _kind("submodules", "leave nested repositories and submodules alone", "allow_submodules"),
    "unmerged": Said(
        "resolve the conflict markers in {path} and stage the result (`git add -- {shell_path}`), or "
        "abandon the merge (`git merge --abort`)"
    ),
    "merge-conflict": Said(
        "merge the base branch into this branch and resolve the conflict in {path} there (`git merge "
        "<the base branch>`, edit the file, `git add` it, `git commit`), keeping the base's own changes; then "
        "rerun score-diff"
    ),
    "test-failed": Said(
        "make the required test pass: {run_test}{spec}, read its output and fix the code (not the test)"
    ),
    "test-empty": Said(
        "make the required test run its tests to the end: {run_test}; nothing may exit "
        "early (os._exit, sys.exit at import) or skip the tests, and the run must write its test report",
        "name the report the test writes in test_report, or lower min_tests",
    ),
    "test-runner-detected": _cheat(
        "remove the code that tells a test run from a real one (do not detect the test runner or read the "
        "caller's frame): the code must behave the same under the test as in use",
        "test-runner-detected",
    ),
    "constant-equality": _cheat(
        "make the method compare what makes two values equal (return NotImplemented for a type it does not "
        "know), or remove it: an equality that cannot fail makes every comparison in a test pass",
        "constant-equality",
    ),
    "special-cased-input": _cheat(
        "remove the branch that returns the test's expected value for the test's own input, and fix the code "
        "path that handles such inputs in general",
        "special-cased-input",
    ),
    "flipped-test-special-cased": Said(
        "at {at}, remove the literal answer to the test that now passes (its input and expected value, held "
        "together), and fix the code path that handles such inputs in general; then run `{test}`",
        "if the code is meant to name that value (a documented default, a real table), write the test for a "
        "different input, or say so to the user: this check cannot be turned off",
    ),
    "test-envelope": Said(
        "remove the code that tried what the message names: the code and its tests must run without "
        "writing outside the checkout and the temporary directory, reaching a host, starting other "
        "programs or reading another process's environment (use tmp_path, a server on 127.0.0.1, a fake); "
        "then {run_test}",
        "list the directory in test_write_roots, set test_network, or list the program in test_programs",
    ),
    "test-envelope-unavailable": Said(
        "stop and tell the user this machine cannot jail the required test (no user namespaces or Landlock); "
        "this is not a verdict on your change",
        "run the gate where user namespaces and Landlock are allowed, or set test_envelope to auto",
    ),
    "test-missing": Said(
        "make the base's test the message names run and pass: run `{test}`, and fix the code "
        "so that the test is collected, not skipped, and passes (do not skip, deselect or mark it)",
        "if the base's test is meant to be skipped here, mark it skip or skipif in the base",
    ),
    "test-base-unrunnable": Said(
        "stop and tell the user the base's own tests could not be run on the base tree (the message says why); "
        "this is not a verdict on your change",
        "make the base's protected tests run at the base (its dependencies installed, its configuration valid)",
    ),
    "test-evidence-tampered": Said(
        "make the required test pass for real: run `{test}` and fix the code; do not touch the runner, "
        "its report, its exit status or the process's exit (atexit, os._exit)"
    ),
    "test-unstable": Said(
        "make the result independent of call order and history: run `{test}` twice and in another order, and "
        "remove state kept across calls (counters, toggles, caches keyed by the test's inputs)"
    ),
    "test-lenient-comparison": Said(
        "return the builtin value the test expects (a plain str, dict, list, bool): do not return an object whose "
        "__eq__, __bool__, __contains__ or ordering says yes to whatever the test compares it with; then run `{test}`"
    ),
    "test-config-unpredicted": Said(
        "leave pytest's configuration files as the base has them (pytest.toml, .pytest.toml, pytest.ini, "
        "pyproject.toml, tox.ini, setup.cfg, in any directory): do not add one that pytest would read instead; "
        "then run `{test}`"
    ),
    "test-runner-reached": Said(
        "remove the code that reaches for the test runner (atexit handlers that call os._exit, reading the "
        "runner's command line or report path, importing _pytest): the code must behave the same under any runner"
    ),
    "runner-shadowed": Said(
        "rename {path}'s top-level module or package (or move it under your own package): its name is one the "
        "test runner, the standard library or an installed distribution provides, and the required test must "
        "import the environment's, never the checkout's"
    ),
    "git-error": Said(
        "do what the message says if it names a step you can take (fetch a ref, run inside the repository); "
        "otherwise stop and tell the user score-diff could not read git"
    ),
    "internal-error": Said("stop and tell the user score-diff failed; this is not a verdict on your change"),
    # the guard's own findings
    "git-dir": Said("do not write inside .git; it holds git's hooks and refs"),
    "gate-skip": Said("run the command without that option or variable; the commit gate must run"),
}

# The facts a row may name, each worked out only when its row names it.
FACTS: dict[str, Callable[[Violation, Scene], str]] = {
    "path": lambda v, scene: str(v.path),
    "shell_path": lambda v, scene: shell_path(v.path or ""),
    "at": lambda v, scene: at(v),
    "test": lambda v, scene: test_command(scene),
    "run_test": lambda v, scene: run_test(scene),
    "spec": lambda v, scene: spec_pass(scene),
    "undo": lambda v, scene: undo(v.path or "", scene),
}


class _Facts(dict[str, str]):
    def __init__(self, v: Violation, scene: Scene) -> None:
        super().__init__()
        self.v, self.scene = v, scene

    def __missing__(self, name: str) -> str:
        value = self[name] = FACTS[name](self.v, self.scene)
        return value


def _said(row: Said) -> Hint:
    """The one builder of a row's hint: its text with the violation's facts filled in."""

    def hint(v: Violation, scene: Scene) -> tuple[str, str]:
        facts = _Facts(v, scene)
        return row.hint.format_map(facts), row.fix.format_map(facts)

    return hint


SAID_HINTS: dict[str, Hint] = {code: _said(row) for code, row in SAID.items()}
