"""Interpreters given code inline or on stdin: python, node, bun, ruby, perl, php, Rscript, lua, osascript, awk.

python's command line is python --help's; the others' inline-code options are their manuals'
(`-e`, `--eval`, `-p`, `-r`). Code the guard can see is allowed only when it mentions nothing
that may write a file (`WRITE_HINTS`); code it cannot see, a script operand excepted (another
program), is unknown. perl -i edits its operands (perlrun), and awk's program may write with
output redirection or `system()`.
"""

from __future__ import annotations

import re

from .base import Args, ShellWalk, Unknown
from .options import grammar, parse

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
# Inline code that mentions any of these may write a file; code that mentions none is allowed.
WRITE_HINTS = re.compile(
    r"open\s*\(|write|unlink|remove|rename|replace\s*\(|shutil|copy|rmtree|mkdir|truncate|chmod|symlink"
    r"|os\.system|subprocess|popen|spawn|exec|fs\.|File\.|Path\(|>\s*\S|`|system\s*\(|move|touch"
    r"|import\s*\(|require|__import__|getattr|eval|compile|\\x|\\u|chr\s*\(|decode|base64"
)


def _stdin_code(w: ShellWalk, name: str) -> None:
    """An interpreter reading its code from stdin: read it when the command shows it literally."""
    if w.stdin is None:
        return  # the agent's own stdin, which the command does not give
    if w.stdin.text is None:
        w.unknown(f"{name} reads its program from {w.stdin.what}, which the guard cannot see")
    elif WRITE_HINTS.search(w.stdin.text):
        w.unknown(f"{name} runs code from {w.stdin.what} that may write files")


def _code(w: ShellWalk, name: str, code: str | None) -> None:
    if code is None:
        w.unknown(f"{name} runs code that is not literal")
    elif WRITE_HINTS.search(code):
        w.unknown(f"{name} runs inline code that may write files")


def python(w: ShellWalk, name: str, args: Args) -> None:
    """python's command line (python --help): -c CODE, -m MODULE, a script, or `-`/nothing for stdin."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            raise Unknown(f"{name} is given a word that is not literal where an option could be")
        if arg == "-":
            return _stdin_code(w, name)
        if arg in ("--version", "--help", "--help-env", "--help-xoptions", "--help-all"):
            return None
        if arg == "--check-hash-based-pycs":
            i += 2
            continue
        if not arg.startswith("-"):
            return None  # a script: another program
        for j, c in enumerate(arg[1:], start=1):
            if c == "c":
                return _code(w, name, arg[j + 1 :] or (args[i + 1] if i + 1 < len(args) else None))
            if c == "m":
                return None  # a module: another program
            if c in "WX":
                i += 0 if arg[j + 1 :] else 1
                break
            if c not in "bBdEhiIOPqsSuvVxR?":
                raise Unknown(f"{name} option -{c} is not one the guard knows")
        i += 1
    _stdin_code(w, name)
    return None


def inline(w: ShellWalk, name: str, args: Args) -> None:
    """`node -e CODE` and kin; `name` may carry a version (`node18`, `ruby3.2`)."""
    name = re.sub(r"[\d.]+$", "", name)
    flags = INLINE[name]
    coded = False
    for i, arg in enumerate(args):
        if arg in flags:
            coded = True
            _code(w, name, args[i + 1] if i + 1 < len(args) else None)
        elif arg is not None and any(arg.startswith(f) and len(f) == 2 and len(arg) > 2 for f in flags):
            coded = True
            _code(w, name, arg[2:])
        elif arg is not None and arg.startswith(("--eval=", "--print=")):
            coded = True
            _code(w, name, arg.split("=", 1)[1])
    if name == "perl":
        perl_in_place(w, args)
    if not coded and all(a is not None and a.startswith("-") for a in args) and "--version" not in args:
        _stdin_code(w, name)


def awk(w: ShellWalk, name: str, args: Args) -> None:
    """awk's program is its first operand (or -f FILE, which is not read); output redirection or system() may write."""
    parsed = parse(
        grammar("bcCdDgMnNOPrstSVYLk", "FvfEeilW", long_valued="field-separator assign file source include load"),
        args,
        name,
    )
    if parsed.has("f", "E", "file", "i", "include", "l", "load"):
        raise Unknown(f"{name} runs a program file the guard does not read")
    sources = parsed.values("e", "source") or list(parsed.operands[:1])
    for source in sources:
        if source is None or re.search(r">|\||system|getline|inplace", source):
            raise Unknown(f"{name}'s program may write files or run commands")


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
