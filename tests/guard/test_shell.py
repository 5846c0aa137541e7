"""Shell commands through the guard: every word accounted for, unknown is asked (Claude) or denied.

The repository has allowed/a.py (inside the fence), other/b.py and README.txt (outside). Each
ATTACKS row is a way a write outside the fence got past the guard (allowed silently) before
the shell reader followed bash and the programs' own grammars; NEIGHBOURS are the everyday
commands next to them that must stay allowed without a prompt.
"""

from __future__ import annotations

import json

import pytest

from tests.testing.guard import Guarded, observed
from tests.testing.repo import GitRepo

ATTACKS = [
    # code a shell or interpreter reads from stdin
    ("cat patch.sh | bash", "ask"),
    ("echo 'tee other/b.py' | sh", "deny"),
    ("bash <<'EOF'\ntee other/b.py\nEOF", "deny"),
    ("bash <<EOF\n$(echo tee) other/b.py\nEOF", "ask"),
    ("bash <<< 'tee other/b.py'", "deny"),
    ("sh -s < script.sh", "ask"),
    ("python3 - <<'EOF'\nopen('other/b.py', 'w').write('x')\nEOF", "ask"),
    ("python3 <<< \"open('other/b.py', 'w')\"", "ask"),
    ("cat <<'EOF' | python3\nimport os; os.remove('other/b.py')\nEOF", "ask"),
    ("node - <<'EOF'\nrequire('fs').writeFileSync('other/b.py', 'x')\nEOF", "ask"),
    ("bash -c -e 'tee other/b.py'", "deny"),
    # runners whose options were taken for the program they run
    ("xargs -n 1 rm < list", "ask"),
    ("xargs -n 1 cp -t other < list", "ask"),
    ("time -o other/b.py true", "deny"),
    ("cd allowed && env --chdir=.. tee other/b.py", "deny"),
    ("cd allowed && sudo -D .. tee other/b.py", "deny"),
    ('env -S"tee other/b.py"', "deny"),
    ("env -S 'tee \"other/b.py\"'", "ask"),
    ("coproc tee other/b.py", "deny"),
    ("source script.sh", "ask"),
    (". ./script.sh", "ask"),
    ("source <(echo tee other/b.py)", "ask"),
    ("trap 'tee other/b.py' EXIT", "ask"),
    ("alias t='tee other/b.py'", "ask"),
    ("f() { tee other/b.py; }; f", "ask"),
    ("BASH_ENV=script.sh bash -c true", "ask"),
    ("doas tee other/b.py", "deny"),
    ("ionice -c3 tee other/b.py", "deny"),
    ("parallel rm ::: other/b.py", "ask"),
    # a cd that may not run, or does not outlive its subshell
    ("true || cd allowed; tee b.py", "deny"),
    ("cd allowed | true; tee b.py", "deny"),
    ("cd allowed & tee b.py", "deny"),  # a background job runs in a subshell
    ("if false; then cd allowed; fi; tee b.py", "deny"),
    ("for d in 1; do cd allowed; done; tee b.py", "ask"),
    ("export CDPATH=/tmp; cd allowed && tee b.py", "ask"),
    # words bash expands that looked literal
    ("tee allowed/{,../other/b.py}", "ask"),
    # programs' own write options and script languages
    ("sort -o other/b.py allowed/a.py", "deny"),
    ("sed -n 'w other/b.py' allowed/a.py", "ask"),
    ("sed 's/a/b/w other/b.py' allowed/a.py", "ask"),
    ("sed '1e touch other/b.py' allowed/a.py", "ask"),
    ("find allowed -name x -fls other/b.py", "deny"),
    ("awk '{print > \"other/b.py\"}' allowed/a.py", "ask"),
    ("cp --target=other allowed/a.py", "deny"),
    ("cp -tother allowed/a.py", "deny"),
    # git: pathspec magic, paths from a file, work-tree-wide changes, unknown subcommands
    ("cd allowed && git checkout -- :/other/b.py", "ask"),
    ("git restore --pathspec-from-file=list", "ask"),
    ("git checkout HEAD~1", "ask"),
    ("git stash", "ask"),
    ("git reset --hard", "ask"),
    ("git -c alias.x='!tee other/b.py' x", "ask"),
    ("git rm other/b.py", "deny"),
    ("git clean -fd", "ask"),
    # "other programs" that write where their own words or input say
    ("curl -sSLo other/b.py https://example.invalid/x", "deny"),
    ("curl --output=other/b.py https://example.invalid/x", "deny"),
    ("curl -O https://example.invalid/b.py", "ask"),
    ("wget -O other/b.py https://example.invalid/x", "deny"),
    ("wget https://example.invalid/b.py", "ask"),
    ("patch -p1 < fix.diff", "ask"),
    ("tar -xzf vendor.tgz", "ask"),
    ("tar -czf other/b.tgz allowed", "deny"),
    ("tar -cfz allowed/x.tar other", "deny"),  # getopt gives -f the rest of its cluster: the archive is z
    ("ed -s other/b.py <<< $'a\\nx\\n.\\nw'", "ask"),
    ("vim -c 'normal ix' -c wq other/b.py", "ask"),
]

