"""Shadow mode, never echoing a secret in any output, and the decision log, through the CLI."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.report import FORMATS as RENDERERS
from tests.testing.repo import GitRepo, run_cli
from tests.testing.secrets import SECRET_LINES, SECRETS

FORMATS = sorted(RENDERERS)


@pytest.fixture
def planted(committed: GitRepo) -> GitRepo:
    """Every secret shape added to an allowed file, and printed by the required test."""
    lines = [line for _, line in SECRET_LINES] + [
        "-----BEGIN " + "RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA" + SECRETS["url-password"] * 3,
        "-----END " + "RSA PRIVATE KEY-----",
    ]
    committed.write("allowed/config.py", "\n".join(lines) + "\n")
    # the script lives outside the checkout, in a directory the manifest lets the jailed test read;
    # it prints the checkout's copy of the file (the test runs in the checkout, never the repository)
    (committed.scratch / "leak").mkdir()
    printer = committed.scratch / "leak" / "leak.py"
    printer.write_text("import sys\nprint(open('allowed/config.py').read())\nsys.exit(1)\n")
    committed.manifest(
        allowed_paths=["allowed/**"],
        required_test=[sys.executable, str(printer)],
        test_read_roots=[str(printer.parent)],
    )
    return committed


def _all_outputs(repo: GitRepo, *extra: str) -> tuple[int, str]:
    argv = ["--repo", str(repo.root), "--manifest", str(repo.manifest_path), *extra]
    for fmt in FORMATS:
        argv += ["--format", fmt, "--output", str(repo.scratch / f"report.{fmt}")]
    code, stdout = run_cli([*argv, "--format", "text"])
    files = "".join((repo.scratch / f"report.{fmt}").read_text(encoding="utf-8") for fmt in FORMATS)
    return code, stdout + files


def _log_text(repo: GitRepo) -> str:
    """Everything the log holds on disk: the database's rows, if a fold made it, and every byte of
    the journals whose rows wait to be folded."""
    db = repo.root / ".git" / "score-diff" / "decisions.sqlite3"
    text = ""
    if db.exists():
        with sqlite3.connect(db) as conn:
            text = json.dumps(conn.execute("SELECT * FROM decisions").fetchall())
    journals = sorted(db.parent.glob(db.name + ".rows*"))
    assert db.exists() or journals, "the scoring logged no row"
    return text + "".join(p.read_text(encoding="utf-8") for p in journals)


def test_no_secret_appears_in_any_output_log_or_export(planted: GitRepo, capsys):
    code, everything = _all_outputs(planted, "--shadow")  # shadow: the leaking test runs too
    assert code == 0
    out = planted.scratch / "export.jsonl"
    assert run_cli(["export", "--repo", str(planted.root), "--out", str(out)])[0] == 0
    everything += _log_text(planted) + out.read_text(encoding="utf-8") + capsys.readouterr().err
    assert "secret" in everything and "****" in everything
    for detector_id, value in SECRETS.items():
        assert value not in everything, detector_id


def test_the_test_output_tail_is_redacted(planted: GitRepo):
    out = planted.score("--shadow", skip_test=False)
    assert out.report["test"]["status"] == "failed"
    tail = out.report["test"]["output_tail"]
    assert "****" in tail
    assert SECRETS["github-token"] not in tail


# --- shadow mode ----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["flag", "manifest"])
def test_shadow_reports_would_fail_and_exits_0(committed: GitRepo, how):
    committed.write("other/b.py", "eval(x)\n")
    if how == "manifest":
        committed.manifest(mode="shadow", forbidden_substrings=["eval("])
        out = committed.score()
    else:
        committed.manifest(forbidden_substrings=["eval("])
        out = committed.score("--shadow")
    assert out.exit_code == 0
    assert out.codes == {"unlisted-path", "forbidden-token"}
    assert {v["severity"] for v in out.report["violations"]} == {"would-fail"}
    assert out.last_line == "RESULT: PASS (shadow: 2 would-fail)"
    assert "WOULD-FAIL [forbidden-token]" in out.text


def test_shadow_still_runs_the_test_after_cheaper_checks_fail(committed: GitRepo):
    committed.write("other/b.py", "x\n")
    committed.manifest(required_test=[sys.executable, "-c", "raise SystemExit(3)"])
    out = committed.score("--shadow", skip_test=False)
    assert out.report["test"]["status"] == "failed"
    assert out.codes == {"unlisted-path", "test-failed"}
    assert out.exit_code == 0


@pytest.mark.parametrize("broken", ["invalid", "pin"])
def test_shadow_does_not_excuse_a_broken_fence(committed: GitRepo, broken):
    committed.write("allowed/a.py", "x\n")
    if broken == "invalid":
        committed.manifest_path.write_text('{"job_id": "j", "mode": "shadow", "allowed_paths": []}')
        out = committed.score("--shadow")
        assert (out.exit_code, out.codes) == (2, {"manifest-invalid"})
    else:
        out = committed.score("--shadow", "--manifest-sha256", "1" * 64)
        assert (out.exit_code, out.codes) == (2, {"manifest-hash-mismatch"})
    assert out.last_line.startswith("RESULT: FAIL (could not score:")


@pytest.mark.parametrize(("key", "name"), [("sensitive_exempt", "lockfiles"), ("disabled_detectors", "aws-key")])
def test_built_ins_are_turned_off_only_by_their_exact_name(committed: GitRepo, key, name):
    committed.write("allowed/a.py", "x\n")
    committed.manifest(**{key: [name]})
    out = committed.score()
    assert (out.exit_code, out.codes) == (2, {"manifest-invalid"})
    assert name in out.report["violations"][0]["message"]


def test_a_named_detector_is_off(committed: GitRepo):
    committed.write("allowed/a.py", f"k = '{SECRETS['aws-access-key-id']}'\n")
    assert committed.score().codes == {"secret"}
    committed.manifest(disabled_detectors=["aws-access-key-id"])
    assert committed.score().codes == set()


# --- decision log ---------------------------------------------------------------------------------


def test_every_scoring_is_logged_under_the_git_dir(committed: GitRepo):
    committed.write("allowed/a.py", "x\n")
    committed.score()
    committed.write("other/b.py", "x\n")
    committed.score()
    code, text = run_cli(["log", "--repo", str(committed.root), "--format", "json"])
    records = json.loads(text)
    assert code == 0
    assert [r["verdict"] for r in records] == ["FAIL", "PASS"]  # newest first
    assert records[0]["job_id"] == "test-job"


def test_no_log_writes_nothing(committed: GitRepo):
    committed.write("allowed/a.py", "x\n")
    committed.score("--no-log")
    # Nothing of the log: no database, no journal. The checks' kept results (cache/) are no log.
    ours = committed.root / ".git" / "score-diff"
    written = sorted(str(p.relative_to(ours)) for p in ours.rglob("*")) if ours.exists() else []
    assert [p for p in written if p != "cache" and not p.startswith("cache/")] == []


def test_an_unwritable_log_warns_and_keeps_the_verdict(committed: GitRepo, capsys, tmp_path):
    committed.write("allowed/a.py", "x\n")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, text = run_cli(
        [
            "--repo",
            str(committed.root),
            "--manifest",
            str(committed.manifest_path),
            "--skip-test",
            "--log-db",
            str(blocker / "log.sqlite3"),
        ]
    )
    assert code == 0
    assert text.rstrip().endswith("RESULT: PASS (with test skipped)")
    assert "decision log not written" in capsys.readouterr().err


def test_export_prints_redaction_counts(committed: GitRepo, tmp_path):
    committed.write("allowed/a.py", "x\n")
    committed.score()
    out = tmp_path / "log.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "scorer", "export", "--repo", str(committed.root), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    assert proc.stderr.startswith("redacted: ")
    assert Path(out).read_text().count("\n") == 1


def test_an_untracked_manifests_own_token_list_does_not_fail_it(committed: GitRepo):
    manifest = committed.write_manifest(
        committed.root / "job_manifest.json", forbidden_substrings=["eval("], allowed_paths=["allowed/**"]
    )
    committed.write("allowed/a.py", "fine\n")
    out = committed.score(manifest=manifest)
    assert (out.exit_code, out.codes) == (0, set())
    assert any("untracked" in w for w in out.report["warnings"])


def test_a_tracked_manifest_the_job_edits_keeps_its_lines_checked(committed: GitRepo):
    manifest = committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
    committed.commit("manifest")
    text = manifest.read_text()
    manifest.write_text(text[:-1] + f', "description": "{SECRETS["github-token"]}"}}')
    out = committed.score(manifest=manifest)
    assert {"manifest-changed", "secret"} <= out.codes
    assert out.paths("secret") == {"job_manifest.json"}
