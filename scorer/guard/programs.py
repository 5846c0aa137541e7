"""What each program does with its words: runs other code, writes files, or is "another program".

Every program the guard knows is one of:

- a runner (shells, interpreters, `env`, `timeout`, `nice`, `nohup`, `stdbuf`, `time`,
  `sudo`, `xargs`, `command`, `builtin`, `exec`, `setsid`, `coproc`, `find -exec`, `trap`):
  the command or code it runs is followed wherever the runner takes it from (its options, a
  heredoc, a here-string, a pipe, a script operand);
- a writer (writers.py, gitcmd.py) whose targets are read as the program reads them;
- anything else: "another program", whose own writes the guide leaves to the commit gate.

Options are read with each program's grammar (options.py); a word no grammar explains makes
the command unknown. `eval`, `source`, `alias`, shell functions and code the guard cannot
see (a pipe into `bash`) are unknown too: asked, or denied where the agent cannot ask.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .options import Grammar, Unknown, grammar, parse

if TYPE_CHECKING:
    from .shell import Walker

Args = list[str | None]

# GNU coreutils (env, timeout, nice, nohup, stdbuf --help and the coreutils manual), GNU time
# (time --help), sudo (sudo-project/sudo docs/sudo.mdoc.in), findutils' xargs (xargs --help).
_WRAPPERS: dict[str, Grammar] = {
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
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "rbash"})
_SHELL_LONG = frozenset(
    {"--norc", "--noprofile", "--posix", "--login", "--verbose", "--noediting", "--restricted", "--debugger"}
)
_INLINE = {
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
_OPAQUE = frozenset({"pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe"})
# Inline code that mentions any of these may write a file; code that mentions none is allowed.
WRITE_HINTS = re.compile(
    r"open\s*\(|write|unlink|remove|rename|replace\s*\(|shutil|copy|rmtree|mkdir|truncate|chmod|symlink"
    r"|os\.system|subprocess|popen|spawn|exec|fs\.|File\.|Path\(|>\s*\S|`|system\s*\(|move|touch"
    r"|import\s*\(|require|__import__|getattr|eval|compile|\\x|\\u|chr\s*\(|decode|base64"
)
_UNKNOWN_BUILTINS = {
    "eval": "eval runs text the guard does not read",
    "source": "source runs a script the guard does not read",
    ".": ". runs a script the guard does not read",
    "alias": "alias changes what a later word runs",
    "enable": "enable can load builtins the guard does not know",
    "hash": "hash can make a name run another program",
    "popd": "popd returns to a directory the guard does not follow",
    "fc": "fc re-runs commands the guard cannot see",
}


def dispatch(w: Walker, name: str, args: Args) -> None:
    """Account for one command: `name` and its words."""
    base = posixpath.basename(name)
    try:
        _dispatch(w, base, args)
    except Unknown as exc:
        w.unknown(str(exc))


def _dispatch(w: Walker, name: str, args: Args) -> None:
    from . import gitcmd, writers

    if name in _WRAPPERS:
        _wrapper(w, name, args)
    elif name in ("cd", "pushd"):
        _cd(w, name, args)
    elif name in writers.WRITERS:
        writers.WRITERS[name](w, name, args)
    elif name == "git":
        gitcmd.git(w, args)
    elif name in _SHELLS:
        _shell(w, name, args)
    elif name == "busybox" and args:
        dispatch(w, args[0], args[1:]) if args[0] is not None else w.unknown("busybox's applet is not literal")
    elif name in _UNKNOWN_BUILTINS:
        if name != "alias" or any(a is None or "=" in a for a in args):
            w.unknown(_UNKNOWN_BUILTINS[name])
    elif name == "trap":
        _trap(w, args)
    elif name == "coproc":
        _run(w, args, "coproc")
    elif name in _OPAQUE:
        w.unknown(f"{name} runs commands the guard cannot parse")
    elif re.fullmatch(r"python[\d.]*", name):
        _python(w, name, args)
    elif _RUNNERS.get(name) is not None:
        _RUNNERS[name](w, name, args)
    elif re.sub(r"[\d.]+$", "", name) in _INLINE:
        _inline(w, re.sub(r"[\d.]+$", "", name), args)


def _run(w: Walker, words: Args, runner: str) -> None:
    """A command a runner runs: its first word names the program."""
    if not words:
        return
    if words[0] is None:
        w.unknown(f"the command {runner} runs is not literal")
        return
    dispatch(w, words[0], list(words[1:]))


def _wrapper(w: Walker, name: str, args: Args) -> None:
    parsed = parse(_WRAPPERS[name], args, name)
    rest = list(parsed.operands)
    if name == "env":
        if parsed.has("split-string"):  # env puts -S's words in its place and reads its options again
            return _wrapper(w, name, _env_split(args))
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


def _xargs(w: Walker, replace: list[str | None], replacing: bool, command: Args) -> None:
    """xargs runs `command` (echo by default) with words read from its input added, or put in place of -I's string."""
    if not command:
        return
    marker = next((r for r in reversed(replace) if r), "{}") if replacing else None
    words: Args = [None if (marker and a is not None and marker in a) else a for a in command]
    _run(w, words + ([] if replacing else [None]), "xargs")


