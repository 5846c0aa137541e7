"""Every test the base's protected tests define must run and pass in the spec pass.

The ids come from the base, not from the run: pytest collects a checkout of the base commit
(`--collect-only`, with the `pytest_probe` plugin), so a parametrize table whose data lives in
the job's source, a deselecting option or a skip the job's code raises cannot make a base
test disappear unseen. The spec pass's JUnit report must then hold each of them, executed and
passed; skipped or xfailed only where the base itself marks the test so. What this proves:
docs/required-test.md#every-base-test-must-run-and-pass.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import resources
from typing import NamedTuple

from . import junit

COLLECTED_ENV = "SCORE_DIFF_COLLECTED"
PROBE = "score_diff_probe"
_ALLOWED = {"skipped": ("skip", "skipif"), "xfailed": ("xfail",)}
# pytest's bin_xml_escape: characters XML cannot hold, written as #xNN in a test's name
_ILLEGAL_XML = re.compile("[^\u0009\u000a\u000d\u0020-\u007e\u0080-\ud7ff\ue000-\ufffd\u10000-\u10ffff]")


class BaseTest(NamedTuple):
    nodeid: str
    path: str  # repo-relative file
    marks: tuple[str, ...]  # the base's own skip / skipif / xfail markers


class Collected(NamedTuple):
    tests: tuple[BaseTest, ...]
    note: str = ""  # why some or all of the base's ids could not be learned
    foreign_config: str = ""  # a configuration file pytest read from outside the checkout


def collect_argv(argv: Sequence[str], at: int) -> tuple[str, ...]:
    """The required test's own argv (same selection, same options), collecting only."""
    return (*argv[:at], "-p", PROBE, "--collect-only", "-q", *argv[at:])


def write_probe(directory: str) -> None:
    source = (resources.files("scorer") / "testrun" / "pytest_probe.py").read_text(encoding="utf-8")
    with open(os.path.join(directory, PROBE + ".py"), "w", encoding="utf-8") as fh:
        fh.write(source)


def read_collected(path: str, protected: Callable[[str], bool], root: str) -> Collected:
    """The protected tests the probe found; a note (and nothing required) if it wrote nothing usable."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        items = [BaseTest(i["nodeid"], i["path"], tuple(i["marks"])) for i in data["items"]]
        errors = [str(e) for e in data["errors"]]
        inifile = str(data["inifile"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Collected(
            (), f"the base's tests could not be collected ({type(exc).__name__}): the spec pass's own ids stand"
        )
    mine = tuple(t for t in items if protected(t.path))
    note = ""
    if errors:
        shown = ", ".join(errors[:3]) + (" ..." if len(errors) > 3 else "")
        note = f"the base's tests did not all collect at the base ({shown}): for those, the spec pass's own ids stand"
    return Collected(mine, note, _outside(inifile, root))


def _outside(inifile: str, root: str) -> str:
    """`inifile` when it lies outside the checkout `root` (pytest found it in a parent directory)."""
    if not inifile:
        return ""
    real_root, real = os.path.realpath(root), os.path.realpath(inifile)
    return "" if os.path.commonpath([real_root, real]) == real_root else inifile


def junit_key(nodeid: str, prefix: str = "") -> tuple[str, str]:
    """(classname, name) pytest's junitxml writes for `nodeid` (_pytest/junitxml.py, mangle_test_address
    and record_testreport)."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    classnames = ([prefix] if prefix else []) + names[:-1]
    return ".".join(classnames), _ILLEGAL_XML.sub(_hex, names[-1])


def _hex(match: re.Match[str]) -> str:
    i = ord(match.group())
    return f"#x{i:02X}" if i <= 0xFF else f"#x{i:04X}"


def missing(tests: Sequence[BaseTest], cases: Sequence[junit.Case]) -> list[tuple[str, str]]:
    """(path, message) for each base test the report does not show executed and passed (a failure
    or an error is already test-failed); skipped or xfailed counts only where the base marks it."""
    outcomes: dict[tuple[str, str], Counter[str]] = {}
    for c in cases:
        outcomes.setdefault((c.classname, c.name), Counter())[c.outcome] += 1
    found = []
    for t in tests:
        got = outcomes.get(junit_key(t.nodeid))
        if not got:
            found.append((t.path, f"the base's test {t.nodeid} did not run (missing or deselected)"))
            continue
        for outcome, marks in _ALLOWED.items():
            if got[outcome] and not set(marks) & set(t.marks):
                what = "was skipped" if outcome == "skipped" else "xfailed"
                found.append((t.path, f"the base's test {t.nodeid} {what}, and the base does not mark it so"))
    return found
