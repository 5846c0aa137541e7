"""The fence is the committed fence: neither the working tree nor the environment the job's
own session sets may choose or loosen the manifest a change is judged by."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.testing.repo import GitRepo, Outcome, run_cli

TOKEN = "eval("
SKIPPED = "RESULT: PASS (with test skipped)"


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == "RESULT: FAIL"


def could_not_score(out: Outcome, code: str) -> bool:
    return out.exit_code == 2 and out.codes == {code} and out.last_line == f"RESULT: FAIL (could not score: {code})"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def fenced(repo: GitRepo) -> GitRepo:
    """job_manifest.json committed at the root: allowed/** only, eval( forbidden."""
    repo.write("allowed/a.py", "a\n")
    repo.write("other/b.py", "b\n")
    repo.manifest_path = repo.write_manifest(
        repo.root / "job_manifest.json", allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN]
    )
    repo.commit("base with its fence")
    return repo


def loosen(repo: GitRepo) -> Path:
    return repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["**"], forbidden_substrings=["x-"])


# --- worktree mode: an edited manifest on disk judges nothing ------------------------------------------


def test_edited_manifest_is_flagged_and_the_change_judged_by_heads(fenced: GitRepo) -> None:
    loosen(fenced)
    fenced.write("other/b.py", "b2\n")
    fenced.write("allowed/a.py", f"{TOKEN}x)\n")
    out = fenced.score()
    assert failed_with(out, "manifest-changed", "unlisted-path", "forbidden-token"), out.text
    assert out.paths("unlisted-path") >= {"other/b.py"}
    assert (
        out.report["binding"]["manifest_sha256"]
        == hashlib.sha256(fenced.git("show", "HEAD:job_manifest.json").stdout.encode()).hexdigest()
    )


def test_edited_manifest_with_a_matching_pin_on_disk(fenced: GitRepo) -> None:
    """The pin beside a committed manifest is read from HEAD too: re-pinning on disk changes nothing."""
    assert run_cli(["pin", "--manifest", str(fenced.manifest_path)])[0] == 0
    fenced.commit("pin the fence")
    loose = loosen(fenced)
    assert run_cli(["pin", "--manifest", str(loose)])[0] == 0
    fenced.write("other/b.py", "b2\n")
    out = fenced.score()
    assert failed_with(out, "manifest-changed", "unlisted-path"), out.text
    assert out.paths("unlisted-path") >= {"other/b.py", "job_manifest.json.sha256"}


def test_edited_manifest_staged_is_still_judged_by_heads(fenced: GitRepo) -> None:
    loosen(fenced)
    fenced.write("other/b.py", "b2\n")
    fenced.git("add", "-A")
    out = fenced.score()
    assert failed_with(out, "manifest-changed", "unlisted-path"), out.text
    assert "other/b.py" in out.paths("unlisted-path")


def test_symlink_committed_as_the_manifest_is_refused(repo: GitRepo) -> None:
    repo.write("allowed/a.py", "a\n")
    loose = repo.write_manifest(repo.root / "docs/loose.json", allowed_paths=["**"])
    repo.symlink("job_manifest.json", "docs/loose.json")
    repo.commit("a fence that is a link")
    repo.write("other/b.py", "b2\n")
    out = repo.score(manifest=repo.root / "job_manifest.json")
    assert could_not_score(out, "manifest-invalid"), out.text
    assert loose.exists()


def test_unchanged_manifest_at_head_passes(fenced: GitRepo) -> None:
    fenced.write("allowed/a.py", "a2\n")
    out = fenced.score()
    assert out.exit_code == 0 and out.codes == set() and out.last_line == SKIPPED, out.text
    assert not any("chosen by" in w for w in out.report["warnings"])


def test_text_report_names_the_manifest_and_its_digest(fenced: GitRepo) -> None:
    fenced.write("allowed/a.py", "a2\n")
    out = fenced.score()
    digest = out.report["binding"]["manifest_sha256"]
    assert f"bound to: manifest job_manifest.json sha256 {digest}  base -  head " in out.text


# --- the environment may only name a committed manifest inside the repository ----------------------------


def _env_fence(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, manifest: Path, pin: bool) -> Outcome:
    monkeypatch.setenv("SCORE_DIFF_MANIFEST", str(manifest))
    if pin:
        monkeypatch.setenv("SCORE_DIFF_MANIFEST_SHA256", sha(manifest))
    code, text = run_cli(
        [
            "--repo",
            str(repo.root),
            "--skip-test",
            "--format",
            "json",
            "--output",
            str(repo.scratch / "r.json"),
            "--format",
            "text",
        ]
    )
    import json

    return Outcome(code, json.loads((repo.scratch / "r.json").read_text()), text)


@pytest.mark.parametrize("pin", [True, False])
def test_environment_cannot_swap_in_a_manifest_outside_the_repository(fenced: GitRepo, monkeypatch, pin: bool) -> None:
    loose = fenced.write_manifest(fenced.scratch / "loose.json", allowed_paths=["**"])
    fenced.write("other/b.py", "b2\n")
    out = _env_fence(fenced, monkeypatch, loose, pin)
    assert could_not_score(out, "manifest-invalid"), out.text
    assert "outside the repository" in out.report["violations"][0]["message"]


def test_environment_cannot_swap_the_fence_in_range_mode_either(fenced: GitRepo, monkeypatch) -> None:
    fenced.git("checkout", "-q", "-b", "agent-x")
    fenced.write("other/b.py", "b2\n")
    fenced.commit("outside the fence")
    loose = fenced.write_manifest(fenced.scratch / "loose.json", allowed_paths=["**"])
    monkeypatch.setenv("SCORE_DIFF_MANIFEST", str(loose))
    monkeypatch.setenv("SCORE_DIFF_MANIFEST_SHA256", sha(loose))
    code, text = run_cli(["--repo", str(fenced.root), "--base", "main", "--skip-test"])
    assert code == 2 and text.splitlines()[-1] == "RESULT: FAIL (could not score: manifest-invalid)"


def test_environment_cannot_name_an_uncommitted_manifest_in_the_repository(fenced: GitRepo, monkeypatch) -> None:
    loose = fenced.write_manifest(fenced.root / "allowed/loose.json", allowed_paths=["**"])
    fenced.write("other/b.py", "b2\n")
    out = _env_fence(fenced, monkeypatch, loose, pin=True)
    assert could_not_score(out, "manifest-invalid"), out.text
    assert "not committed" in out.report["violations"][0]["message"]


def test_environment_may_name_a_committed_manifest_and_the_report_says_so(fenced: GitRepo, monkeypatch) -> None:
    job = fenced.write_manifest(fenced.root / "jobs/fix.json", allowed_paths=["allowed/**"])
    fenced.commit("a second job's fence", "jobs/fix.json")
    fenced.write("allowed/a.py", "a2\n")
    out = _env_fence(fenced, monkeypatch, job, pin=True)
    assert out.exit_code == 0 and out.last_line == SKIPPED, out.text
    assert "warning: the manifest jobs/fix.json was chosen by $SCORE_DIFF_MANIFEST" in out.text
    assert "bound to: manifest jobs/fix.json sha256 " + sha(job) in out.text


def test_environment_pin_cannot_override_the_committed_pin(fenced: GitRepo, monkeypatch) -> None:
    """A committed pin that no longer matches the committed manifest fails; an exported digest
    that does match must not replace it."""
    (fenced.root / "job_manifest.json.sha256").write_text("0" * 64 + "  job_manifest.json\n")
    fenced.commit("a pin for another manifest")
    fenced.write("allowed/a.py", "a2\n")
    monkeypatch.setenv("SCORE_DIFF_MANIFEST_SHA256", sha(fenced.manifest_path))
    out = fenced.score()
    assert could_not_score(out, "manifest-hash-mismatch"), out.text
    assert "disagree" in out.report["violations"][0]["message"]


def test_environment_pin_agreeing_with_the_committed_pin_passes(fenced: GitRepo, monkeypatch) -> None:
    assert run_cli(["pin", "--manifest", str(fenced.manifest_path)])[0] == 0
    fenced.commit("pin")
    fenced.write("allowed/a.py", "a2\n")
    monkeypatch.setenv("SCORE_DIFF_MANIFEST_SHA256", sha(fenced.manifest_path))
    out = fenced.score()
    assert out.exit_code == 0 and out.last_line == SKIPPED, out.text


def test_manifest_flag_outside_the_repository_still_works(fenced: GitRepo) -> None:
    """--manifest comes from the hook's committed configuration or CI's command line, not from the job."""
    outside = fenced.write_manifest(fenced.scratch / "ci.json", allowed_paths=["allowed/**"])
    fenced.write("allowed/a.py", "a2\n")
    out = fenced.score(manifest=outside)
    assert out.exit_code == 0 and out.last_line == SKIPPED, out.text
    assert f"bound to: manifest {outside} sha256 " in out.text
