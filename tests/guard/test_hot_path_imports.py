"""What the guard's Write path imports, as `python -X importtime` lists it: the score-diff modules
and every third-party package loaded to answer one allowed Write from Claude Code.

Every tool call an agent makes pays for these imports (issue 20), so the list is written out
here: a module added to the hot path is a visible diff of this file, to be justified in its
commit, and one removed shortens it.
"""

from __future__ import annotations

import json

import pytest

from tests.testing import imports
from tests.testing.repo import GitRepo

WRITE_PATH = [
    "scorer",
    "scorer.builtin_names",
    "scorer.checks",
    "scorer.checks.content",  # issue 24: CONTENT_CHECKS live here, the registry of every check is not loaded
    "scorer.checks.job",
    "scorer.checks.paths",
    "scorer.checks.sensitive",
    "scorer.commands",
    "scorer.commands.guard",
    "scorer.context",
    "scorer.digest",  # issue 29: sha256 without loading OpenSSL (hashlib)
    "scorer.entry",
    "scorer.errors",
    "scorer.guard",
    "scorer.guard.agents",
    "scorer.guard.agents.claude",
    "scorer.guard.answer",
    "scorer.guard.decide",
    "scorer.guard.fence",  # issue 29: the fence read with one git call; scorer.pipeline is no longer loaded
    "scorer.guard.paths",
    "scorer.guard.payload",
    "scorer.guard.run",
    "scorer.guard.safeio",
    "scorer.guard.sessions",  # issue 28: the fence pinned to the session
    "scorer.guard.turns",
    "scorer.inspection",
    "scorer.inspection.gitprocess",  # issue 21; issue 29: trees.py (the fence's queries) only when it is at HEAD
    "scorer.jsontext",
    "scorer.lazy_re",  # issue 29: the patterns compiled where first used, so that re is not imported  # issue 29: json's own C scanner and encoder, without json's modules and their patterns
    "scorer.manifest",
    "scorer.manifest.globs",
    "scorer.manifest.jobs",
    "scorer.manifest.load",
    "scorer.manifest.locate",
    "scorer.manifest.pin",
    "scorer.manifest.schema",
    "scorer.memo",  # issue 29: functools' caches without loading functools and collections
    "scorer.model",
    "scorer.records",  # issue 29: NamedTuple made without compiling a __new__ or the annotations per class
    "scorer.secrets",
    "scorer.secrets.detector_table",
    "scorer.secrets.detectors",
    "scorer.secrets.secret_values",
]
# Standard-library modules a Write never needs: each is milliseconds (argparse alone 4-13 ms).
NEVER = ["argparse", "asyncio", "sqlite3", "email", "http", "ast", "xml", "tree_sitter", "decimal"]
NEVER += ["scorer.pipeline", "difflib", "importlib.resources", "zipfile", "tempfile", "datetime", "secrets"]  # issue 29
NEVER += ["hashlib", "_hashlib", "base64"]
NEVER += ["typing", "pathlib", "urllib", "ipaddress"]  # issue 29: records.NamedTuple, TYPE_CHECKING = False, os.path
NEVER += ["json", "json.decoder", "json.scanner", "json.encoder"]  # issue 29: scorer.jsontext
NEVER += ["encodings.utf_8_sig"]  # issue 29: the manifest decoded without loading that codec
# What a session's later call needs no more once the session is pinned and the fence needs no git (issue 29).
PINNED_NEVER = ["subprocess", "threading", "selectors", "scorer.inspection.git", "scorer.inspection.worktree"]
PINNED_NEVER += ["signal"]  # issue 29: the deadline's timer is set through _signal (subprocess imports signal)
PINNED_NEVER += ["contextlib"]  # issue 29: the locks and the fold are classes (subprocess imports contextlib)
# issue 29: each loaded where it is used (a glob with a class, a secret's entropy, a journal that fails);
# subprocess imports all three, so only a pinned call without git goes without them.
PINNED_NEVER += ["warnings", "math", "errno"]
# issue 29: no module on the Write path holds re, and pip (from 25.2) and uv write console scripts that
# do not import it either: re and enum (14.7M instructions) are loaded only by a call that starts git
# through subprocess (which imports locale) or a manifest that brings a regex.
PINNED_NEVER += ["re", "enum"]
# issue 29: collections.abc only for annotations, scorer.memo for functools' caches, dicts for Counter:
# collections, functools and contextlib (10.7M instructions) are not loaded either.
PINNED_NEVER += ["collections", "functools", "contextlib"]


# What the `score-diff` console script runs, as pip 25.2 and later write it (PipScriptMaker's template,
# pypa/pip#13165) and uv does: no `import re`, unlike distlib's template in older pips. Not `python -m
# scorer`: runpy imports importlib.util and contextlib, which users never pay.
CONSOLE_SCRIPT = "import sys; from scorer.entry import main; sys.argv[0] = 'score-diff'; sys.exit(main())"


