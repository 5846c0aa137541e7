"""What a `--skip-test` scoring imports, as `python -X importtime` lists it: the score-diff modules
loaded to score one small allowed change, and the standard-library modules it must not load.

Every scoring (each hook stage of every commit, CI, the server) pays for these imports before it
reads a byte of the change: about half of a medium scoring's instructions were imports (issue 29).
So the list is written out here, as `tests/guard/test_hot_path_imports.py` does for the guard: a
module added to a scoring is a visible diff of this file, to be justified in its commit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]

# importlib.import_module is not timed by -X importtime: scorer.commands.score (main.COMMANDS) and
# scorer.report.text (report.FORMATS) are loaded but not listed, and scorer.commands only as their parent.
SCORING = [
    "scorer",
    "scorer.builtin_names",
    "scorer.checks",
    "scorer.checks.assertions",
    "scorer.checks.blast_radius",
    "scorer.checks.cheats",
    "scorer.checks.content",
    "scorer.checks.contract",
    "scorer.checks.hidden",
    "scorer.checks.job",
    "scorer.checks.justify",
    "scorer.checks.literals",
    "scorer.checks.names",
    "scorer.checks.paths",
    "scorer.checks.protected",
    "scorer.checks.pyast",
    "scorer.checks.reads",
    "scorer.checks.registry",
    "scorer.checks.required_test",
    "scorer.checks.runner",
    "scorer.checks.runner_reach",
    "scorer.checks.sensitive",
    "scorer.checks.source",
    "scorer.checks.special_cases",
    "scorer.commands.shared",
    "scorer.context",
    "scorer.decision_journal",
    "scorer.decision_log",
    "scorer.digest",
    "scorer.entry",
    "scorer.errors",
    "scorer.inspection",
    "scorer.inspection.changes",
    "scorer.inspection.evidence",
    "scorer.inspection.git",
    "scorer.inspection.gitparse",
    "scorer.inspection.gitprocess",
    "scorer.inspection.hidden",
    "scorer.inspection.worktree",
    "scorer.main",
    "scorer.manifest",
    "scorer.manifest.globs",
    "scorer.manifest.jobs",
    "scorer.manifest.load",
    "scorer.manifest.locate",
    "scorer.manifest.pin",
    "scorer.manifest.schema",
    "scorer.model",
    "scorer.pipeline",
    "scorer.pytest_config",
    "scorer.records",
    "scorer.report",
    "scorer.report.escape",
    "scorer.report.facts",
    "scorer.secrets",
    "scorer.secrets.detector_table",
    "scorer.secrets.detectors",
    "scorer.secrets.encodings",
    "scorer.secrets.redaction",
    "scorer.secrets.secret_values",
    "scorer.terminal",
    "scorer.testrun",
    "scorer.testrun.environment",
]
# Taken off a scoring by issue 29, each imported where it is used (milliseconds of start-up each):
# typing (records.NamedTuple, TYPE_CHECKING = False), shutil with zlib, bz2 and lzma (argparse's
# help formatter, shutil.which), tempfile and random (a staged blob's scratch index), tomllib (a
# changed pyproject.toml), copy (an assertion compared). datetime is left out of the report's
# timestamp too, but sqlite3 imports it for the decision log's fold.
NEVER = ["typing", "shutil", "zlib", "bz2", "lzma", "tempfile", "random", "tomllib", "string", "copy"]
# Never on a scoring before issue 29 either: kept off.
NEVER += ["email", "http", "asyncio", "xml", "importlib.metadata", "importlib.resources", "zipfile", "difflib"]
NEVER += ["decimal", "scorer.testrun.run", "scorer.testrun.checkout"]
# A clean change has no violation to give a hint to (issue 29): the hints load on a FAIL.
NEVER += ["scorer.feedback", "scorer.feedback.hints"]


def _importtime(argv: list[str], repo: GitRepo) -> tuple[int, str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(repo.scratch)}
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True, env=env, cwd=repo.root)
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "imported package" not in line
    ]
    return proc.returncode, proc.stdout.decode(), names


def imported(repo: GitRepo, manifest: Path) -> tuple[int, str, list[str]]:
    """Score as a hook does, in a fresh interpreter; (exit code, stdout, modules score-diff imported).

    What the interpreter imports before score-diff runs is not score-diff's (a `.pth` file may
    import certifi, as on CI's machine): what `python -c pass` imports there is left out.
    """
    startup = set(_importtime(["-c", "pass"], repo)[2])
    code, out, names = _importtime(["-m", "scorer", "--skip-test", "--manifest", str(manifest)], repo)
    return code, out, [n for n in names if n not in startup]


def test_a_skip_test_scoring_imports_only_these(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    committed.write("allowed/a.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    committed.write("allowed/notes.txt", "a note\n")
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (0, "RESULT: PASS (with test skipped)")
    assert sorted({n for n in names if n == "scorer" or n.startswith("scorer.")}) == SCORING
    third_party = sorted({n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"scorer"})
    assert [n for n in third_party if not n.startswith("_")] == []
    assert [n for n in NEVER if n in names] == []


def test_a_fail_still_loads_its_hints(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"])
    committed.write("other/b.py", "changed\n")
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (1, "RESULT: FAIL")
    assert "FAIL [unlisted-path] other/b.py: " in out and "\n  -> do: undo your change to other/b.py" in out
    assert "scorer.feedback.hints" in names


def test_a_changed_pyproject_is_still_parsed(committed: GitRepo) -> None:
    """tomllib is imported where pytest's section is read: a change to pyproject.toml still is."""
    manifest = committed.manifest(allowed_paths=["allowed/**", "pyproject.toml"])
    committed.write("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n')
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (1, "RESULT: FAIL")
    assert "FAIL [test-config-changed] pyproject.toml:" in out  # its pytest section was read
    assert "tomllib" in names


def test_a_change_to_pyproject_outside_pytest_is_parsed_and_passes(committed: GitRepo) -> None:
    """The same parse finds no pytest section: PASS, and tomllib was still what read it."""
    manifest = committed.manifest(allowed_paths=["allowed/**", "pyproject.toml"])
    committed.write("pyproject.toml", '[project]\nname = "x"\n')
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (0, "RESULT: PASS (with test skipped)")
    assert "tomllib" in names
