"""One module per agent, looked up by name; the neutral payload code imports none of them; Cursor."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from scorer import main as cli
from scorer.guard.payload import AGENTS
from tests.testing.repo import GitRepo


def test_the_neutral_payload_code_imports_no_agent_module():
    probe = (
        "import sys; import scorer.guard.payload, scorer.guard.decide, scorer.guard.answer; "
        "print([m for m in sys.modules if m.startswith('scorer.guard.agents.')])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_has_its_own_module_with_both_translations(agent: str):
    from scorer.guard.agents import lookup

    module = lookup(agent)
    assert module.__name__ == f"scorer.guard.agents.{agent}"
    assert callable(module.normalise) and callable(module.answer) and module.NAME


def test_an_unknown_agent_is_not_looked_up():
    from scorer.guard.agents import lookup
    from scorer.guard.payload import PayloadError

    for name in ("nosuch", "__init__", "../claude", "claude.tools"):
        with pytest.raises(PayloadError, match="unknown agent"):
            lookup(name)


def test_install_cursor_writes_its_hooks_file_keeping_the_users_hooks(committed: GitRepo):
    target = committed.root / ".cursor" / "hooks.json"
    target.parent.mkdir()
    mine = {"command": "./hooks/audit.sh"}
    target.write_text(json.dumps({"version": 1, "hooks": {"beforeShellExecution": [mine], "stop": [mine]}}))
    for _ in range(2):  # a second install adds nothing
        assert cli.main(["guard", "install", "--agent", "cursor"], stdout=io.StringIO(), cwd=str(committed.root)) == 0
    guard = {"command": "score-diff guard --agent cursor"}
    assert json.loads(target.read_text()) == {
        "version": 1,
        "hooks": {"beforeShellExecution": [mine, guard], "stop": [mine], "beforeMCPExecution": [guard]},
    }


def test_install_cursor_from_nothing_and_refuses_another_version(committed: GitRepo):
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", "cursor"], stdout=out, cwd=str(committed.root)) == 0
    data = json.loads((committed.root / ".cursor" / "hooks.json").read_text())
    assert data["version"] == 1 and set(data["hooks"]) == {"beforeShellExecution", "beforeMCPExecution"}
    (committed.root / ".cursor" / "hooks.json").write_text('{"version": 2, "hooks": {}}')
    out = io.StringIO()
    assert cli.main(["guard", "install", "--agent", "cursor"], stdout=out, cwd=str(committed.root)) == 2
    assert "cannot merge" in out.getvalue()


def test_cursor_configuration_is_a_sensitive_path_for_the_diff_gate(committed: GitRepo):
    committed.manifest(allowed_paths=["allowed/**", ".cursor/hooks.json"])
    committed.write(".cursor/hooks.json", "{}\n")
    assert ".cursor/hooks.json" in committed.score().paths("sensitive-path")
