"""Programs that run other code: shells, `env`, `timeout`, `nice`, `nohup`, `stdbuf`, `time`, `sudo`,
`xargs`, `command`, `builtin`, `exec`, `setsid`, `coproc`, `busybox`, `trap`, and `cd`.

The command or code a runner runs is followed wherever the runner takes it from (its options,
a heredoc, a here-string, a pipe, a script operand), through the walk's `dispatch` and
`run_code`. Options are read with each program's grammar (options.py); a word no grammar
explains makes the command unknown. `eval`, `source`, `alias`, shell functions and code the
guard cannot see (a pipe into `bash`) are unknown too: asked, or denied where the agent cannot
ask. What is not a runner, a writer (writers.py, gitcmd.py), an interpreter (interpreters.py)
or a fetcher (fetchers.py) is "another program", whose own writes the guide leaves to the
commit gate.
"""

from __future__ import annotations

import re

from .base import Args, ShellWalk, Unknown
from .options import Grammar, grammar, parse

# GNU coreutils (env, timeout, nice, nohup, stdbuf --help and the coreutils manual), GNU time
# (time --help), sudo (sudo-project/sudo docs/sudo.mdoc.in), findutils' xargs (xargs --help).
WRAPPERS: dict[str, Grammar] = {
    "env": grammar(
        "0iv",
        "uCS",
        long="ignore-environment null debug list-signal-handling",
        long_valued="unset chdir split-string",
        long_optional="block-signal default-signal ignore-signal",
        stops=True,
        aliases={"C": "chdir", "S": "split-string", "i": "ignore-environment"},
    ),
    "timeout": grammar(
        "v", "ks", long="foreground preserve-status verbose", long_valued="kill-after signal", stops=True
    ),
    "nice": grammar(valued="n", long_valued="adjustment", stops=True, numeric="adjustment"),
    "nohup": grammar(stops=True),
    "stdbuf": grammar(valued="ioe", long_valued="input output error", stops=True),
    "time": grammar(
        "apqvV",
        "fo",
        long="append portability quiet verbose",
        long_valued="format output",
        stops=True,
        aliases={"o": "output"},
    ),
    "sudo": grammar(
        "ABbEeHiKklNnPSsVv",
        "CcDghpRrTtUu",
        long="askpass background bell edit list login non-interactive preserve-groups stdin shell"
        " validate remove-timestamp reset-timestamp set-home",
        long_valued="close-from chdir group host prompt chroot role type command-timeout other-user user",
        long_optional="preserve-env",
        stops=True,
        aliases={"D": "chdir", "e": "edit", "R": "chroot", "l": "list", "v": "validate", "V": "version"},
    ),
    "xargs": grammar(
        "0ortpx",
        "adEILnPs",
        "eil",
        long="null open-tty interactive no-run-if-empty verbose exit show-limits",
        long_valued="arg-file delimiter max-lines max-args max-procs process-slot-var max-chars",
        long_optional="eof replace",
        stops=True,
        aliases={"I": "replace", "i": "replace"},
    ),
    # OpenBSD doas(1): -L -n -s, -C config, -u user
    "doas": grammar("Lns", "Cu", stops=True),
    # util-linux ionice(1): -c class, -n level, -p/-P/-u ids, -t
    "ionice": grammar("t", "cnpPu", long="ignore", long_valued="class classdata pid pgid uid", stops=True),
    "command": grammar("pvV", stops=True),
    "builtin": grammar(stops=True),
    "exec": grammar("cl", "a", stops=True),
    "setsid": grammar("cfw", long="ctty fork wait", stops=True),
}
SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "rbash"})
_SHELL_LONG = frozenset(
    {"--norc", "--noprofile", "--posix", "--login", "--verbose", "--noediting", "--restricted", "--debugger"}
)
OPAQUE = frozenset({"pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe"})
UNKNOWN_BUILTINS = {
    "eval": "eval runs text the guard does not read",
    "source": "source runs a script the guard does not read",
    ".": ". runs a script the guard does not read",
    "alias": "alias changes what a later word runs",
    "enable": "enable can load builtins the guard does not know",
    "hash": "hash can make a name run another program",
    "popd": "popd returns to a directory the guard does not follow",
    "fc": "fc re-runs commands the guard cannot see",
}


