"""`score-diff pin`: refuses init's unedited starter, with the reason; pins the edited manifest."""

from __future__ import annotations

from tests.testing.repo import GitRepo, run_cli
from tests.testing.setup import edit_starter


def test_pin_refuses_the_unedited_starter_and_pins_it_once_edited(repo: GitRepo) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.write("tests/test_app.py", "def test_app():\n    assert True\n")
    repo.commit("the project")
    assert run_cli(["init", "--repo", str(repo.root), "--hooks", "none"])[0] == 0
    code, out = run_cli(["pin", "--repo", str(repo.root)])
    assert code == 2 and not (repo.root / "job_manifest.json.sha256").exists()
    assert "job_manifest.json is still score-diff init's starter" in out and "narrow allowed_paths" in out, out
    edit_starter(repo.root, allowed_paths=["src/app.py", "tests/**"])
    code, out = run_cli(["pin", "--repo", str(repo.root)])
    assert code == 0 and (repo.root / "job_manifest.json.sha256").is_file(), out
