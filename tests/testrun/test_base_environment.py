"""The base's run and the spec pass use one environment: the test's own program, with the
installation it comes from. A virtualenv's python whose virtualenv the base run could not read
ran on the base interpreter's site-packages instead (pyvenv.cfg hidden by the jail), so the base
recorded other plugins and other outcomes than the spec pass then met."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.testing.repo import GitRepo

SPEC = textwrap.dedent(
    """\
    import sys

    from calc import add


    def test_add():
        assert add(1, 2) == 3


    def test_the_interpreter_is_the_virtualenvs():
        assert sys.prefix == {venv!r}, sys.prefix
    """
)


def test_the_base_run_uses_the_virtualenv_the_spec_pass_uses(repo: GitRepo, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # --system-site-packages: pytest comes from the interpreter's site-packages, as in CI images
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
    repo.write("tests/test_calc.py", SPEC.format(venv=str(venv)))
    repo.write(".gitignore", "__pycache__/\n*.pyc\n")
    repo.commit("calc with a bug, and its tests")
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.manifest(
        allowed_paths=["calc.py"],
        protected_tests=["tests/**"],
        required_test=[python, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "tests"],
        always_run_test=True,
    )
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    out = repo.score(skip_test=False)
    assert out.exit_code == 0 and out.codes == set() and out.last_line == "RESULT: PASS", out.text
    # only test_add flipped; the interpreter test passed at the base too, in the same virtualenv
    assert "the 1 test(s) that failed at the base passed again" in out.text, out.text
