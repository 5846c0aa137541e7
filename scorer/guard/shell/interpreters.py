"""Interpreters given code inline or on stdin: python, node, bun, ruby, perl, php, Rscript, lua, osascript, awk.

Code in another language is never read for what it might write: a keyword list would decide
an allow, and there is always one more way to spell `open`. So inline code (`python -c`,
`node -e`, an awk program), code on stdin, a module (`python -m`) and a script are all
unknown: asked, denied, or run in the job's jail. Only the forms that run no code at all
(`--version`, `--help`) are known. python's command line is python --help's; the others'
are their manuals' (`-e`, `--eval`, `-p`, `-r`; perlrun's -i, which edits its operands).
"""

from __future__ import annotations

import re

from .base import Args, ShellWalk, Unknown

INLINE = {
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "bun": ("-e", "--eval", "-p", "--print"),
    "ruby": ("-e",),
    "perl": ("-e", "-E"),
    "php": ("-r",),
    "Rscript": ("-e",),
    "lua": ("-e",),
    "osascript": ("-e",),
}
_NO_CODE = frozenset({"--version", "-V", "--help", "-h", "-v", "--help-env", "--help-xoptions", "--help-all"})


def _runs_no_code(args: Args) -> bool:
    return len(args) == 1 and args[0] in _NO_CODE


def python(w: ShellWalk, name: str, args: Args) -> None:
    """python's command line (python --help): only `--version` and `--help` run no code."""
    if not _runs_no_code(args):
        raise Unknown(f"{name} runs Python code (inline, a module, a script or stdin), which the guard does not read")


def inline(w: ShellWalk, name: str, args: Args) -> None:
    """`node -e CODE` and kin; `name` may carry a version (`node18`, `ruby3.2`)."""
    name = re.sub(r"[\d.]+$", "", name)
    if name == "perl":
        perl_in_place(w, args)
    if not _runs_no_code(args):
        raise Unknown(f"{name} runs code (inline, a script or stdin), which the guard does not read")


def awk(w: ShellWalk, name: str, args: Args) -> None:
    """awk's program is a language of its own (output redirection, pipes, system()): unknown."""
    if not _runs_no_code(args):
        raise Unknown(f"{name} runs an awk program, which the guard does not read")


def perl_in_place(w: ShellWalk, args: Args) -> None:
    """perl -i edits its file operands (perlrun: -i[extension]); the first operand is the script without -e."""
    if not any(a is not None and re.match(r"^-[a-zA-Z]*i", a) for a in args):
        return
    operands, coded, skip = [], False, False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg is None:
            raise Unknown("perl -i is given a word that is not literal")
        if arg in ("-e", "-E"):
            coded, skip = True, True
        elif arg.startswith("-") and arg != "-":
            coded = coded or bool(re.search(r"^-[a-zA-Z]*[eE]", arg))
        else:
            operands.append(arg)
    for path in operands if coded else operands[1:]:
        w.target(path, "edit", "perl -i's file")
