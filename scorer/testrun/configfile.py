"""The spec pass's configuration file: pytest's own answer held against the fence's prediction.

The fence (checkout.plan) takes from the base every file pytest could read as its configuration,
by name. That protects the run only if pytest really reads one of them. So the `pytest_report`
plugin says which file pytest took (`config.inipath`, and the directory it started in), and here
that answer must be exactly one file, inside the checkout, the one `pytest_configfile` predicts from
the tree and the required test's arguments, and the base's (unchanged, or granted by
`allowed_test_config`). Anything else fails `test-config-unpredicted`
(docs/required-test.md#the-configuration-file-pytest-reported).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import stream
from .pytest_configfile import ConfigUnknown, configuration_file

UNPREDICTED = "test-config-unpredicted"


def problem(said: stream.Stream, root: str, args: Sequence[str], unchanged: Callable[[str], bool]) -> str:
    """Why the configuration file pytest reported in `said` is not the fence's ("" when it is)."""
    answers = set(said.configs)
    if len(answers) != 1:
        return (
            "pytest never said which configuration file it took"
            if not answers
            else (f"the run gave {len(answers)} different answers to which configuration file pytest took")
        )
    inipath, start = answers.pop()
    got = _relative(inipath, start) if inipath else ""
    if got is None:
        return f"pytest took {inipath} as its configuration, outside the checkout"
    try:
        predicted = configuration_file(args, _reader(root), lambda p: os.path.isdir(os.path.join(root, p)))
    except ConfigUnknown as exc:
        took = got or "none"
        return f"which configuration file pytest takes cannot be told from the tree ({exc}), and pytest took {took}"
    if got != predicted:
        return f"pytest took {got or 'no configuration file'}, where the fence predicted {predicted or 'none'}"
    if got and not unchanged(got):
        return f"pytest took {got}, which is not the base's version of it"
    return ""


def judged(test: TestOutcome, why: str) -> TestOutcome:
    """A passing spec pass failed with `test-config-unpredicted` when `why` says something."""
    if not why or test.status != TEST_PASSED:
        return test
    why = f"{why}: the spec pass holds the base's configuration only if pytest reads the file the fence predicts"
    return test._replace(status=TEST_FAILED, reason=why, findings=(*test.findings, (UNPREDICTED, why, None)))


def _relative(path: str, start: str) -> str | None:
    """`path` relative to the directory pytest started in (the checkout's root), None outside it."""
    if not os.path.isabs(path) or not os.path.isabs(start):
        return None
    rel = os.path.relpath(path, start).replace(os.sep, "/")
    return None if rel == ".." or rel.startswith("../") else rel


def _reader(root: str) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            return None
        try:
            with open(full, "rb") as fh:
                return fh.read()
        except OSError as exc:
            raise ConfigUnknown(f"{path}: {exc.strerror}") from exc

    return read