def unknown_builtin(w: ShellWalk, name: str, args: Args) -> None:
    if name != "alias" or any(a is None or "=" in a for a in args):
        w.unknown(UNKNOWN_BUILTINS[name])


def busybox(w: ShellWalk, name: str, args: Args) -> None:
    if args:
        w.dispatch(args[0], args[1:]) if args[0] is not None else w.unknown("busybox's applet is not literal")


def coproc(w: ShellWalk, name: str, args: Args) -> None:
    _run(w, args, "coproc")


def opaque(w: ShellWalk, name: str, args: Args) -> None:
    w.unknown(f"{name} runs commands the guard cannot parse")


def other_runner(w: ShellWalk, name: str, args: Args) -> None:
    w.unknown(f"{name} runs commands the guard does not read")


def editor(w: ShellWalk, name: str, args: Args) -> None:
    w.unknown(f"{name} edits files by commands of its own, which the guard does not read")


def _run(w: ShellWalk, words: Args, runner: str) -> None:
    """A command a runner runs: its first word names the program."""
    if not words:
        return
    if words[0] is None:
        w.unknown(f"the command {runner} runs is not literal")
        return
    w.dispatch(words[0], list(words[1:]))


def wrapper(w: ShellWalk, name: str, args: Args) -> None:
    parsed = parse(WRAPPERS[name], args, name)
    rest = list(parsed.operands)
    if name == "env":
        if parsed.has("split-string"):  # env puts -S's words in its place and reads its options again
            return wrapper(w, name, _env_split(args))
        while rest and rest[0] is not None and ("=" in rest[0] or rest[0] == "-"):
            key, _, value = rest[0].partition("=")
            w.env(key, value)
            rest.pop(0)
    if name == "sudo":
        if parsed.has("chroot"):
            raise Unknown("sudo -R runs the command in another root directory")
        if parsed.has("edit"):
            for path in rest:
                w.target(path, "edit", "sudoedit's file")
            return
        if parsed.has("list", "validate", "version", "help", "remove-timestamp", "reset-timestamp", "K", "k"):
            return
        while rest and rest[0] is not None and "=" in rest[0] and not rest[0].startswith("-"):
            key, _, value = rest[0].partition("=")
            w.env(key, value)
            rest.pop(0)
    if name == "command" and parsed.has("v", "V"):
        return
    if name == "timeout":
        if not rest:
            return
        rest.pop(0)  # the duration
    if name == "time":
        for out in parsed.values("output"):
            w.target(out, "write", "time -o's file")
    if name == "xargs":
        return _xargs(w, parsed.values("replace"), parsed.has("replace"), rest)
    directory = parsed.values("chdir") if name in ("env", "sudo") else []
    if directory:
        with w.inside(directory[-1]):
            _run(w, rest, name)
    else:
        _run(w, rest, name)
    return None


def _env_split(args: Args) -> Args:
    """env's words with each -S STRING replaced by the words of STRING (GNU env, "-S/--split-string")."""
    out: Args = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None or arg in ("-", "--") or not arg.startswith("-"):
            return out + list(args[i:])
        if arg.startswith("--"):
            key, eq, given = arg[2:].partition("=")
            value: str | None = given
            takes = [n for n in ("split-string", "unset", "chdir") if key and n.startswith(key)]
            if takes and not eq:
                i += 1
                value = args[i] if i < len(args) else None
            if takes == ["split-string"]:
                out += _split(value)
            else:
                out += [arg] + ([value] if takes and not eq else [])
            i += 1
            continue
        letters = arg[1:]
        cut = next((k for k, c in enumerate(letters) if c in "uCS"), None)
        if cut is None:
            out.append(arg)
        else:
            value = letters[cut + 1 :] or None
            if not value:
                i += 1
                value = args[i] if i < len(args) else None
            if letters[cut] == "S":
                out += ([f"-{letters[:cut]}"] if cut else []) + _split(value)
            else:
                out += [f"-{letters[: cut + 1]}", value]
        i += 1
    return out


