"""Every test the base's protected tests define must run and pass in the spec pass, and the
base's own result is the reference for what may be skipped.

The ids come from the base, not from the run: pytest runs the base's tests once on a checkout of
the base commit (the `pytest_probe` plugin records each id and its outcome there), so a parametrize
table whose data lives in the job's source, a deselecting option or a skip the job's code raises
cannot make a base test disappear unseen. The spec pass's JUnit report must then hold each of
them, executed and passed; skipped or xfailed only where the base's own run skipped (or xfailed)
it in the same environment, whatever markers it carries. What the base cannot run at all fails
closed (`test-base-unrunnable`); a module that did not collect at the base must show its tests
run and passed. What this proves: docs/required-test.md#every-base-test-must-run-and-pass.

The record (`Collected`) is a pure function of the inputs `base_key` digests: a cache may keep it
per key, as JSON (`to_json`, `from_json`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any, NamedTuple

from . import junit

COLLECTED_ENV = "SCORE_DIFF_COLLECTED"
PROBE = "score_diff_probe"
FAILING = frozenset({"failed", "error", "not run"})  # outcomes at the base that make a passing test "flipped"
# pytest's bin_xml_escape writes each character XML cannot hold as #xNN in a test's name, and its two
# spellings disagree on two sets. Up to 9.0 the class reads "\u10000-\u10ffff", which Python takes as
# \u1000, 0, 0-\u10ff, ff: every character above U+FFFF is escaped and DEL (U+007F) is kept. From 9.1
# (pytest-dev/pytest#14484) the reverse. A key escapes both, in the base's names and in a report's
# (whose #xNN are printable ASCII, so they stay as written): one key whichever pytest wrote the report.
# Compiled on first use: the class takes about 10 ms to compile, and printable ASCII never needs it.
_ILLEGAL_XML = "[^\u0009\u000a\u000d\u0020-\u007e\u0080-\ud7ff\ue000-\ufffd]"


class BaseTest(NamedTuple):
    nodeid: str
    path: str  # repo-relative file
    marks: tuple[str, ...]  # the base's own skip / skipif / xfail markers (reported, not trusted)
    outcome: str = "not run"  # at the base: passed, failed, error, skipped, xfailed or "not run"


class Collected(NamedTuple):
    """The base's run of its own protected tests: frozen, and JSON through to_json/from_json."""

    tests: tuple[BaseTest, ...]
    uncollected: tuple[str, ...] = ()  # protected files (or node ids) that did not collect at the base
    problem: str = ""  # why the base could not be run at all: fails closed (test-base-unrunnable)
    foreign_config: str = ""  # a configuration file pytest read from outside the checkout
    runner: str = ""  # the pytest version that ran it
    # the pytest11 entry-point plugins pytest autoloaded at the base, loaded by name in the spec pass;
    # None: unknown (the spec pass then loads none, and a cache never keeps such a record)
    plugins: tuple[str, ...] | None = None

    def flipped(self, outcomes: Mapping[tuple[str, str], str]) -> tuple[BaseTest, ...]:
        """The base's tests that did not pass at the base and passed in `outcomes` (by JUnit key)."""
        return tuple(t for t in self.tests if t.outcome in FAILING and outcomes.get(junit_key(t.nodeid)) == "passed")


def base_key(base_tree: str, config_digest: str, runner_version: str, environment_digest: str) -> str:
    """The one cache key of a base run: the same base tree, configuration (argv, protected tests,
    test_env), runner and environment give the same `Collected`."""
    parts = json.dumps([base_tree, config_digest, runner_version, environment_digest])
    return hashlib.sha256(parts.encode("utf-8")).hexdigest()


def digest(value: Any) -> str:
    """A stable digest of a JSON-serialisable value (a configuration, an environment)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def to_json(found: Collected) -> dict[str, Any]:
    plugins = None if found.plugins is None else list(found.plugins)
    tests = [t._asdict() for t in found.tests]
    return {**found._asdict(), "tests": tests, "uncollected": list(found.uncollected), "plugins": plugins}


def from_json(data: Mapping[str, Any]) -> Collected:
    """The record `to_json` wrote; a KeyError for one without `plugins` (what the base loaded unknown)."""
    tests = tuple(BaseTest(t["nodeid"], t["path"], tuple(t["marks"]), t["outcome"]) for t in data["tests"])
    plugins = data["plugins"]
    found = Collected(tests, tuple(data["uncollected"]), data["problem"], data["foreign_config"], data["runner"])
    return found._replace(plugins=None if plugins is None else tuple(plugins))


def run_argv(argv: Sequence[str], at: int) -> tuple[str, ...]:
    """The required test's own argv (same selection, same options), with the probe loaded."""
    return (*argv[:at], "-p", PROBE, *argv[at:])