# pytest, make, python and awk run code the guard does not read: since issue 28 they run in the
# job's jail, rewritten, still without a prompt (tests/guard/test_unknown_by_default.py).
NEIGHBOURS = [
    "git status",
    "git diff --stat && git log --oneline -5",
    "git add allowed/a.py && git commit -m wip",
    "git checkout -b feature",
    "git switch -c feature",
    "sed -n p allowed/a.py",
    "sed -n '1,5p' allowed/a.py",
    "sed 's/a/b/g' allowed/a.py",
    "sed -i 's/a/b/g' allowed/a.py",
    "xargs grep -l x < list",
    "ls | head",
    "ls -la && grep -rn x allowed | head -20",
    "cd allowed && tee b.py < /dev/null",
    "(cd other && ls); echo hi > allowed/x.txt",
    "find . -name '*.py' -not -path './.git/*'",
    "find . -name '*.py' -exec grep -l x {} +",
    "sort allowed/a.py | uniq -c",
    "bash -c 'echo hi'",
    "ls > /dev/null 2>&1",
    "cp allowed/a.py allowed/c.py",
    "git checkout -- allowed/a.py",
    "curl -sSL https://example.invalid/x | head",
    "wget -qO- https://example.invalid/x | head",
    "tar -tzf vendor.tgz",
    "patch --dry-run -p1 < fix.diff",
]


def _bash(g: Guarded, command: str) -> dict:
    return {
        "session_id": "s",
        "prompt_id": "p",
        "cwd": str(g.repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


@pytest.fixture
def shell(committed: GitRepo) -> Guarded:
    committed.manifest(allowed_paths=["allowed/**"])
    return Guarded(committed)


# What Claude Code is told for a command the guard cannot account for: run it rewritten into the
# job's jail (PreToolUse updatedInput), not as it is and not at a prompt.
UNKNOWN = {"ask": "jail"}


@pytest.mark.parametrize(("command", "want"), ATTACKS)
def test_attack_is_not_allowed(shell: Guarded, command: str, want: str):
    code, out, err = shell.send(_bash(shell, command))
    assert observed("claude", code, out, err) == UNKNOWN.get(want, want), out
    codex = shell.send(_bash(shell, command), "codex")
    assert observed("codex", *codex) == "deny"  # an agent that cannot ask is told deny


@pytest.mark.parametrize("command", NEIGHBOURS)
def test_neighbour_is_allowed_without_a_prompt(shell: Guarded, command: str):
    code, out, err = shell.send(_bash(shell, command))
    assert (code, out) == (0, ""), json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] if out else err


@pytest.mark.parametrize(
    ("command", "want"),
    [
        ("cd allowed && echo hi > x.txt", "allow"),  # tree-sitter hangs the redirection on the list
        ("true || cd allowed && echo hi > b.py", "deny"),
        ("echo 'tee allowed/x' | bash < script.sh", "ask"),  # the file, not the pipe, is bash's stdin
        ("cd allowed && cat > x.txt <<'EOF'\nhi\nEOF", "allow"),
    ],
)
def test_a_redirection_belongs_to_the_last_command_of_a_list_or_pipeline(shell: Guarded, command: str, want: str):
    assert observed("claude", *shell.send(_bash(shell, command))) == UNKNOWN.get(want, want)


def test_cdpath_in_the_agents_environment_makes_a_relative_cd_unknown(shell: Guarded, monkeypatch):
    command = "cd allowed && tee b.py < /dev/null"
    assert observed("claude", *shell.send(_bash(shell, command))) == "allow"
    monkeypatch.setenv("CDPATH", str(shell.repo.scratch))
    assert observed("claude", *shell.send(_bash(shell, command))) == "jail"
    assert observed("claude", *shell.send(_bash(shell, "cd ./allowed && tee b.py < /dev/null"))) == "allow"