def _split(value: str | None) -> Args:
    if value is None or re.search(r"[\\$'\"#]", value):
        raise Unknown("env -S's string cannot be split exactly by the guard (quotes, escapes or variables)")
    return list(value.split())


def _xargs(w: ShellWalk, replace: list[str | None], replacing: bool, command: Args) -> None:
    """xargs runs `command` (echo by default) with words read from its input added, or put in place of -I's string."""
    if not command:
        return
    marker = next((r for r in reversed(replace) if r), "{}") if replacing else None
    words: Args = [None if (marker and a is not None and marker in a) else a for a in command]
    _run(w, words + ([] if replacing else [None]), "xargs")


def cd(w: ShellWalk, name: str, args: Args) -> None:
    parsed = parse(grammar("LPe@"), args, name)
    operands = list(parsed.operands)
    if name == "pushd" and (not operands or (operands[0] or "+")[:1] in "+-"):
        w.chdir(None)  # pushd's stack rotations: not followed
    elif len(operands) > 1:
        raise Unknown(f"{name} is given more than one directory")
    elif not operands:
        w.chdir(w.home)
    else:
        w.chdir(operands[0])


def trap(w: ShellWalk, name: str, args: Args) -> None:
    if not args or args[0] in ("-l", "-p", "-P"):
        return
    code = args[1] if args[0] == "--" and len(args) > 1 else args[0]
    if code in ("-", ""):
        return
    saved = w.cwds
    w.cwds = None  # the trap runs later, in whatever directory the shell is in then
    w.run_code(code, "trap")
    w.cwds = saved


def shell(w: ShellWalk, name: str, args: Args) -> None:
    """bash/sh and kin: `-c` takes the first operand as code; else a script operand, else stdin."""
    inline = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            raise Unknown(f"{name} is given a word that is not literal where an option could be")
        if arg in ("-", "--"):
            i += 1
            break
        if arg.startswith("--"):
            if arg in ("--rcfile", "--init-file"):
                raise Unknown(f"{name} {arg} runs a file the guard does not read")
            if arg not in _SHELL_LONG and arg not in ("--version", "--help"):
                raise Unknown(f"{name} option {arg} is not one the guard knows")
        elif arg[:1] in "-+" and len(arg) > 1:
            letters = arg[1:]
            if not re.fullmatch(r"[abefhkmnptuvxBCHPTilrscDEO]+", letters):
                raise Unknown(f"{name} option {arg} is not one the guard knows")
            inline = inline or (arg[0] == "-" and "c" in letters)
            i += 1 if not re.search(r"[oO]", letters) else 2  # -o NAME, -O NAME
            continue
        else:
            break
        i += 1
    operands = args[i:]
    if inline:
        w.run_code(operands[0] if operands else None, f"{name} -c")
    elif operands:
        w.unknown(f"{name} runs a script the guard does not read")
    else:
        _stdin_code(w, name)


def _stdin_code(w: ShellWalk, name: str) -> None:
    """A shell reading its code from stdin: run it when the command shows it literally."""
    if w.stdin is None:
        return  # the agent's own stdin, which the command does not give
    if w.stdin.text is None:
        w.unknown(f"{name} reads its program from {w.stdin.what}, which the guard cannot see")
    else:
        w.run_code(w.stdin.text, name)


# Programs that run a command the guard would have to read with a grammar it does not have.
OTHER_RUNNERS = frozenset(
    {
        "parallel", "flock", "watch", "script", "su", "runuser", "chroot", "unshare", "nsenter", "strace",
        "ltrace", "taskset", "chrt", "numactl", "fakeroot", "setpriv", "sg", "newgrp", "xvfb-run", "firejail",
        "proot", "systemd-run", "gdb", "expect", "tclsh", "wish", "at", "batch", "crontab", "ssh-agent",
    }
)  # fmt: skip
EDITORS = frozenset({"ed", "ex", "vi", "vim", "nvim", "emacs", "nano", "red"})
