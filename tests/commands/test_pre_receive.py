"""`score-diff pre-receive` and `update`: their options are the server Policy's fields, one option each."""

from __future__ import annotations

import pytest

from scorer.commands.pre_receive import policy
from scorer.main import parser
from scorer.server import DEFAULT_AGENT_REFS, Policy


@pytest.mark.parametrize(
    ("name", "extra"), [("pre-receive", []), ("update", ["refs/heads/agent-x", "0" * 40, "1" * 40])]
)
def test_every_policy_field_is_an_option_and_the_defaults_agree(name: str, extra: list[str]) -> None:
    args = parser(name).parse_args(extra)
    assert set(Policy._fields) <= set(vars(args))  # a new field without its option fails here, not on a push
    assert policy(args) == Policy()  # no option given: the server's defaults, agent_refs included
    assert Policy().agent_refs == DEFAULT_AGENT_REFS


def test_each_option_reaches_its_policy_field() -> None:
    argv = ["--repo", "/srv/p.git", "--agent-ref", "refs/heads/bot-*", "--base", "refs/heads/trunk"]
    argv += ["--manifest", "fence.json", "--manifest-sha256", "ab" * 32, "--deny-delete", "--job-branch", "bot-*"]
    chosen = policy(parser("pre-receive").parse_args([*argv, "--run-test"]))
    assert chosen == Policy(
        repo="/srv/p.git",
        agent_refs=("refs/heads/bot-*",),
        base="refs/heads/trunk",
        manifest="fence.json",
        manifest_sha256="ab" * 32,
        deny_delete=True,
        job_branch="bot-*",
        run_test=True,
    )
