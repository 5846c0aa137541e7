"""What a shell command would write, read from a real bash parse (tree-sitter-bash).

Long because it is one walk of the parse tree: each write shape (redirection, tee, sed -i, cp,
rm, git restore, heredocs, `bash -c`) is one small function beside the others.

tree-sitter was chosen over bashlex because it is imported in ~30 ms and parses a command
in ~0.1 ms (bashlex: ~150 ms to import), and every tool call pays for it. This module is
imported only for shell tools.

The analysis finds write targets the parse shows literally (redirections, tee, sed -i,
perl -i, cp/mv/ln/install/rsync destinations, rm and friends, chmod, dd of=, git
checkout/restore paths, apply_patch heredocs, `bash -c` strings), commands that would skip
or switch off the commit gate, and what it cannot establish (eval, inline interpreter code
that writes files, variables or globs in a target, a `cd` it cannot follow). Any other
program may write files too: the diff gate at commit time and in CI stays the backstop.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Any, NamedTuple

from .payload import Target

TREE = "tree"  # a directory target: every file under it would change
MAX_DEPTH = 4  # `bash -c "bash -c '...'"` is followed this deep, then refused
_DEVICES = re.compile(r"^/dev/(null|stdout|stderr|tty|fd/\d+)$")
_WRITE_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&"})
_WRAPPERS = frozenset(
    {"sudo", "doas", "env", "command", "exec", "nohup", "time", "nice", "ionice", "stdbuf", "timeout", "builtin"}
)
_WRAPPER_VALUE_OPTS = {
    "sudo": "ugCDhprtU",
    "doas": "uC",
    "env": "uCS",
    "nice": "n",
    "ionice": "cnp",
    "timeout": "sk",
    "stdbuf": "ioe",
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "busybox"})
_INLINE = {
    "python": ("-c",),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p"),
    "deno": ("eval",),
    "bun": ("-e", "--eval"),
    "ruby": ("-e",),
    "perl": ("-e", "-E"),
    "php": ("-r",),
    "Rscript": ("-e",),
    "lua": ("-e",),
    "osascript": ("-e",),
}
_OPAQUE = frozenset({"pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe"})
# Inline code that mentions any of these may write a file; code that mentions none is allowed.
_WRITE_HINTS = re.compile(
    r"open\s*\(|write|unlink|remove|rename|replace\s*\(|shutil|copy|rmtree|mkdir|truncate|chmod|symlink"
    r"|os\.system|subprocess|popen|spawn|exec|fs\.|File\.|Path\(|>\s*\S|`|system\s*\(|move|touch"
)
_GLOB = re.compile(r"(?<!\\)[*?\[]")
_DELETERS = frozenset({"rm", "unlink", "shred"})
_MAKERS = {"touch": "drt", "truncate": "sr"}  # option letters that take a value
_COPIERS = frozenset({"cp", "install", "ln", "rsync", "mv"})
_COPY_VALUE_OPTS = {"cp": "St", "install": "gmoStT", "ln": "St", "rsync": "efTB", "mv": "St"}
_GIT_VALUE_OPTS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})
_NO_VERIFY_GIT = frozenset({"commit", "push", "merge", "rebase", "am", "cherry-pick", "revert", "pull"})
_GATE_ENV = {
    "SKIP": "SKIP= makes pre-commit skip the named hooks",
    "PRE_COMMIT_ALLOW_NO_CONFIG": "PRE_COMMIT_ALLOW_NO_CONFIG lets pre-commit run without its configuration",
    "HUSKY_SKIP_HOOKS": "HUSKY_SKIP_HOOKS switches husky's hooks off",
    "SCORE_DIFF_MANIFEST": "SCORE_DIFF_MANIFEST would point the commit gate at another manifest",
    "SCORE_DIFF_MANIFEST_SHA256": "SCORE_DIFF_MANIFEST_SHA256 would change the manifest pin the commit gate checks",
}


class ShellFacts(NamedTuple):
    targets: tuple[Target, ...] = ()
    unresolved: tuple[str, ...] = ()  # why some write cannot be established
    gate_skips: tuple[str, ...] = ()  # what would skip or disable the commit gate


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def analyse(command: str, cwd: str, home: str | None) -> ShellFacts:
    """Every write target, unknown and gate skip in `command`, run in `cwd`."""
    walker = _Walker(cwd, home)
    walker.run(command, 0)
    return ShellFacts(
        tuple(walker.targets), tuple(dict.fromkeys(walker.unresolved)), tuple(dict.fromkeys(walker.skips))
    )


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S)


class _Walker:
    def __init__(self, cwd: str, home: str | None) -> None:
        self.cwd: str | None = cwd
        self.home = home
        self.targets: list[Target] = []
        self.unresolved: list[str] = []
        self.skips: list[str] = []

    # -- parsing and walking ------------------------------------------------
    def run(self, command: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unresolved.append(f"shells nested more than {MAX_DEPTH} deep")
            return
        tree = _parser().parse(command.encode("utf-8", "surrogateescape"))
        if tree.root_node.has_error:
            self.unresolved.append("the command does not parse as bash")
        self._walk(tree.root_node, depth)

    def _walk(self, node: Any, depth: int) -> None:
        kind = node.type
        if kind == "command":
            self._command(node, depth, self._heredoc_of(node))
        elif kind == "variable_assignment":
            self._assignment(node)
        elif kind == "file_redirect":
            self._redirect(node)
        elif kind == "subshell":  # `( cd x; ... )` leaves the outer directory alone
            saved = self.cwd
            for child in node.children:
                self._walk(child, depth)
            self.cwd = saved
            return
        for child in node.children:
            if kind == "command" and child.type == "variable_assignment":
                self._assignment(child)
                continue
            self._walk(child, depth)

    @staticmethod
    def _heredoc_of(node: Any) -> str | None:
        parent = node.parent
        if parent is None or parent.type != "redirected_statement":
            return None
        for child in parent.children:
            if child.type == "heredoc_redirect":
                body = next((c for c in child.children if c.type == "heredoc_body"), None)
                return body.text.decode("utf-8", "surrogateescape") if body is not None else ""
        return None

    # -- words ----------------------------------------------------------------
    def literal(self, node: Any) -> str | None:
        """The word's value when the parse shows it exactly; None for expansions and globs."""
        kind, text = node.type, node.text.decode("utf-8", "surrogateescape")
        if kind == "word":
            if _GLOB.search(text):
                return None
            value = _unescape(text)
            if value == "~" or value.startswith("~/"):
                return (self.home + value[1:]) if self.home else None
            return None if value.startswith("~") else value
        if kind == "number":
            return text
        if kind == "raw_string":
            return text[1:-1]
        if kind == "string":
            parts = []
            for child in node.children:
                if child.type == '"':
                    continue
                if child.type == "string_content":
                    parts.append(re.sub(r'\\([$`"\\\n])', r"\1", child.text.decode("utf-8", "surrogateescape")))
                else:
                    expanded = self._home_expansion(child)
                    if expanded is None:
                        return None
                    parts.append(expanded)
            return "".join(parts)
        if kind == "concatenation":
            values = [self.literal(c) for c in node.children]
            return None if any(v is None for v in values) else "".join(v for v in values if v is not None)
        return self._home_expansion(node)

    def _home_expansion(self, node: Any) -> str | None:
        if node.type in ("simple_expansion", "expansion") and node.text.decode() in ("$HOME", "${HOME}"):
            return self.home
        return None

    # -- targets --------------------------------------------------------------
    def target(
        self, value: str | None, op: str, what: str, content: str | None = None, link: str | None = None
    ) -> None:
        if value is None:
            self.unresolved.append(f"{what} is not a literal path (a variable, glob or substitution)")
            return
        if _DEVICES.match(value) or value == "-":
            return
        if not os.path.isabs(value) and self.cwd is None:
            self.unresolved.append(f"{what} {value!r} is relative to a directory the guard cannot follow")
            return
        self.targets.append(Target(value, op, content, self.cwd, link))

    def _redirect(self, node: Any) -> None:
        ops = [c.type for c in node.children if not c.is_named]
        dest = node.child_by_field_name("destination")
        if not ops or ops[0] not in _WRITE_REDIRECTS or dest is None:
            return
        value = self.literal(dest)
        if ops[0] == ">&" and value is not None and (value.isdigit() or value == "-"):
            return  # 2>&1 duplicates a descriptor
        self.target(value, "write", "a redirection target", self._redirect_content(node))

    def _redirect_content(self, node: Any) -> str | None:
        parent = node.parent
        body = parent.child_by_field_name("body") if parent is not None else None
        if body is None or body.type != "command":
            return None
        name, args = self._name_args(body)
        if name in ("cat", "tee"):
            return self._heredoc_of(body)
        if name in ("echo", "printf") and all(a is not None for a in args):
            return " ".join(a for a in args if a is not None) + "\n"
        return None

    def _assignment(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = name_node.text.decode() if name_node is not None else ""
        value = self.literal(value_node) if value_node is not None else ""
        self._env(name, value)

    def _env(self, name: str, value: str | None) -> None:
        if name in _GATE_ENV:
            self.skips.append(_GATE_ENV[name])
        elif name == "HUSKY" and (value is None or value.strip().lower() in ("0", "false", "")):
            self.skips.append("HUSKY=0 switches husky's git hooks off")
        elif name.startswith("GIT_CONFIG") and (value is None or "hookspath" in value.lower()):
            self.skips.append(f"{name} could set core.hooksPath, which moves the commit gate's hooks")

    # -- commands -------------------------------------------------------------
    def _name_args(self, node: Any) -> tuple[str | None, list[str | None]]:
        name_node = node.child_by_field_name("name")
        name = self.literal(name_node.children[0]) if name_node is not None and name_node.children else None
        args = [self.literal(c) for c in node.children_by_field_name("argument")]
        return (posixpath.basename(name) if name else name), args

    def _command(self, node: Any, depth: int, heredoc: str | None) -> None:
        name, args = self._name_args(node)
        if name is None:
            self.unresolved.append("the command's name is not literal")
            return
        self._dispatch(name, args, depth, heredoc)

    def _dispatch(self, name: str, args: list[str | None], depth: int, heredoc: str | None) -> None:
        if name in _WRAPPERS:
            self._wrapper(name, args, depth, heredoc)
        elif name == "xargs":
            inner = _first_operand(args, "")
            if inner is None or inner[1] in _WRITERS or inner[1] in ("sh", "bash"):
                self.unresolved.append("xargs supplies arguments the guard cannot see")
        elif name in ("cd", "pushd"):
            self._cd(args)
        elif name in _WRITERS:
            _WRITERS[name](self, name, args)
        elif name == "git":
            self._git(args)
        elif name in ("apply_patch", "applypatch"):
            self._apply_patch(args, heredoc)
        elif name in _SHELLS:
            self._shell(name, args, depth)
        elif name == "eval":
            self.unresolved.append("eval runs text the guard cannot read")
        elif name in _OPAQUE:
            self.unresolved.append(f"{name} runs commands the guard cannot parse")
        elif _inline_flags(name) is not None:
            self._inline(name, args)
        elif name == "find" and any(a in ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint") for a in args):
            self.unresolved.append("find -delete/-exec acts on files the guard cannot list")

    def _wrapper(self, name: str, args: list[str | None], depth: int, heredoc: str | None) -> None:
        rest = list(args)
        value_opts = _WRAPPER_VALUE_OPTS.get(name, "")
        while rest:
            arg = rest[0]
            if arg is None:
                self.unresolved.append(f"{name}'s arguments are not literal")
                return
            if name == "env" and "=" in arg and not arg.startswith("-"):
                key, _, value = arg.partition("=")
                self._env(key, value)
            elif name == "env" and arg in ("-C", "--chdir") and len(rest) > 1:
                self._cd(rest[1:2])
                rest.pop(0)
            elif arg.startswith("-") and arg != "-":
                if len(arg) == 2 and arg[1] in value_opts:
                    rest.pop(0)
            elif name == "timeout" and arg[:1].isdigit():
                pass  # the duration
            else:
                break
            rest.pop(0)
        if rest and rest[0] is not None:
            self._dispatch(posixpath.basename(rest[0]), rest[1:], depth, heredoc)

    def _cd(self, args: list[str | None]) -> None:
        operands = [a for a in args if a is None or not a.startswith("-")]
        if not operands:
            self.cwd = self.home
            return
        target = operands[0]
        if target is None or (self.cwd is None and not os.path.isabs(target)):
            self.cwd = None
            return
        self.cwd = os.path.normpath(os.path.join(self.cwd or "/", target))

    def _git(self, args: list[str | None]) -> None:
        i = 0
        saved = self.cwd
        while i < len(args) and args[i] is not None and str(args[i]).startswith("-"):
            opt = str(args[i])
            value = args[i + 1] if i + 1 < len(args) else None
            key = opt.split("=", 1)[0]
            if key in ("-c", "--config-env"):
                setting = value if opt in ("-c", "--config-env") else opt.split("=", 1)[1]
                if setting is None or "hookspath" in setting.lower():
                    self.skips.append("git -c core.hooksPath moves the commit gate's hooks")
            if opt == "-C":
                self._cd([value])
            i += 2 if opt in _GIT_VALUE_OPTS else 1
        sub = args[i] if i < len(args) else None
        rest = args[i + 1 :]
        if sub is None:
            if i < len(args):
                self.unresolved.append("the git subcommand is not literal")
        else:
            self._git_sub(sub, rest)
        self.cwd = saved

    def _git_sub(self, sub: str, rest: list[str | None]) -> None:
        if sub in _NO_VERIFY_GIT and "--no-verify" in rest:
            self.skips.append(f"git {sub} --no-verify skips the commit gate")
        if sub == "commit" and any(_short_cluster_has(a, "n", "mFCct") for a in rest if a):
            self.skips.append("git commit -n skips the commit gate")
        if sub == "config" and any(a is None or "hookspath" in a.lower() for a in rest):
            self.skips.append("git config core.hooksPath moves the commit gate's hooks")
        if sub == "update-index" and any(a in ("--assume-unchanged", "--skip-worktree") for a in rest):
            self.skips.append(
                f"git update-index {next(a for a in rest if a and a.startswith('--'))} hides "
                "changes from the commit gate"
            )
        if sub in ("checkout", "restore"):
            self._git_paths(sub, rest)
        if sub == "apply":
            self.unresolved.append("git apply writes what a patch file says, which the guard does not read")

    def _git_paths(self, sub: str, rest: list[str | None]) -> None:
        if "--" in rest:
            paths = rest[rest.index("--") + 1 :]
        elif sub == "restore":
            paths = _operands(rest, frozenset({"-s", "--source", "--pathspec-from-file"}))
        else:  # checkout without `--`: an operand that exists on disk is a path, else a branch
            paths = [
                a
                for a in _operands(rest, frozenset({"-b", "-B", "--orphan"}))
                if a is None or (self.cwd and os.path.lexists(os.path.join(self.cwd, a)))
            ]
        for path in paths:
            self._tree_target(path, "write", f"git {sub}'s path")

    def _tree_target(self, value: str | None, op: str, what: str) -> None:
        """A target that may be a directory: op `tree`, every file under it would change."""
        if value is not None and self.cwd is not None:
            full = os.path.join(self.cwd, value)
            if os.path.isdir(full) and not os.path.islink(full):
                op = TREE
        self.target(value, op, what)

    def _apply_patch(self, args: list[str | None], heredoc: str | None) -> None:
        from . import patch
        from .payload import patch_targets

        text = heredoc if heredoc is not None else (args[0] if args else None)
        if text is None:
            self.unresolved.append("apply_patch's patch is not literal")
            return
        try:
            files = patch.parse_patch(text)
        except patch.PatchError as exc:
            self.unresolved.append(f"apply_patch: {exc}")
            return
        if self.cwd is None:
            self.unresolved.append("apply_patch runs in a directory the guard cannot follow")
            return
        self.targets += patch_targets(files, self.cwd)

    def _shell(self, name: str, args: list[str | None], depth: int) -> None:
        for i, arg in enumerate(args):
            if arg is not None and arg.startswith("-") and "c" in arg[1:] and not arg.startswith("--"):
                code = args[i + 1] if i + 1 < len(args) else None
                if code is None:
                    self.unresolved.append(f"{name} -c runs text that is not literal")
                else:
                    self.run(code, depth + 1)
                return
        if any(a is None or not a.startswith("-") for a in args):
            self.unresolved.append(f"{name} runs a script the guard does not read")

    def _inline(self, name: str, args: list[str | None]) -> None:
        flags = _inline_flags(name) or ()
        for i, arg in enumerate(args):
            code = None
            if arg in flags:
                code = args[i + 1] if i + 1 < len(args) else None
                if code is None:
                    self.unresolved.append(f"{name} {arg} runs code that is not literal")
                    return
            elif arg is not None and any(arg.startswith(f) and len(f) == 2 and len(arg) > 2 for f in flags):
                code = arg[2:]
            if code is not None and _WRITE_HINTS.search(code):
                self.unresolved.append(f"{name} runs inline code that may write files")
                return


def _inline_flags(name: str) -> tuple[str, ...] | None:
    base = re.sub(r"[\d.]+$", "", name)  # python3.12 -> python
    return _INLINE.get(base)


def _short_cluster_has(arg: str, letter: str, takes_value: str) -> bool:
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 2:
        return False
    for ch in arg[1:]:
        if ch == letter:
            return True
        if ch in takes_value:
            return False
    return False


def _operands(args: list[str | None], value_opts: frozenset[str]) -> list[str | None]:
    """Arguments that are not options (nor option values); everything after `--` is an operand."""
    found: list[str | None] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--":
            return found + list(args[i + 1 :])
        if arg is not None and arg.startswith("-") and arg != "-":
            skip = arg in value_opts
            continue
        found.append(arg)
    return found


def _first_operand(args: list[str | None], value_opts: str) -> tuple[int, str] | None:
    for i, arg in enumerate(args):
        if arg is None:
            return None
        if not arg.startswith("-"):
            return i, posixpath.basename(arg)
    return None


def _short_opts(letters: str, long: tuple[str, ...] = ()) -> frozenset[str]:
    return frozenset({f"-{c}" for c in letters} | set(long))


def _tee(w: _Walker, name: str, args: list[str | None]) -> None:
    for path in _operands(args, frozenset()):
        w.target(path, "write", "tee's file")


def _sed(w: _Walker, name: str, args: list[str | None]) -> None:
    letter = "i"
    in_place = any(
        a is None or a.startswith("--in-place") or _short_cluster_has(a, letter, "ef" if name == "sed" else "eEMIx")
        for a in args
    )
    if not in_place:
        return
    value_opts = _short_opts("ef" if name == "sed" else "eEMI", ("--expression", "--file"))
    operands = _operands(args, value_opts)
    scripted = any(a in value_opts or (a or "").startswith(("--expression", "--file")) for a in args) or any(
        a and not a.startswith("--") and a.startswith("-") and ("e" in a[1:] or "E" in a[1:]) for a in args
    )
    files = operands if scripted else operands[1:]
    for path in files:
        w.target(path, "edit", f"{name} -i's file")


def _delete(w: _Walker, name: str, args: list[str | None]) -> None:
    for path in _operands(args, frozenset()):
        w._tree_target(path, "delete", f"{name}'s operand")


def _make(w: _Walker, name: str, args: list[str | None]) -> None:
    for path in _operands(args, _short_opts(_MAKERS[name], ("--size", "--reference", "--date"))):
        w.target(path, "write", f"{name}'s file")


def _chmod(w: _Walker, name: str, args: list[str | None]) -> None:
    operands = _operands(args, frozenset())
    reference = any((a or "").startswith("--reference") for a in args)
    for path in operands if reference else operands[1:]:
        w._tree_target(path, "mode", "chmod's file")


def _dd(w: _Walker, name: str, args: list[str | None]) -> None:
    for arg in args:
        if arg is None:
            w.unresolved.append("dd's arguments are not literal")
        elif arg.startswith("of="):
            w.target(arg[3:], "write", "dd's of= file")


def _copy(w: _Walker, name: str, args: list[str | None]) -> None:
    if name == "install" and any(a in ("-d", "--directory") for a in args):
        return
    value_opts = _short_opts(_COPY_VALUE_OPTS[name], ("--target-directory", "--suffix", "--backup"))
    operands = _operands(args, value_opts)
    directory = next(
        (args[i + 1] for i, a in enumerate(args) if a in ("-t", "--target-directory") and i + 1 < len(args)), None
    )
    directory = directory or next((a.split("=", 1)[1] for a in args if a and a.startswith("--target-directory=")), None)
    if name == "rsync":
        operands = [a for a in operands if a is None or not re.match(r"^[^/]*:", a)]  # host:path is remote
    sources, dest = (operands, directory) if directory else (operands[:-1], operands[-1] if operands else None)
    if dest is None or not sources:
        w.unresolved.append(f"{name}'s destination cannot be told from its arguments")
        return
    link = name == "ln" and any((a is not None and _short_cluster_has(a, "s", "St")) or a == "--symbolic" for a in args)
    into_dir = (
        directory is not None or dest.endswith("/") or (w.cwd is not None and os.path.isdir(os.path.join(w.cwd, dest)))
    )
    for src in sources:
        if name == "mv":
            w._tree_target(src, "move-from", "mv's source")
        if src is None:
            w.unresolved.append(f"{name}'s source is not literal")
            continue
        tree = name != "ln" and w.cwd is not None and os.path.isdir(os.path.join(w.cwd, src))
        where = posixpath.join(dest, posixpath.basename(src.rstrip("/"))) if into_dir else dest
        op = TREE if tree else "link" if link else "move-to" if name == "mv" else "write"
        w.target(where, op, f"{name}'s destination", link=src if link else None)


_WRITERS = {
    "tee": _tee,
    "sed": _sed,
    "perl": _sed,
    "rm": _delete,
    "unlink": _delete,
    "shred": _delete,
    "touch": _make,
    "truncate": _make,
    "chmod": _chmod,
    "dd": _dd,
    "cp": _copy,
    "mv": _copy,
    "ln": _copy,
    "install": _copy,
    "rsync": _copy,
}
