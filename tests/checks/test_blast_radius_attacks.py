"""Issue 9 section 6: blast radius and justifications, tried as an attacker would.

Each attack is a test that failed on main before its fix; each has its legitimate neighbour,
which must keep passing.
"""

from __future__ import annotations

import pytest

from scorer.checks.sensitive import classify
from tests.testing.repo import GitRepo

WORKFLOW_GLOB = ".github/workflows/*.yml"


def _trailers(path: str, indent: str = "") -> str:
    return (
        f"add {path}\n\n{indent}Blast-Radius: {path}\n{indent}Justification: src/why.py:1 needed for the job\n"
        f"{indent}Rollback: git revert this commit\n"
    )


@pytest.fixture
def app(repo: GitRepo) -> GitRepo:
    repo.write("src/why.py", "REASON = 1\n")
    repo.commit("initial")
    return repo


# --- an entry with glob metacharacters never names a sensitive path --------------------------


@pytest.mark.parametrize(
    ("entry", "name"),
    [
        (WORKFLOW_GLOB, WORKFLOW_GLOB),  # the file is literally called `*.yml`
        (".github/workflows/?.yml", ".github/workflows/?.yml"),
        (".github/workflows/[c].yml", ".github/workflows/[c].yml"),
        ("migrations/*", "migrations/*"),
    ],
)
def test_a_file_named_like_the_glob_that_matches_it_is_not_named_exactly(app, tmp_path, entry, name):
    app.manifest(allowed_paths=[entry, "src/**"])
    app.write(name, "on: push\n")
    msg = tmp_path / "msg"
    msg.write_text(_trailers(name), encoding="utf-8")
    out = app.score("--message-file", str(msg))
    # `[c].yml` matches `c.yml`, not itself, so it is also unlisted; the others are listed by the glob.
    assert out.codes - {"unlisted-path"} == {"sensitive-path"}, out.text
    [v] = [v for v in out.report["violations"] if v["code"] == "sensitive-path"]
    assert "no allowed_paths entry names it exactly" in v["message"]
    assert out.last_line == "RESULT: FAIL"


def test_the_literal_entry_still_grants_the_workflow(app, tmp_path):
    app.manifest(allowed_paths=[".github/workflows/ci.yml", "src/**"])
    app.write(".github/workflows/ci.yml", "on: push\n")
    msg = tmp_path / "msg"
    msg.write_text(_trailers(".github/workflows/ci.yml"), encoding="utf-8")
    out = app.score("--message-file", str(msg))
    assert (out.exit_code, out.codes) == (0, set()), out.text
    assert out.last_line == "RESULT: PASS (with test skipped)"


# --- trailers are read from the message as git will store it --------------------------------


MIGRATION = "migrations/0001_init.sql"


def _commit_msg(app: GitRepo, message: str, tmp_path, env: dict[str, str] | None = None, monkeypatch=None):
    app.manifest(allowed_paths=[MIGRATION, "src/**"])
    app.write(MIGRATION, "CREATE TABLE t (id int);\n")
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(message, encoding="utf-8")
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    return app.score("--message-file", str(msg))


def test_indented_trailers_that_a_space_comment_char_strips_do_not_count(app, tmp_path):
    app.git("config", "core.commentChar", " ")
    app.git("config", "commit.cleanup", "strip")
    out = _commit_msg(app, _trailers(MIGRATION, indent="  "), tmp_path)
    assert out.codes == {"sensitive-path"}, out.text
    assert out.last_line == "RESULT: FAIL"


def test_the_comment_char_from_the_command_line_counts_too(app, tmp_path, monkeypatch):
    """`git -c core.commentChar=B commit` reaches the hook as GIT_CONFIG_PARAMETERS: git strips
    every line starting with B, so `Blast-Radius:` itself is a comment."""
    out = _commit_msg(
        app, _trailers(MIGRATION), tmp_path, {"GIT_CONFIG_PARAMETERS": "'core.commentchar'='B'"}, monkeypatch
    )
    assert out.codes == {"sensitive-path"}, out.text


def test_auto_comment_char_keeps_plain_trailers(app, tmp_path):
    app.git("config", "core.commentChar", "auto")
    out = _commit_msg(app, "; a note git may treat as a comment\n" + _trailers(MIGRATION), tmp_path)
    assert (out.exit_code, out.codes) == (0, set()), out.text


def test_trailers_below_a_scissors_line_do_not_count(app, tmp_path):
    message = "add it\n\n# ------------------------ >8 ------------------------\n" + _trailers(MIGRATION)
    out = _commit_msg(app, message, tmp_path)
    assert out.codes == {"sensitive-path"}, out.text


@pytest.mark.parametrize("indent", ["", "  "])
def test_trailers_git_keeps_still_count(app, tmp_path, indent):
    app.git("config", "commit.cleanup", "strip")
    message = "# Please enter the commit message\n" + _trailers(MIGRATION, indent=indent)
    out = _commit_msg(app, message, tmp_path)
    assert (out.exit_code, out.codes) == (0, set()), out.text
    assert [j["path"] for j in out.report["justifications"]] == [MIGRATION]


# --- paths that run code or hold credentials -------------------------------------------------


@pytest.mark.parametrize(
    ("path", "category"),
    [
        (".npmrc", "package-manager"),
        ("web/.npmrc", "package-manager"),
        (".yarnrc.yml", "package-manager"),
        (".yarnrc", "package-manager"),
        (".pnpmfile.cjs", "package-manager"),
        ("Containerfile", "build"),
        ("images/Containerfile.dev", "build"),
        (".devcontainer/devcontainer.json", "dev-environment"),
        (".devcontainer.json", "dev-environment"),
        (".mcp.json", "dev-environment"),
        # the agents' own hook configuration (in gate-config since the guard landed)
        (".claude/settings.json", "gate-config"),
        (".claude/hooks/pre.sh", "gate-config"),
        (".codex/config.toml", "gate-config"),
        (".cursor/rules/x.mdc", "gate-config"),
        (".gemini/settings.json", "gate-config"),
        (".github/hooks/hooks.json", "gate-config"),
        ("pkg/.claude/settings.local.json", "gate-config"),
    ],
)
def test_paths_that_run_code_or_hold_credentials_are_sensitive(path, category):
    hit = classify(path)
    assert hit is not None and hit.category == category, (path, hit)


@pytest.mark.parametrize(
    "path",
    [
        "docs/claude.md",
        "src/cursor.py",
        "src/claude/client.py",  # a package named after the agent is code, not its configuration
        "src/gemini.py",
        "docs/npmrc.md",
        "src/yarnrc.py",
        "src/container_file.py",
        "docs/devcontainer.md",
        ".github/CODE_OF_CONDUCT.md",
        "src/hooks/use_thing.ts",
        "CLAUDE.md",
    ],
)
def test_neighbours_of_those_paths_are_not_sensitive(path):
    assert classify(path) is None, (path, classify(path))
