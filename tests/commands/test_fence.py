"""`score-diff fence` says what the installed hooks really score."""

from __future__ import annotations

from tests.testing.repo import GitRepo, run_cli
from tests.testing.setup import edit_starter


def test_the_fence_describes_the_hooks_installed_in_this_clone(repo: GitRepo) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.write("tests/test_app.py", "def test_app():\n    assert True\n")
    repo.commit("the project")
    assert run_cli(["init", "--repo", str(repo.root), "--hooks", "none"])[0] == 0
    edit_starter(repo.root)
    assert run_cli(["pin", "--repo", str(repo.root)])[0] == 0
    repo.commit("the fence")
    code, before = run_cli(["fence", "--repo", str(repo.root)])
    assert code == 0 and "no score-diff hook is installed in this clone" in before
    assert run_cli(["install-hook", "--repo", str(repo.root)])[0] == 0  # --since main, found
    code, after = run_cli(["fence", "--repo", str(repo.root)])
    assert code == 0
    assert "the hook on every commit runs `score-diff --since main`" in after
    assert "exactly as CI's `score-diff --base main` will" in after and "against HEAD" not in after
