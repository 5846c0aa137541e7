"""The parser agrees with bash (issue 28, item 7): a differential test of the words tree-sitter-bash
gives the guard against the words bash itself passes to a command, and of where each reads a
heredoc's end; where they differ, the guard answers unknown (or reads it as bash does).
Codex's patch headers are read as Codex reads them, after trimming.
"""

from __future__ import annotations

import subprocess

import pytest

from scorer.guard.patch import parse_patch
from scorer.guard.shell.walker import CommandWalker, analyse

SEPARATORS = ["\v", "\f", "\r", "\t", " ", "\\\n", "\\\n\\\n"]
WORDS = [
    *(shape.format(s=s) for s in SEPARATORS for shape in ("w a{s}b", "w 'a'{s}b", 'w "a{s}b"', "w a {s} b")),
    "w 'a\\\nb'",
    "w \\\n a",
    "w a\\\r\nb",
    "w a#b",
    "w a #b\\\nw c",  # a comment ends at the newline; the backslash in it continues nothing
    "w a\\ b",
    "w 'x'\\\n'y'",
    'w "a"\\\n"b" c',
]
HEREDOCS = [
    "cat <<'E'OF\nx $HOME\nEOF\n",
    'cat <<E"O"F\nx\nEOF\n',
    "cat <<\\EOF\nx $HOME\nEOF\n",
    "cat <<E\\OF\nx\nEOF\n",
    "cat <<-'EOF'\n\tx\n\tEOF\n",
    "cat << 'E F'\nx\nE F\n",
    "cat <<EOF\nx\\\ny\nEOF\n",
    "cat <<'EOF'\nx\\\ny\nEOF\n",
    "cat <<EOF\nx\nEOF \nEOF\n",
    "cat <<EOF\nx\n EOF\nEOF\n",
    "cat <<'EOF'\nx\nEOF\r\nEOF\n",
    "cat <<EOF\na\nEOF\n",
]


def _guard(line: str) -> tuple[list[list[str | None]], list[str]]:
    walker = CommandWalker("/", None, False)
    seen: list[list[str | None]] = []
    walker.dispatch = lambda name, args: seen.append([name, *args])  # type: ignore[method-assign]
    walker.run(line, 0)
    return seen, walker.unresolved


def _bash(line: str) -> list[list[str]]:
    script = "w() { printf '%s\\0' w \"$@\"; printf '\\1'; }\n" + line
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=False).stdout
    return [
        [word.decode("utf-8", "surrogateescape") for word in call.split(b"\0")[:-1]] for call in out.split(b"\1")[:-1]
    ]


@pytest.mark.parametrize("line", WORDS, ids=repr)
def test_the_words_are_bashs_or_the_command_is_unknown(line: str):
    words, unknown = _guard(line)
    assert words == _bash(line) or unknown, (words, _bash(line))


@pytest.mark.parametrize("command", HEREDOCS, ids=repr)
def test_a_heredoc_is_read_where_bash_reads_it_or_unknown(command: str):
    facts = analyse(command.replace("cat ", "cat > f ", 1), "/tmp", None)
    bash = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}).stdout
    written = facts.targets[0].content if facts.targets else None
    assert written == bash or facts.unresolved, (written, bash)


@pytest.mark.parametrize("lead", ["", " ", "\t", "  "])
def test_a_patch_header_is_read_after_trimming_as_codex_reads_it(lead: str):
    files = parse_patch(f"*** Begin Patch\n{lead}*** Delete File: tests/test_pricing.py\n*** End Patch\n")
    assert [(f.op, f.path) for f in files] == [("delete", "tests/test_pricing.py")]