def write_probe(directory: str) -> None:
    source = (resources.files("scorer") / "testrun" / "pytest_probe.py").read_text(encoding="utf-8")
    with open(os.path.join(directory, PROBE + ".py"), "w", encoding="utf-8") as fh:
        fh.write(source)


def read_collected(path: str, protected: Callable[[str], bool], root: str) -> Collected:
    """The protected tests the probe found and what became of them; `problem` if it wrote nothing usable."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        items = [BaseTest(i["nodeid"], i["path"], tuple(i["marks"]), str(i["outcome"])) for i in data["items"]]
        errors = [str(e) for e in data["errors"]]
        inifile, runner = str(data["inifile"]), str(data["pytest"])
        plugins = _names(data.get("plugins"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        why = (
            "it wrote no record"
            if isinstance(exc, FileNotFoundError)
            else f"its record is unreadable ({type(exc).__name__})"
        )
        return Collected((), problem=f"the base's tests could not be run on the base tree: {why}")
    mine = tuple(t for t in items if protected(t.path))
    uncollected = tuple(e for e in errors if protected(e.split("::")[0]))
    return Collected(mine, uncollected, "", _outside(inifile, root), runner, plugins)


def _names(value: Any) -> tuple[str, ...] | None:
    """The probe's plugin names; None unless a list of strings."""
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        return None
    return tuple(value)


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
    return ".".join(classnames), xml_escaped(names[-1])


def xml_escaped(name: str) -> str:
    """`name` as a key: pytest's bin_xml_escape of it, with DEL and the characters above U+FFFF escaped
    as well (where its versions differ). Printable ASCII (U+0020 to U+007E) lies inside the class the
    pattern negates, so such a name is its own escape without the pattern."""
    if name.isascii() and name.isprintable():
        return name
    return re.sub(_ILLEGAL_XML, _hex, name)  # re's cache: compiled once per process


def _hex(match: re.Match[str]) -> str:
    i = ord(match.group())
    return f"#x{i:02X}" if i <= 0xFF else f"#x{i:04X}"


def outcomes(cases: Sequence[junit.Case]) -> dict[tuple[str, str], str]:
    """Each JUnit key's outcome; a key reported twice keeps its worst."""
    found: dict[tuple[str, str], Counter[str]] = {}
    for c in cases:
        found.setdefault((c.classname, xml_escaped(c.name)), Counter())[c.outcome] += 1
    worst = ("failed", "error", "skipped", "xfailed", "passed")
    return {key: next(o for o in worst if got[o]) for key, got in found.items()}


def missing(base: Collected, cases: Sequence[junit.Case]) -> list[tuple[str, str]]:
    """(path, message) for each base test the report does not show executed and passed (a failure
    or an error is already test-failed); skipped or xfailed counts only where the base's own run
    skipped (xfailed) it; a module that did not collect at the base needs its tests run and passed."""
    now = outcomes(cases)
    found = []
    for t in base.tests:
        got = now.get(junit_key(t.nodeid))
        if got is None:
            found.append((t.path, f"the base's test {t.nodeid} did not run (missing or deselected)"))
        elif got in ("skipped", "xfailed") and got != t.outcome:
            what = "was skipped" if got == "skipped" else "xfailed"
            found.append(
                (
                    t.path,
                    f"the base's test {t.nodeid} {what}, and at the base it {t.outcome} (its markers do not decide)",
                )
            )
    for nodeid in base.uncollected:
        prefix = junit_key(nodeid.split("::")[0] + "::x")[0]
        mine = [o for (classname, _), o in now.items() if classname == prefix or classname.startswith(prefix + ".")]
        if not mine or any(o != "passed" for o in mine):
            found.append(
                (
                    nodeid.split("::")[0],
                    f"the base's {nodeid} did not collect at the base, and the spec pass shows "
                    "none of its tests run, or some skipped: what it expects is unknown, so each must run and pass",
                )
            )
    return found
