"""What a shell command would write, read from a real bash parse (tree-sitter-bash) the way bash runs it.

This module is the bash half: statements, lists, pipelines, subshells, redirections, heredocs,
here-strings, substitutions, the directory each command runs in and where its standard
input comes from. What each program does with its words is its handler's, found in the one
table of programs.py and called with the walk (the contract is base.py's `ShellWalk`).

The directory is followed as bash follows it: a `cd` in a pipeline element, a subshell or a
substitution does not outlive it; a `cd` that may or may not run (`a || cd x`, an `if`
branch) leaves every directory it could have left, and each relative target is checked
against all of them; a `cd` in a loop, `cd -` without a known previous directory, or a
`cd` that `CDPATH` could redirect leaves the directory unknown. A `cd` to a directory that
exists is taken to succeed.

tree-sitter was chosen over bashlex because it is imported in ~30 ms and parses a command
in ~0.1 ms (bashlex: ~150 ms to import), and every tool call pays for it. This module is
imported only for shell tools.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from ..payload import Target
from . import programs
from .base import Args, Stdin, Unknown

TREE = "tree"  # a directory target: every file under it would change
MAX_DEPTH = 4  # `bash -c "bash -c '...'"` is followed this deep, then refused
_DEVICES = re.compile(r"^/dev/(null|stdout|stderr|tty|fd/[012])$")
_WRITE_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&", "&>|"})
_READ_REDIRECTS = frozenset({"<", "<&", "<>"})
_GLOB = re.compile(r"(?<!\\)[*?\[]")
_LOOPS = frozenset({"while_statement", "for_statement", "c_style_for_statement"})
_BRANCHES = frozenset({"if_statement", "case_statement"})
_GATE_ENV = {
    "SKIP": "SKIP= makes pre-commit skip the named hooks",
    "PRE_COMMIT_ALLOW_NO_CONFIG": "PRE_COMMIT_ALLOW_NO_CONFIG lets pre-commit run without its configuration",
    "HUSKY_SKIP_HOOKS": "HUSKY_SKIP_HOOKS switches husky's hooks off",
    "SCORE_DIFF_MANIFEST": "SCORE_DIFF_MANIFEST would point the commit gate at another manifest",
    "SCORE_DIFF_MANIFEST_SHA256": "SCORE_DIFF_MANIFEST_SHA256 would change the manifest pin the commit gate checks",
}
# Variables that make a shell or git run code or write somewhere the command does not show.
_RUNNER_ENV = {
    "BASH_ENV": "BASH_ENV makes every bash it starts run a script the guard does not read",
    "ENV": "ENV makes sh run a script the guard does not read",
    "PROMPT_COMMAND": "PROMPT_COMMAND runs code the guard does not read",
    "GIT_DIR": "GIT_DIR points git at another repository",
    "GIT_WORK_TREE": "GIT_WORK_TREE points git at another working tree",
    "LD_PRELOAD": "LD_PRELOAD loads code into every program the command runs",
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


def analyse(command: str, cwd: str, home: str | None, cdpath: str | None = None) -> ShellFacts:
    """Every write target, unknown and gate skip in `command`, run in `cwd`."""
    walker = CommandWalker(cwd, home, bool(cdpath))
    walker.run(command, 0)
    return ShellFacts(
        tuple(dict.fromkeys(walker.targets)),
        tuple(dict.fromkeys(walker.unresolved)),
        tuple(dict.fromkeys(walker.skips)),
    )


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S)


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "surrogateescape"))


class CommandWalker:
    """One walk of a command's parse tree; program handlers call back into it (as base.ShellWalk)."""

    def __init__(self, cwd: str, home: str | None, cdpath: bool) -> None:
        self.cwds: tuple[str, ...] | None = (cwd,)  # None: not known
        self.oldpwd: tuple[str, ...] | None = None
        self.home = home
        self.cdpath = cdpath
        self.stdin: Stdin | None = None  # None: inherited from the agent, which the command does not control
        self.depth = 0
        self.lastpipe = False
        self.targets: list[Target] = []
        self.unresolved: list[str] = []
        self.skips: list[str] = []

    # -- parsing and walking ------------------------------------------------
    def run(self, command: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unknown(f"shells nested more than {MAX_DEPTH} deep")
            return
        tree = _parser().parse(command.encode("utf-8", "surrogateescape"))
        if tree.root_node.has_error:
            self.unknown("the command does not parse as bash")
        self.lastpipe = self.lastpipe or "lastpipe" in command
        saved, self.depth = self.depth, depth
        self._walk(tree.root_node)
        self.depth = saved

    def unknown(self, why: str) -> None:
        self.unresolved.append(why)

    def _walk(self, node: Any) -> None:
        kind = node.type
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, node)
        elif kind in _LOOPS or kind in _BRANCHES:
            self._compound(node, loop=kind in _LOOPS)
        elif kind == "function_definition":
            self.unknown("the command defines a shell function, which the guard does not follow")
        else:
            kids = node.children
            for i, child in enumerate(kids):
                if not child.is_named:
                    continue
                if i + 1 < len(kids) and kids[i + 1].type == "&":
                    self._subshell(child)  # `cd x &` runs in the background, in a subshell of its own
                else:
                    self._walk(child)

    def _children(self, node: Any) -> None:
        for child in node.named_children:
            self._walk(child)

    def _list(self, node: Any) -> None:
        """`a && b`, `a || b`: b may or may not run, so every directory either leaves is possible after."""
        parts = node.named_children
        if not parts:
            return
        self._walk(parts[0])
        for part in parts[1:]:
            before = self.cwds
            self._walk(part)
            self.cwds = _union(before, self.cwds)

    def _pipeline(self, node: Any, first: Any | None = None) -> None:
        """Each element runs in a subshell (bash without lastpipe); all but the first read a pipe."""
        saved_cwd, saved_in = self.cwds, self.stdin
        elements = ([first] if first is not None else []) + list(node.named_children)
        for i, element in enumerate(elements):
            self.cwds = saved_cwd
            if i > 0:
                self.stdin = Stdin("a pipe", self._output(elements[i - 1], saved_in))
            self._walk(element)
        last = self.cwds
        self.cwds = _union(saved_cwd, last) if self.lastpipe else saved_cwd
        self.stdin = saved_in

    def _output(self, node: Any, stdin: Stdin | None) -> str | None:
        """What a pipeline element writes to the pipe, when the command shows it: `cat` of its
        literal stdin, `echo` of literal words, `printf` of one literal without % or backslash."""
        if node.type != "command":
            return None
        name_node = node.child_by_field_name("name")
        name = _text(name_node) if name_node is not None else ""
        words = [c for c in node.named_children if c.type != "command_name"]
        args = [self.literal(c) if c.type not in ("herestring_redirect",) else None for c in words]
        if any(a is None for a in args):
            return None
        if name == "cat" and not args:
            return stdin.text if stdin is not None else None
        if name == "echo" and not any((a or "").startswith("-") for a in args):
            return " ".join(a for a in args if a is not None) + "\n"
        if name == "printf" and len(args) == 1 and not re.search(r"[%\\]", args[0] or ""):
            return args[0]
        return None

    def _subshell(self, node: Any) -> None:
        saved = self.cwds, self.oldpwd
        if node.type in ("subshell", "command_substitution", "process_substitution"):
            self._children(node)
        else:
            self._walk(node)
        self.cwds, self.oldpwd = saved

    def _compound(self, node: Any, loop: bool) -> None:
        """if/case/while/for: each part may run or not (a loop more than once)."""
        before = self.cwds
        seen = before
        for child in node.named_children:
            self.cwds = seen
            self._walk(child)
            seen = _union(seen, self.cwds)
        self.cwds = seen if (not loop or seen == before) else None

    def _substitution(self, node: Any) -> None:
        """$(...), `...`, <(...), >(...): a subshell; >(...) reads a pipe."""
        saved_in = self.stdin
        if _text(node).startswith(">("):
            self.stdin = Stdin("a pipe", None)
        self._subshell(node)
        self.stdin = saved_in

    def _redirected(self, node: Any) -> None:
        body = node.child_by_field_name("body")
        saved_in = self.stdin
        redirects = [c for c in node.named_children if c != body]
        if body is not None and body.type in ("list", "pipeline"):
            # tree-sitter hangs `a && b > f`'s and `a | b < f`'s redirections on the whole list or
            # pipeline; bash gives them to the last command, after the others ran (or beside them).
            rest: list[Any] = []
            self._with_tail(body, lambda last: rest.extend(self._apply(redirects, last)))
        else:
            rest = self._apply(redirects, body)
            if body is not None:
                pipe = next((r for r in rest if r.type == "pipeline"), None)
                if pipe is not None:  # tree-sitter puts `cat <<EOF | bash` 's pipeline inside the heredoc
                    self.stdin, stdin = saved_in, self.stdin
                    self._pipeline_from(pipe, body, stdin)
                    rest = [r for r in rest if r is not pipe]
                else:
                    self._walk(body)
        self.stdin = saved_in
        for more in rest:  # `cat <<EOF && x`: the rest of the line, which may or may not run
            before = self.cwds
            self._walk(more)
            self.cwds = _union(before, self.cwds)

    def _apply(self, redirects: list[Any], body: Any | None) -> list[Any]:
        """The redirections of `body`, stdin first (`cat > f <<EOF` writes the heredoc's text);
        what tree-sitter hung on a heredoc from the rest of the line is returned."""
        rest: list[Any] = []
        for child in redirects:
            if child.type == "herestring_redirect":
                self._herestring(child)
            elif child.type == "heredoc_redirect":
                rest += self._heredoc(child, body)
        for child in redirects:
            if child.type == "file_redirect":
                self._file_redirect(child, body)
            elif child.type not in ("herestring_redirect", "heredoc_redirect"):
                self._walk(child)
        return rest

    def _with_tail(self, node: Any, before_last: Callable[[Any], None]) -> None:
        """Walk a list or pipeline, calling `before_last` just before its last command runs."""
        parts = node.named_children
        if node.type == "pipeline":
            saved_cwd, saved_in = self.cwds, self.stdin
            for i, part in enumerate(parts):
                self.cwds = saved_cwd
                if i > 0:
                    self.stdin = Stdin("a pipe", self._output(parts[i - 1], saved_in))
                if i == len(parts) - 1:
                    self._tail(part, before_last)
                else:
                    self._walk(part)
            last = self.cwds
            self.cwds = _union(saved_cwd, last) if self.lastpipe else saved_cwd
            self.stdin = saved_in
            return
        self._walk(parts[0])
        for i, part in enumerate(parts[1:], start=1):
            before = self.cwds
            self._tail(part, before_last) if i == len(parts) - 1 else self._walk(part)
            self.cwds = _union(before, self.cwds)

    def _tail(self, part: Any, before_last: Callable[[Any], None]) -> None:
        if part.type in ("list", "pipeline"):
            self._with_tail(part, before_last)
        else:
            before_last(part)
            self._walk(part)

    def _pipeline_from(self, pipe: Any, first: Any, first_stdin: Stdin | None) -> None:
        saved_cwd, saved_in = self.cwds, self.stdin
        self.stdin = first_stdin
        self._walk(first)
        previous, given = first, first_stdin
        for element in pipe.named_children:
            self.cwds, self.stdin = saved_cwd, Stdin("a pipe", self._output(previous, given))
            self._walk(element)
            previous, given = element, self.stdin
        self.cwds = _union(saved_cwd, self.cwds) if self.lastpipe else saved_cwd
        self.stdin = saved_in

    def _heredoc(self, node: Any, body: Any | None) -> list[Any]:
        """Set the heredoc as stdin; return what tree-sitter hung on it from the rest of the line."""
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        content = next((c for c in node.children if c.type == "heredoc_body"), None)
        quoted = start is not None and bool(re.search(r"['\"\\]", _text(start)))
        text: str | None = _text(content) if content is not None else ""
        if content is not None and not quoted:
            for child in content.named_children:
                if child.type in ("command_substitution", "process_substitution"):
                    self._substitution(child)
            if any(c.type != "heredoc_content" for c in content.named_children):
                text = None  # expansions change the text
            else:
                text = re.sub(r"\\([$`\\\n])", r"\1", text or "")
        if text is not None and any(c.type == "<<-" for c in node.children):
            text = re.sub(r"(?m)^\t+", "", text)
        self.stdin = Stdin("a heredoc", text)
        rest = []
        for child in node.named_children:
            if child.type == "file_redirect":
                self._file_redirect(child, body)
            elif child.type not in ("heredoc_start", "heredoc_body", "heredoc_end"):
                rest.append(child)
        return rest

    def _herestring(self, node: Any) -> None:
        value = node.named_children[0] if node.named_children else None
        if value is not None:
            self._walk(value)  # its substitutions run
        text = self.literal(value) if value is not None else None
        self.stdin = Stdin("a here-string", None if text is None else text + "\n")

    def _file_redirect(self, node: Any, body: Any | None) -> None:
        ops = [c.type for c in node.children if not c.is_named]
        dest = node.child_by_field_name("destination")
        for child in node.named_children:
            if child.type in ("command_substitution", "process_substitution"):
                self._substitution(child)
        if not ops or dest is None:
            return
        value = self.literal(dest)
        if ops[0] in _READ_REDIRECTS and ops[0] != "<>":
            if ops[0] == "<" or not (value or "").isdigit():
                self.stdin = Stdin("a file", None)
            return
        if ops[0] not in _WRITE_REDIRECTS:
            return
        if ops[0] == ">&" and value is not None and (value.isdigit() or value == "-"):
            return  # 2>&1 duplicates a descriptor
        if dest.type == "process_substitution":
            return  # >(cmd) was walked: the writes are its command's
        self.target(value, "write", "a redirection target", _redirect_content(self, body))

    def _command(self, node: Any) -> None:
        saved_in = self.stdin
        name_node = node.child_by_field_name("name")
        args: Args = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                self._assignment(child)
            elif child.type == "file_redirect":
                self._file_redirect(child, node)
            elif child.type == "herestring_redirect":
                self._herestring(child)
            else:
                for sub in _substitutions(child):
                    self._substitution(sub)
                if child.type != "command_name":
                    args.append(self.literal(child))
        if name_node is not None:
            word = name_node.named_children[0] if name_node.named_children else None
            name = self.literal(word) if word is not None else None
            if name is None:
                self.unknown("the command's name is not literal (a variable or substitution)")
            else:
                self.dispatch(name, args)
        self.stdin = saved_in

    def _assignment(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        for sub in _substitutions(node):
            self._substitution(sub)
        name = _text(name_node) if name_node is not None else ""
        value = self.literal(value_node) if value_node is not None else ""
        self.env(name, value)

    def env(self, name: str, value: str | None) -> None:
        if name in _GATE_ENV:
            self.skips.append(_GATE_ENV[name])
        elif name == "HUSKY" and (value is None or value.strip().lower() in ("0", "false", "")):
            self.skips.append("HUSKY=0 switches husky's git hooks off")
        elif name.startswith("GIT_CONFIG") and (value is None or "hookspath" in value.lower()):
            self.skips.append(f"{name} could set core.hooksPath, which moves the commit gate's hooks")
        elif name.startswith("GIT_CONFIG") or name in _RUNNER_ENV:
            self.unknown(_RUNNER_ENV.get(name, f"{name} changes git's configuration"))
        elif name == "CDPATH":
            self.cdpath = True
        elif name == "OLDPWD":
            self.oldpwd = None

    # -- words ----------------------------------------------------------------
    def literal(self, node: Any) -> str | None:
        """The word's value when the parse shows it exactly; None for expansions, globs and braces."""
        kind, text = node.type, _text(node)
        if kind == "word":
            if _GLOB.search(text) or re.search(r"(?<!\\)[{}]", text):
                return None  # a glob or a brace expansion
            value = _unescape(text)
            if value == "~" or value.startswith("~/"):
                return (self.home + value[1:]) if self.home else None
            return None if value.startswith("~") else value
        if kind == "number":
            return text
        if kind == "raw_string":
            return text[1:-1]
        if kind == "string":
            return self._string(node)
        if kind == "concatenation":
            words = [c for c in node.children if c.type == "word"]
            if any(re.search(r"(?<!\\)[{}]", _text(c)) for c in words):
                return None  # a{b,c} is expanded by bash
            values = [self.literal(c) for c in node.children]
            return None if any(v is None for v in values) else "".join(v for v in values if v is not None)
        return self._home_expansion(node)

    def _string(self, node: Any) -> str | None:
        parts = []
        for child in node.children:
            if child.type == '"':
                continue
            if child.type == "string_content":
                parts.append(re.sub(r'\\([$`"\\\n])', r"\1", _text(child)))
            else:
                expanded = self._home_expansion(child)
                if expanded is None:
                    return None
                parts.append(expanded)
        return "".join(parts)

    def _home_expansion(self, node: Any) -> str | None:
        if node.type in ("simple_expansion", "expansion") and _text(node) in ("$HOME", "${HOME}"):
            return self.home
        return None

    # -- what program handlers call (base.ShellWalk) ---------------------------
    def dispatch(self, name: str, args: Args) -> None:
        """Account for one command: `name` and its words, read by the program table's handler."""
        base = posixpath.basename(name)
        handler = programs.lookup(base)
        if handler is None:
            return  # another program: its own writes are the commit gate's
        try:
            handler(self, base, args)
        except Unknown as exc:
            self.unknown(str(exc))

    def target(
        self, value: str | None, op: str, what: str, content: str | None = None, link: str | None = None
    ) -> None:
        if value is None:
            self.unknown(f"{what} is not a literal path (a variable, glob, brace or substitution)")
            return
        if _DEVICES.match(value) or (value == "-" and what == "tee's file"):
            return
        if os.path.isabs(value):
            self.targets.append(Target(value, op, content, None, link))
            return
        if self.cwds is None:
            self.unknown(f"{what} {value!r} is relative to a directory the guard cannot follow")
            return
        for cwd in self.cwds:
            self.targets.append(Target(value, op, content, cwd, link))

    def tree_target(self, value: str | None, op: str, what: str) -> None:
        """A target that may be a directory: op `tree`, every file under it would change."""
        if value is not None and self.isdir(value):
            op = TREE
        self.target(value, op, what)

    def isdir(self, value: str) -> bool:
        places = [value] if os.path.isabs(value) else [os.path.join(c, value) for c in self.cwds or ()]
        return any(os.path.isdir(p) and not os.path.islink(p) for p in places)

    def chdir(self, value: str | None) -> None:
        """`cd value`, as bash would take it (see the module docstring)."""
        previous = self.cwds
        if value == "-":
            self.cwds, self.oldpwd = self.oldpwd, previous
            return
        self.oldpwd = previous
        if value is None or (self.cwds is None and not os.path.isabs(value)):
            self.cwds = None
            return
        if self.cdpath and not value.startswith(("/", "./", "../")) and value not in (".", ".."):
            self.cwds = None  # CDPATH could take it elsewhere
            return
        new = tuple(dict.fromkeys(os.path.normpath(os.path.join(c, value)) for c in self.cwds or ("/",)))
        exists = all(os.path.isdir(p) for p in new)
        self.cwds = new if exists else _union(previous, new)  # a cd that may fail leaves both

    @contextmanager
    def inside(self, value: str | None) -> Iterator[None]:
        """A program that runs its command in another directory (env -C, sudo -D, git -C)."""
        saved = self.cwds, self.oldpwd
        self.chdir(value)
        try:
            yield
        finally:
            self.cwds, self.oldpwd = saved

    def run_code(self, code: str | None, what: str) -> None:
        """Bash code a runner takes from a string (`bash -c`, `eval`-like)."""
        if code is None:
            self.unknown(f"{what} runs text that is not literal")
            return
        saved = self.cwds, self.oldpwd
        self.run(code, self.depth + 1)
        self.cwds, self.oldpwd = saved


def _union(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if a is None or b is None:
        return None
    return tuple(dict.fromkeys(a + b))


def _substitutions(node: Any) -> Iterator[Any]:
    """The substitutions inside a word (they run before the command does)."""
    if node.type in ("command_substitution", "process_substitution"):
        yield node
        return
    for child in node.named_children:
        yield from _substitutions(child)


def _redirect_content(w: CommandWalker, body: Any | None) -> str | None:
    """The text `echo ... > f`, `printf ... > f` or `cat > f <<EOF` writes, when literal."""
    if body is None or body.type != "command":
        return None
    name_node = body.child_by_field_name("name")
    name = _text(name_node) if name_node is not None else ""
    args = [w.literal(c) for c in body.children_by_field_name("argument")]
    if name in ("cat", "tee"):
        return w.stdin.text if w.stdin is not None else None
    if name in ("echo", "printf") and all(a is not None for a in args):
        return " ".join(a for a in args if a is not None) + "\n"
    return None


_HANDLERS = {
    "command": CommandWalker._command,
    "variable_assignment": CommandWalker._assignment,
    "redirected_statement": CommandWalker._redirected,
    "list": CommandWalker._list,
    "pipeline": CommandWalker._pipeline,
    "subshell": CommandWalker._subshell,
    "command_substitution": CommandWalker._substitution,
    "process_substitution": CommandWalker._substitution,
    "comment": lambda w, n: None,
}
