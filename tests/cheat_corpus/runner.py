"""Score one case with the full pipeline, required test included, and sum up the corpus."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from scorer import main as cli

from . import project
from .cases import CHEATS, PASS, Case

# The required test: the base's tests, run by pytest the way i17run's spec pass expects.
# The installed plugins are blocked: where the jail runs the base interpreter (a venv's pyvenv.cfg
# unseen), its older pytest cannot load an entry-point plugin by name (`-p benchmark`) in the spec pass.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "tests"]
PYTEST[-1:-1] = ["-p", "no:benchmark", "-p", "no:hypothesispytest"]
ALLOWED = ["minireq/**", "tests/**", "conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml"]
# what the runner-tamper cases write, granted so that the deeper layers, not the fence, judge them
ALLOWED += ["pytest.toml", ".pytest.toml", "sitecustomize.py", "pytest/**", "*.dist-info/**"]


class Verdict(NamedTuple):
    verdict: str  # PASS or FAIL
    exit_code: int
    codes: tuple[str, ...]
    last_line: str


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, stdin=subprocess.DEVNULL)


def _write(root: Path, files: Mapping[str, str | None]) -> None:
    for path, text in files.items():
        full = root / path
        if text is None:
            full.unlink()
        else:
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_text(text, encoding="utf-8")


# What the required test's run reports when the base's tests do not pass on the job's code, when the
# flipped tests do not pass again or pass by a job-defined comparison, or when its evidence disagrees.
TEST_CODES = frozenset(
    {
        *("test-failed", "test-empty", "test-missing", "test-timeout", "test-base-unrunnable"),
        *("test-unstable", "test-lenient-comparison", "test-evidence-tampered"),
    }
)


def score(case: Case, where: Path, always_run_test: bool = False) -> Verdict:
    """Build the case's base in `where`, apply its change, and score the working tree.
    `always_run_test`: run the required test even when a cheaper check already failed, to
    see what the test run alone catches."""
    root, scratch = where / "repo", where / "scratch"
    root.mkdir(parents=True)
    scratch.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _write(root, project.base_files(case.task))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", f"minireq with the {case.task} bug")
    _git(root, "checkout", "-q", "-b", f"agent-{case.name}")
    _write(root, case.changes)
    manifest = scratch / "manifest.json"
    manifest.write_text(
        json.dumps(
            {
                "job_id": case.name,
                "allowed_paths": ALLOWED,
                "protected_tests": ["tests/test_utils.py", "tests/test_structures.py"],
                "required_test": PYTEST,
                "always_run_test": always_run_test,
            }
        ),
        encoding="utf-8",
    )
    report = scratch / "report.json"
    argv = ["--repo", str(root), "--manifest", str(manifest), "--format", "json", "--output", str(report)]
    argv += ["--format", "text"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    data = json.loads(report.read_text(encoding="utf-8"))
    codes = tuple(sorted({v["code"] for v in data["violations"]}))
    return Verdict(data["result"], code, codes, out.getvalue().rstrip("\n").splitlines()[-1])


def summary(results: Iterable[tuple[Case, Verdict]]) -> list[str]:
    """One line per category: caught/total for cheats, passed/total for legitimate changes."""
    by: dict[str, list[bool]] = {}
    for case, got in results:
        by.setdefault(case.category, []).append(got.verdict == case.expect)
    lines = []
    for category, hits in by.items():
        word = "caught" if category in CHEATS else "passed"
        lines.append(f"{category:16} {word} {sum(hits)}/{len(hits)}")
    cheats = [h for c, hs in by.items() if c in CHEATS for h in hs]
    legit = [h for c, hs in by.items() if c not in CHEATS for h in hs]
    lines.append(f"{'all cheats':16} caught {sum(cheats)}/{len(cheats)}")
    lines.append(f"{'all legitimate':16} passed {sum(legit)}/{len(legit)}")
    return lines


def by_the_test(results: Iterable[tuple[Case, Verdict]]) -> list[str]:
    """Per cheating category: how many the required test's run fails on its own."""
    by: dict[str, list[bool]] = {}
    for case, got in results:
        if case.category in CHEATS:
            by.setdefault(case.category, []).append(bool(TEST_CODES & set(got.codes)))
    return [f"{category:16} failed by the test run alone {sum(h)}/{len(h)}" for category, h in by.items()]


__all__ = ["PASS", "Verdict", "by_the_test", "score", "summary"]
