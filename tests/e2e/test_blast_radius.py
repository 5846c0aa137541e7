"""Blast-radius paths, justifications from every trailer source, pinning, and the --no-verify bypass,
end to end through the CLI on real repositories."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.testing.repo import PASSING_TEST, GitRepo, run_cli

MIGRATION = "migrations/0042_add_users_index.sql"
TRAILERS = f"""add users index

Blast-Radius: {MIGRATION}
Justification: src/db/users.py:2 login looks users up by email; without an index this scans the table
Rollback: DROP INDEX CONCURRENTLY idx_users_email;
"""


@pytest.fixture
def app(repo: GitRepo) -> GitRepo:
    repo.write("src/db/users.py", "def find(email):\n    return email\n")
    repo.write("src/pricing.py", "X = 1\n")
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "agent-index")
    repo.manifest(allowed_paths=[MIGRATION, "src/**"])
    return repo


def test_sensitive_path_without_justification_fails_and_says_what_to_add(app):
    app.write(MIGRATION, "CREATE INDEX idx_users_email ON users(email);\n")
    out = app.score()
    assert out.exit_code == 1
    assert out.codes == {"sensitive-path"}
    [v] = [v for v in out.report["violations"] if v["code"] == "sensitive-path"]
    assert f'"Blast-Radius: {MIGRATION}"' in v["message"]
    assert out.last_line == "RESULT: FAIL"


@pytest.mark.parametrize("source", ["message-file", "commit"])
def test_justification_accepted_from_each_source(app, source, tmp_path):
    app.write(MIGRATION, "CREATE INDEX idx_users_email ON users(email);\n")
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(TRAILERS, encoding="utf-8")
    if source == "commit":
        app.commit(TRAILERS)
        out = app.score("--base", "main")
    else:
        out = app.score("--message-file", str(msg))
    assert (out.exit_code, out.codes) == (0, set()), out.text
    [j] = out.report["justifications"]
    assert (j["path"], j["evidence"]) == (MIGRATION, "src/db/users.py:2")
    assert "justified: " + MIGRATION in out.text


@pytest.mark.parametrize(
    ("evidence", "codes"),
    [
        ("src/db/users.py:2", set()),
        ("src/db/users.py:3", {"bad-justification"}),  # past the end
        ("src/db/nope.py:1", {"bad-justification"}),  # missing file
        ("src/db/users.py:0", {"bad-justification"}),
    ],
)
def test_evidence_must_resolve_in_the_scored_tree(app, tmp_path, evidence, codes):
    app.write(MIGRATION, "CREATE INDEX i;\n")
    msg = tmp_path / "msg"
    msg.write_text(f"x\n\nBlast-Radius: {MIGRATION}\nJustification: {evidence} why\nRollback: DROP INDEX i;\n")
    out = app.score("--message-file", str(msg))
    assert codes <= out.codes and (out.codes - codes) <= {"sensitive-path"}
    assert (out.exit_code == 0) == (not codes)


def test_a_glob_never_grants_a_sensitive_path(app, tmp_path):
    app.manifest(allowed_paths=["migrations/**", "src/**"])
    app.write(MIGRATION, "CREATE INDEX i;\n")
    msg = tmp_path / "msg"
    msg.write_text(TRAILERS)
    out = app.score("--message-file", str(msg))
    assert out.codes == {"sensitive-path"}


def test_defer_justifications_leaves_them_to_the_commit_msg_stage(app):
    app.write(MIGRATION, "CREATE INDEX i;\n")
    assert app.score("--defer-justifications").codes == set()


def test_no_verify_commit_passes_nothing_in_ci(app):
    """The hook is skippable; `--base` in CI scores every commit in the range anyway."""
    app.manifest(allowed_paths=["src/pricing.py"])
    app.write("src/db/users.py", "def find(email):\n    return eval(email)\n")
    app.commit("sneaky, committed with --no-verify")  # the fixture commits with --no-verify
    app.write("src/pricing.py", "X = 2\n")
    app.commit("the real fix")
    out = app.score("--base", "main")
    assert out.exit_code == 1
    assert "unlisted-path" in out.codes
    assert out.paths("unlisted-path") == {"src/db/users.py"}


def test_base_mode_reads_the_manifest_from_base_so_a_job_cannot_widen_it(repo):
    repo.write("src/a.py", "a\n")
    manifest = repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["src/a.py"])
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "agent-x")
    repo.write_manifest(manifest, allowed_paths=["**"])
    repo.write("other.py", "x\n")
    repo.commit("widen the fence")
    out = repo.score("--base", "main", manifest=manifest)
    assert {"manifest-changed", "unlisted-path"} <= out.codes


# --- pinning ---------------------------------------------------------------------------------


def _pin(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("how", ["flag", "env", "file"])
def test_pinned_manifest_mismatch_is_exit_2_before_anything_runs(app, monkeypatch, how):
    app.write("src/pricing.py", "X = 2\n")
    wrong = "0" * 64
    args = []
    if how == "flag":
        args = ["--manifest-sha256", wrong]
    elif how == "env":
        monkeypatch.setenv("SCORE_DIFF_MANIFEST_SHA256", wrong)
    else:
        (app.manifest_path.parent / (app.manifest_path.name + ".sha256")).write_text(f"{wrong}  manifest.json\n")
    out = app.score(*args)
    assert (out.exit_code, out.codes) == (2, {"manifest-hash-mismatch"})
    assert out.last_line == "RESULT: FAIL (could not score: manifest-hash-mismatch)"


def test_pin_subcommand_writes_a_matching_sha256_file(app):
    code, text = run_cli(["pin", "--manifest", str(app.manifest_path)])
    assert code == 0
    pin = app.manifest_path.parent / "manifest.json.sha256"
    assert pin.read_text() == f"{_pin(app.manifest_path)}  manifest.json\n"
    app.write("src/pricing.py", "X = 2\n")
    assert app.score().exit_code == 0
    app.manifest(allowed_paths=["**"])  # edited after pinning
    assert app.score().codes == {"manifest-hash-mismatch"}


def test_check_manifest_prints_the_digest(app):
    code, text = run_cli(["check-manifest", "--manifest", str(app.manifest_path)])
    assert code == 0
    assert _pin(app.manifest_path) in text


def test_check_manifest_rejects_an_invalid_one(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps({"job_id": "x", "allowed_paths": [], "required_test": PASSING_TEST}))
    code, text = run_cli(["check-manifest", "--manifest", str(bad)])
    assert code == 2
    assert text.rstrip().endswith("score-diff check-manifest: failed (manifest-invalid)")


def test_pin_follows_the_manifest_as_named_even_through_a_symlink(app, tmp_path):
    """`pin` writes <name>.sha256 beside the name; scoring must look for it there, not beside the link's target."""
    target = tmp_path / "real-manifest.json"
    target.write_bytes(app.manifest_path.read_bytes())
    link = tmp_path / "job.json"
    link.symlink_to(target)
    assert run_cli(["pin", "--manifest", str(link)])[0] == 0
    assert (tmp_path / "job.json.sha256").exists()
    app.write("src/pricing.py", "X = 2\n")
    assert app.score(manifest=link).exit_code == 0
    target.write_text(target.read_text().replace('"src/**"', '"**"'))  # loosened behind the link
    assert app.score(manifest=link).codes == {"manifest-hash-mismatch"}
