"""What a `--skip-test` scoring imports, as `python -X importtime` lists it: the score-diff modules
loaded to score one small allowed change, and the standard-library modules it must not load.

Every scoring (each hook stage of every commit, CI, the server) pays for these imports before it
reads a byte of the change: about half of a medium scoring's instructions were imports (issue 29).
So the list is written out here, as `tests/guard/test_hot_path_imports.py` does for the guard: a
module added to a scoring is a visible diff of this file, to be justified in its commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing import imports
from tests.testing.repo import GitRepo

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
    "scorer.checks.results_cache",  # issue 29: the cheat checks' first pass kept by module content
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
    "scorer.inspection.spawn",  # issue 29: git run to its end by posix_spawn, no subprocess where no thread runs
    "scorer.inspection.trees",  # issue 29: Repository's base, the guard's fence reader
    "scorer.inspection.worktree",
    "scorer.jsontext",  # issue 29: the manifest read with json's C scanner (the guard's path shares it)
    "scorer.lazy_re",  # issue 29: patterns compiled on first use (the guard's path shares it)
    "scorer.main",
    "scorer.manifest",
    "scorer.manifest.globs",
    "scorer.manifest.jobs",
    "scorer.manifest.load",
    "scorer.manifest.locate",
    "scorer.manifest.pin",
    "scorer.manifest.schema",
    "scorer.memo",  # issue 29: lru_cache without functools (the guard's path shares it)
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
    "scorer.testrun.cache_store",  # the checks' kept results are read and written by the base cache's rules
    "scorer.testrun.environment",
]
# Taken off a scoring by issue 29, each imported where it is used (milliseconds of start-up each):
# typing (records.NamedTuple, TYPE_CHECKING = False), shutil with zlib, bz2 and lzma (argparse's
# help formatter, shutil.which), tempfile and random (a staged blob's scratch index), tomllib (a
# changed pyproject.toml), copy (an assertion compared), sqlite3 with datetime (a scoring's log row
# is appended to the journal, folded into the database once the journal holds about 32 KiB).
NEVER = ["typing", "shutil", "zlib", "bz2", "lzma", "tempfile", "random", "tomllib", "string", "copy"]
NEVER += ["sqlite3", "datetime"]
# Never on a scoring before issue 29 either: kept off.
NEVER += ["email", "http", "asyncio", "xml", "importlib.metadata", "importlib.resources", "zipfile", "difflib"]
NEVER += ["decimal", "scorer.testrun.run", "scorer.testrun.checkout"]
# A clean change has no violation to give a hint to (issue 29): the hints load on a FAIL.
NEVER += ["scorer.feedback", "scorer.feedback.hints"]


def imported(repo: GitRepo, manifest: Path) -> tuple[int, str, list[str]]:
    """Score as a hook does, in a fresh interpreter; (exit code, stdout, modules score-diff imported
    beyond the interpreter's own start-up: tests/testing/imports.py)."""
    return imports.imported(repo, ["-m", "scorer", "--skip-test", "--manifest", str(manifest)])


def test_a_skip_test_scoring_imports_only_these(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    committed.write("allowed/a.py", "def one():\n    return 1\n\n\ndef two():\n    return 2\n")
    committed.write("allowed/notes.txt", "a note\n")
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (0, "RESULT: PASS (with test skipped)")
    assert imports.ours(names) == SCORING
    assert imports.third_party(names) == []
    assert [n for n in NEVER if n in names] == []


def test_a_fail_still_loads_its_hints(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"])
    committed.write("other/b.py", "changed\n")
    code, out, names = imported(committed, manifest)
    assert (code, out.splitlines()[-1]) == (1, "RESULT: FAIL")
    assert "FAIL [unlisted-path] other/b.py: " in out and "\n  -> do: undo your change to other/b.py" in out
    assert "scorer.feedback.hints" in names


@pytest.mark.parametrize(
    ("pyproject", "exit_code", "last", "code"),
    [
        pytest.param(
            '[tool.pytest.ini_options]\naddopts = "-q"\n', 1, "RESULT: FAIL", "test-config-changed", id="pytest"
        ),
        pytest.param('[project]\nname = "x"\n', 0, "RESULT: PASS (with test skipped)", None, id="not-pytest"),
    ],
)
def test_a_changed_pyproject_is_still_parsed(
    committed: GitRepo, pyproject: str, exit_code: int, last: str, code: str | None
) -> None:
    """tomllib is imported where pytest's section is read: a change to pyproject.toml is still parsed,
    and fails test-config-changed exactly when its pytest section changed."""
    manifest = committed.manifest(allowed_paths=["allowed/**", "pyproject.toml"])
    committed.write("pyproject.toml", pyproject)
    got, out, names = imported(committed, manifest)
    assert (got, out.splitlines()[-1]) == (exit_code, last)
    assert ("FAIL [test-config-changed] pyproject.toml:" in out) == (code is not None), out
    assert "tomllib" in names
