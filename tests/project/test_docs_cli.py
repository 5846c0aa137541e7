"""docs/cli.md's synopsis names, for each subcommand, exactly the options its parser takes and
exactly the choices of each option that has them (issue 21, item 7)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from scorer.main import COMMANDS, parser

CLI = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
SAME_AS = {"commit-msg": "score", "update": "pre-receive"}  # "[the same options]"


def synopsis() -> dict[str, str]:
    """Subcommand (`guard install` included) -> its synopsis text, continuation lines joined."""
    block = CLI.read_text(encoding="utf-8").split("```\n", 2)[1]
    found: dict[str, str] = {}
    name = ""
    for line in block.splitlines():
        if line.startswith("score-diff "):
            words = line.split()
            name = "score" if words[1].startswith(("[score]", "-")) else words[1]
            if words[1] == "guard" and words[2:3] == ["install"]:
                name = "guard install"
            found[name] = line
        elif line.startswith(" ") and name:
            found[name] += " " + line.strip()
    return found


def _documented(text: str) -> dict[str, set[str] | None]:
    """--option -> its choices as written (`--agent claude|codex`), or None."""
    found: dict[str, set[str] | None] = {}
    for option, value in re.findall(r"(--[a-z][a-z0-9-]*)(?:[ =]([A-Za-z0-9|-]+\|[A-Za-z0-9|-]+))?", text):
        found[option] = set(value.split("|")) if value else found.get(option)
    return found


def _parsed(name: str) -> dict[str, set[str] | None]:
    if name == "guard install":
        return _from_help(["guard", "install", "--help"])
    p = parser(name)
    return {
        a.option_strings[-1]: set(map(str, a.choices)) if a.choices else None
        for a in p._actions
        if a.option_strings and a.option_strings[-1] != "--help"
    }


def _from_help(argv: list[str]) -> dict[str, set[str] | None]:
    from scorer.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(argv, stdout=out)
    text = out.getvalue().split("options:", 1)[1]
    found: dict[str, set[str] | None] = {}
    for option, choices in re.findall(r"(--[a-z][a-z0-9-]*)(?: \{([a-z0-9,-]+)\})?", text):
        if option != "--help":
            found[option] = set(choices.split(",")) if choices else found.get(option)
    return found


def test_every_subcommand_has_a_synopsis_line() -> None:
    assert set(synopsis()) == {*COMMANDS, "guard install"}


@pytest.mark.parametrize("name", [*COMMANDS, "guard install"])
def test_the_synopsis_names_what_the_parser_takes(name: str) -> None:
    text = synopsis()[name]
    if "[the same options]" in text:
        text = synopsis()[SAME_AS[name]] + " " + text
    documented, parsed = _documented(text), _parsed(name)
    if name == "commit-msg":
        parsed.pop("--version", None)
        documented.pop("--version", None)
    assert set(documented) == set(parsed), (name, set(documented) ^ set(parsed))
    for option, choices in parsed.items():
        if choices is not None:
            assert documented[option] == choices, (name, option)