def _cd(w: Walker, name: str, args: Args) -> None:
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


def _trap(w: Walker, args: Args) -> None:
    if not args or args[0] in ("-l", "-p", "-P"):
        return
    code = args[1] if args[0] == "--" and len(args) > 1 else args[0]
    if code in ("-", ""):
        return
    saved = w.cwds
    w.cwds = None  # the trap runs later, in whatever directory the shell is in then
    w.run_code(code, "trap")
    w.cwds = saved


def _shell(w: Walker, name: str, args: Args) -> None:
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
        _stdin_code(w, name, as_shell=True)


def _stdin_code(w: Walker, name: str, as_shell: bool) -> None:
    """A program reading its code from stdin: read it when the command shows it literally."""
    if w.stdin is None:
        return  # the agent's own stdin, which the command does not give
    if w.stdin.text is None:
        w.unknown(f"{name} reads its program from {w.stdin.what}, which the guard cannot see")
    elif as_shell:
        w.run_code(w.stdin.text, name)
    elif WRITE_HINTS.search(w.stdin.text):
        w.unknown(f"{name} runs code from {w.stdin.what} that may write files")


def _code(w: Walker, name: str, code: str | None) -> None:
    if code is None:
        w.unknown(f"{name} runs code that is not literal")
    elif WRITE_HINTS.search(code):
        w.unknown(f"{name} runs inline code that may write files")


def _python(w: Walker, name: str, args: Args) -> None:
    """python's command line (python --help): -c CODE, -m MODULE, a script, or `-`/nothing for stdin."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            raise Unknown(f"{name} is given a word that is not literal where an option could be")
        if arg == "-":
            return _stdin_code(w, name, as_shell=False)
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
    _stdin_code(w, name, as_shell=False)
    return None


def _inline(w: Walker, name: str, args: Args) -> None:
    flags = _INLINE[name]
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
        from .writers import perl_in_place

        perl_in_place(w, args)
    if not coded and all(a is not None and a.startswith("-") for a in args) and "--version" not in args:
        _stdin_code(w, name, as_shell=False)


def _awk(w: Walker, name: str, args: Args) -> None:
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


def _find(w: Walker, name: str, args: Args) -> None:
    from .writers import find

    find(w, args)


# Programs that run a command the guard would have to read with a grammar it does not have.
_OTHER_RUNNERS = frozenset(
    {
        "parallel", "flock", "watch", "script", "su", "runuser", "chroot", "unshare", "nsenter", "strace",
        "ltrace", "taskset", "chrt", "numactl", "fakeroot", "setpriv", "sg", "newgrp", "xvfb-run", "firejail",
        "proot", "systemd-run", "gdb", "expect", "tclsh", "wish", "at", "batch", "crontab", "ssh-agent",
    }
)  # fmt: skip
_EDITORS = frozenset({"ed", "ex", "vi", "vim", "nvim", "emacs", "nano", "red"})
# Programs that write what their input names (a diff, an archive): no target is on the command line.
_UNPACKERS = {
    "patch": ("--dry-run",),
    "tar": ("-t", "--list"),
    "unzip": ("-l", "-Z", "-v", "-t"),
    "cpio": (),
    "7z": ("l",),
}


def _editor(w: Walker, name: str, args: Args) -> None:
    w.unknown(f"{name} edits files by commands of its own, which the guard does not read")


def _unpacker(w: Walker, name: str, args: Args) -> None:
    """patch, tar, unzip: the files they write are named inside their input, not on the command line."""
    if name == "tar":
        # tar's mode is in its first word (`tar czf`) or an option cluster (`-xzf`, `--extract`)
        modes = [a for i, a in enumerate(args) if a is None or a.startswith("-") or i == 0]
        if not any(a is None or re.match(r"^-?[a-zA-Z]*x|^--extract|^--get", a) for a in modes):
            if any(a is not None and re.match(r"^-?[a-zA-Z]*[cru]|^--(create|append|update)", a) for a in modes):
                _tar_archive(w, args)
            return
    if any(a in _UNPACKERS[name] for a in args):
        return
    w.unknown(f"{name} writes the files its input names, which the guard does not read")


def _tar_archive(w: Walker, args: Args) -> None:
    """tar -c/-r/-u writes only its archive: -f FILE (or the cluster's f), else stdout or $TAPE."""
    for i, arg in enumerate(args):
        if arg is None:
            raise Unknown("tar is given a word that is not literal")
        if arg.startswith("--file="):
            return w.target(arg.split("=", 1)[1], "write", "tar's archive")
        if arg == "--file":
            return w.target(args[i + 1] if i + 1 < len(args) else None, "write", "tar's archive")
        cluster = arg[1:] if arg.startswith("-") and not arg.startswith("--") else (arg if i == 0 else "")
        if "f" in cluster:
            rest = cluster[cluster.index("f") + 1 :] if arg.startswith("-") else ""  # -cfNAME: getopt's value
            if not rest and cluster.index("f") != len(cluster) - 1:
                raise Unknown("tar's option cluster puts -f's value where the guard cannot tell it")
            value = rest or (args[i + 1] if i + 1 < len(args) else None)
            return w.target(value, "write", "tar's archive")
    raise Unknown("tar writes an archive the guard cannot place")


_CURL_FILES = ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
               "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc")  # fmt: skip
