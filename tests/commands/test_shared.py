"""Options several subcommands share are declared once (commands/shared.py): the same flags, the same help."""

from __future__ import annotations

import argparse

from scorer.commands.shared import add_scope, scope_options
from scorer.context import Context
from scorer.main import parser


def _scope_flags() -> dict[str, str | None]:
    p = argparse.ArgumentParser()
    add_scope(p)
    return {a.option_strings[-1]: a.help for a in p._actions if a.option_strings and a.dest != "help"}


def test_score_commit_msg_and_test_take_the_scope_options_as_declared_once() -> None:
    scope = _scope_flags()
    assert set(scope) == {"--manifest", "--job", "--job-branch", "--repo", "--base", "--head", "--since"}
    for name in ("score", "commit-msg", "test"):
        shown = {a.option_strings[-1]: a.help for a in parser(name)._actions if a.option_strings}
        assert {flag: shown.get(flag) for flag in scope} == scope, name


def test_the_options_built_from_them_carry_each_one() -> None:
    argv = ["--manifest", "m.json", "--job", "fix", "--job-branch", "bot-*", "--repo", "r", "--since", "main"]
    args = parser("test").parse_args([*argv, "--spec"])
    ctx = Context(environ={}, stdout=None, stderr=None, stdin=None, cwd="/w")  # type: ignore[arg-type]
    opts = scope_options(args, ctx, None, spec_only=args.spec)
    assert (opts.manifest, opts.job, opts.job_branch, opts.repo, opts.since, opts.cwd, opts.spec_only) == (
        "m.json",
        "fix",
        "bot-*",
        "r",
        "main",
        "/w",
        True,
    )
    assert (opts.base, opts.head, opts.skip_test) == (None, None, False)  # test never skips the test
