"""The required test's outcome, and what it changed, as violations."""

from __future__ import annotations

from ..model import TEST_FAILED, TEST_TIMEOUT, TestOutcome, Violation

_SIDE_EFFECT = {
    "staged": "the required test changed this path in the index: git would commit what was not scored",
    "changed": "the required test changed this file: the tree it left is not the one that was scored",
    "created": "the required test created this file (not ignored): the tree it left is not the one that was "
    "scored; ignore it in .gitignore, write it outside the repository, or name it in test_report",
    "deleted": "the required test deleted this file: the tree it left is not the one that was scored",
}


def check_test(test: TestOutcome) -> list[Violation]:
    """test-timeout / test-failed from the run, one test-envelope per attempt the observer saw
    outside the envelope, then one test-side-effect per path it changed."""
    found = []
    if test.status == TEST_TIMEOUT:
        found.append(Violation("test-timeout", f"{' '.join(test.argv)}: {test.reason}"))
    elif test.status == TEST_FAILED and not _only_missing(test):
        why = test.reason or f"exited {test.exit_code}"
        empty = test.exit_code == 0 and test.evidence is not None and test.evidence.problem == "empty"
        found.append(Violation("test-empty" if empty else "test-failed", f"{' '.join(test.argv)}: {why}"))
    for code, why, path in test.findings:
        found.append(Violation(code, why, path))
    for file, why in test.missing:
        found.append(Violation("test-missing", f"{why}: every test the base defines must run and pass", file))
    for attempt in test.envelope.observed if test.envelope is not None else ():
        found.append(
            Violation(
                "test-envelope",
                f"the required test {attempt}: outside its envelope (docs/required-test.md#the-envelope)",
            )
        )
    for path, what in test.side_effects:
        found.append(Violation("test-side-effect", _SIDE_EFFECT.get(what, f"the required test {what}"), path))
    return found


def _only_missing(test: TestOutcome) -> bool:
    """Exit 0 and a sound report, failed only because base tests did not run, or for what the run
    found about its evidence: test-missing (or that finding's own code) says it."""
    evidence = test.evidence
    if test.findings and test.exit_code in (0, None) and (evidence is None or not evidence.problem):
        return True
    return bool(test.missing) and test.exit_code == 0 and evidence is not None and not evidence.problem