def imported(repo: GitRepo, payload: dict[str, object], *extra: str, site: bool = True) -> tuple[int, str, list[str]]:
    """Run the hook as an agent does, in a fresh interpreter; (exit code, stdout, modules score-diff
    imported beyond the interpreter's own start-up: tests/testing/imports.py)."""
    argv = ["-c", CONSOLE_SCRIPT, "guard", "--agent", "claude", *extra]
    return imports.imported(repo, argv, json.dumps(payload).encode(), site=site)


def _write(repo: GitRepo) -> dict[str, object]:
    return {
        "session_id": "s",
        "prompt_id": "p",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": f"{repo.root}/allowed/new.py", "content": "x = 1\n"},
    }


def test_the_write_path_imports_only_these(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    code, out, names = imported(committed, _write(committed), "--manifest", str(manifest), "--no-log")
    assert (code, out) == (0, "")  # allowed
    assert imports.ours(names) == WRITE_PATH
    assert imports.third_party(names) == []
    assert [n for n in NEVER if n in names] == []


def test_a_logged_write_reads_and_writes_its_json_without_json(committed: GitRepo) -> None:
    """The payload, the manifest, the session's state and the journal's row all go through scorer.jsontext."""
    manifest = committed.manifest(allowed_paths=["allowed/**"])
    log = ["--manifest", str(manifest), "--log-db", str(committed.scratch / "log.sqlite3")]
    code, out, names = imported(committed, _write(committed), *log)
    assert (code, out) == (0, "")
    assert "scorer.decision_journal" in names and (committed.scratch / "log.sqlite3.rows").exists()
    assert [n for n in NEVER if n in names] == []


def test_a_pinned_session_with_the_fence_outside_starts_no_process_and_no_thread(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"])
    first = imported(committed, _write(committed), "--manifest", str(manifest), "--no-log")
    assert first[:2] == (0, "") and "subprocess" in first[2]  # the first call finds the repository with git
    code, out, names = imported(committed, _write(committed), "--manifest", str(manifest), "--no-log")
    assert (code, out) == (0, "")
    assert [n for n in PINNED_NEVER if n in names] == []


def test_a_pinned_logged_write_with_the_fence_outside_loads_only_what_it_uses(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_globs=["secrets/**"])
    log = ["--manifest", str(manifest), "--log-db", str(committed.scratch / "log.sqlite3")]
    assert imported(committed, _write(committed), *log)[:2] == (0, "")  # pins the session
    code, out, names = imported(committed, _write(committed), *log)
    assert (code, out) == (0, "")
    assert (committed.scratch / "log.sqlite3.rows").exists()
    assert [n for n in PINNED_NEVER if n in names] == []


def test_a_write_with_the_manifest_committed_at_head_imports_no_typing_or_pathlib(committed: GitRepo) -> None:
    """The fence read through git (one `git ls-tree`) still leaves typing and pathlib out (issue 29)."""
    committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
    committed.commit("fence")
    code, out, names = imported(committed, _write(committed), "--no-log")
    assert (code, out) == (0, "")  # allowed
    assert "scorer.inspection.trees" in names  # the fence came from HEAD
    assert "scorer.inspection.git" not in names  # through the small reader, not git.py's Repository
    assert [n for n in NEVER if n in names] == []


@pytest.mark.parametrize("fence", ["outside", "at HEAD"])
@pytest.mark.parametrize("log", [False, True])
def test_a_write_loads_no_re_even_where_start_up_does_not(committed: GitRepo, fence: str, log: bool) -> None:
    """With `-S` no `.pth` file loads re before score-diff runs (CI's does), so this fails wherever a
    module on the Write path, or the log row's redaction, imports re (issue 29). A session's first call
    still starts git through subprocess, which imports re; the calls after it start none."""
    options = ["--log-db", str(committed.scratch / "log.sqlite3")] if log else ["--no-log"]
    if fence == "at HEAD":
        committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
        committed.commit("fence")
    else:
        manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_globs=["secrets/**", "setup.py"])
        options += ["--manifest", str(manifest)]
    first = imported(committed, _write(committed), *options, site=False)
    assert first[:2] == (0, "") and "re" in first[2]  # it finds the repository: subprocess imports locale and re
    code, out, names = imported(committed, _write(committed), *options, site=False)  # the session is pinned
    assert (code, out) == (0, "")  # allowed
    assert "scorer.guard.decide" in names  # the Write was decided in this process
    loaded = ("re", "enum", "subprocess", "collections", "functools", "contextlib", "warnings")
    assert [n for n in loaded if n in names] == []  # at HEAD the one git call is spawn's, without warnings