_CURL_UNKNOWN = ("-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name", "--output-dir",
                 "-K", "--config", "--create-dirs")  # fmt: skip


def _curl(w: Walker, name: str, args: Args) -> None:
    """curl writes only where its options say (stdout otherwise): -o/--output and the other file options."""

    def target(value: str | None, what: str) -> None:
        if value != "-":  # stdout
            w.target(value, "write", what)

    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            i += 1
            continue  # a URL or a value: a file option is a literal word
        key, eq, value = arg.partition("=")
        if key in _CURL_UNKNOWN or (arg[:1] == "-" and arg[1:2] != "-" and ("O" in arg or "J" in arg or "K" in arg)):
            raise Unknown(f"curl {arg} writes a file named by the server or a config the guard does not read")
        if key in _CURL_FILES and key.startswith("--"):
            target(value if eq else (args[i + 1] if i + 1 < len(args) else None), f"curl {key}'s file")
            i += 1 if eq else 2
            continue
        if arg[:1] == "-" and arg[1:2] != "-" and any(c in arg[1:] for c in "oDc"):
            at = min(arg.index(c) for c in "oDc" if c in arg[1:])
            rest = arg[at + 1 :]
            target(rest or (args[i + 1] if i + 1 < len(args) else None), f"curl -{arg[at]}'s file")
            i += 1 if rest else 2
            continue
        i += 1


def _wget(w: Walker, name: str, args: Args) -> None:
    """wget writes the file the URL names in the current directory unless -O FILE says where."""
    named = False
    for i, arg in enumerate(args):
        if arg is None:
            continue
        key, eq, given = arg.partition("=")
        value: str | None = None
        if key in ("--output-document", "--output-file", "--append-output"):
            value = given if eq else (args[i + 1] if i + 1 < len(args) else None)
            named = named or key == "--output-document"
        elif arg[:1] == "-" and arg[1:2] != "-" and any(c in arg for c in "Ooa"):
            at = min(arg.index(c) for c in "Ooa" if c in arg[1:])
            value = arg[at + 1 :] or (args[i + 1] if i + 1 < len(args) else None)
            named = named or arg[at] == "O"
        else:
            value = ""
        if value not in ("", "-"):  # - is stdout
            w.target(value, "write", "wget's output file")
        if arg.startswith(("-P", "--directory-prefix", "-r", "--recursive", "-m", "--mirror", "-i", "--input-file")):
            raise Unknown("wget writes files named by the server or a list the guard does not read")
    if not named:
        raise Unknown("wget writes the file its URL names, in the current directory")


_RUNNERS: dict[str, Callable[[Walker, str, Args], None]] = {
    **dict.fromkeys(_EDITORS, _editor),
    **dict.fromkeys(_OTHER_RUNNERS, lambda w, name, args: w.unknown(f"{name} runs commands the guard does not read")),
    **dict.fromkeys(_UNPACKERS, _unpacker),
    "curl": _curl,
    "wget": _wget,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "find": _find,
}
