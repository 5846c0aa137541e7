"""git's command line (git(1), gitcli(7), the subcommands' manuals): what it writes in the working tree.

Global options are git(1)'s; `-C` is followed, `--git-dir`/`--work-tree` make the call
unknown (they point git elsewhere). Subcommands fall in three sets: ones that change no
file in the working tree (status, log, diff, add, commit, ...), ones whose path operands
are the files they write (checkout/restore with paths, rm, mv, clean), and ones that change
files across the working tree (switching branches, reset --hard, stash, merge, rebase, ...):
unknown. A pathspec with magic (`:/path`, `:(glob)...`, `:!x`) or a glob, and
`--pathspec-from-file`, is unknown: git, not bash, decides what it matches. Gate skips
(`--no-verify`, `-n`, hooksPath) are reported as before.
"""

from __future__ import annotations

import os
import re

from .base import Args, ShellWalk, Unknown

_GLOBAL_VALUED = frozenset({"-C", "-c", "--config-env", "--namespace", "--super-prefix", "--attr-source"})
_GLOBAL_FLAGS = frozenset(
    {
        "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs",
        "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
        "--version", "-v", "--help", "-h", "--html-path", "--man-path", "--info-path", "--no-advice",
    }
)  # fmt: skip
_ELSEWHERE = ("--git-dir", "--work-tree", "--exec-path", "--bare", "--list-cmds")
_READ_ONLY = frozenset(
    {
        "status", "log", "diff", "show", "blame", "annotate", "ls-files", "ls-tree", "ls-remote", "rev-parse",
        "rev-list", "describe", "shortlog", "cat-file", "reflog", "show-ref", "for-each-ref", "merge-base",
        "name-rev", "help", "version", "count-objects", "fsck", "var", "whatchanged", "diff-tree", "diff-files",
        "diff-index", "check-ignore", "check-attr", "check-ref-format", "cherry", "range-diff", "verify-commit",
        "verify-tag", "add", "commit", "push", "fetch", "tag", "branch", "remote", "config", "update-index",
        "gc", "prune", "repack", "notes", "format-patch", "archive", "bundle", "hash-object", "update-ref",
        "symbolic-ref", "write-tree", "commit-tree", "mktag", "mktree", "request-pull", "maintenance",
        "credential", "init",
    }
)  # fmt: skip
_TREE_WIDE = frozenset(
    {
        "switch", "merge", "rebase", "pull", "cherry-pick", "revert", "am", "apply", "read-tree", "checkout-index",
        "bisect", "worktree", "clone", "submodule", "sparse-checkout", "filter-branch", "stash", "reset",
        "restore", "checkout", "clean",
    }
)  # fmt: skip
_NO_VERIFY = frozenset({"commit", "push", "merge", "rebase", "am", "cherry-pick", "revert", "pull"})
_MAGIC = re.compile(r"^:|[*?\[]")


def git(w: ShellWalk, name: str, args: Args) -> None:
    i = 0
    directory: str | None = None
    changed_dir = False
    while i < len(args) and args[i] is not None and str(args[i]).startswith("-"):
        opt = str(args[i])
        key = opt.split("=", 1)[0]
        if key in _ELSEWHERE:
            raise Unknown(f"git {key} points git at another repository or working tree")
        if key in ("-c", "--config-env"):
            setting = args[i + 1] if opt == key and i + 1 < len(args) else opt.partition("=")[2]
            _config(w, setting)
        elif key not in _GLOBAL_VALUED and key not in _GLOBAL_FLAGS:
            raise Unknown(f"git option {opt} is not one the guard knows")
        if key == "-C":
            directory, changed_dir = (args[i + 1] if i + 1 < len(args) else None), True
        i += 2 if (opt in _GLOBAL_VALUED) else 1
    if i >= len(args):
        return
    sub, rest = args[i], list(args[i + 1 :])
    if sub is None:
        raise Unknown("the git subcommand is not literal")
    if changed_dir:
        with w.inside(directory):
            _sub(w, sub, rest)
    else:
        _sub(w, sub, rest)


def _config(w: ShellWalk, setting: str | None) -> None:
    if setting is None or "hookspath" in setting.lower():
        w.skips.append("git -c core.hooksPath moves the commit gate's hooks")
    elif re.match(r"(?i)alias\.|core\.(worktree|fsmonitor|sshcommand|pager|editor)|.*\.(command|program)", setting):
        raise Unknown(f"git -c {setting.split('=', 1)[0]} can make git run something the guard does not read")


def _sub(w: ShellWalk, sub: str, rest: Args) -> None:
    _gate_skips(w, sub, rest)
    if sub in ("checkout", "restore"):
        _checkout(w, sub, rest)
    elif sub == "rm":
        _paths(w, "rm", rest, "delete", cached=("--cached",))
    elif sub == "mv":
        _mv(w, rest)
    elif sub in ("clean", "stash", "apply", "worktree") and _harmless(sub, rest):
        return
    elif sub == "reset" and not any(a in ("--hard", "--merge", "--keep") for a in rest):
        return  # reset moves HEAD and the index; the working tree stays
    elif sub == "switch" and rest and rest[0] in ("-c", "-C", "--create") and len(rest) == 2:
        return  # a new branch at HEAD: no file changes
    elif sub in _TREE_WIDE:
        raise Unknown(f"git {sub} can change files across the working tree")
    elif sub == "grep" and any((a or "").startswith(("-O", "--open-files-in-pager")) for a in rest):
        raise Unknown("git grep -O runs a program the guard does not read")
    elif sub not in _READ_ONLY and sub != "grep":
        raise Unknown(f"git {sub} is not a git command the guard knows (an alias or an external git-{sub})")


def _harmless(sub: str, rest: Args) -> bool:
    """The forms of these work-tree changers that change no file: a dry run, a listing, the index only."""
    if sub == "clean":
        return any(a in ("-n", "--dry-run") for a in rest)
    if sub == "apply":
        return "--cached" in rest and "--index" not in rest
    return rest[:1] in (["list"], ["show"])


def _gate_skips(w: ShellWalk, sub: str, rest: Args) -> None:
    if sub in _NO_VERIFY and "--no-verify" in rest:
        w.skips.append(f"git {sub} --no-verify skips the commit gate")
    if sub == "commit" and any(_short_cluster_has(a, "n", "mFCct") for a in rest if a):
        w.skips.append("git commit -n skips the commit gate")
    if sub == "config" and any(a is None or "hookspath" in a.lower() for a in rest):
        w.skips.append("git config core.hooksPath moves the commit gate's hooks")
    if sub == "config" and any(a is not None and re.match(r"(?i)alias\.", a) for a in rest):
        raise Unknown("git config alias.* defines a git command the guard does not read")
    flags = [a for a in rest if a in ("--assume-unchanged", "--skip-worktree")]
    if sub == "update-index" and flags:
        w.skips.append(f"git update-index {flags[0]} hides changes from the commit gate")


def _short_cluster_has(arg: str, letter: str, takes_value: str) -> bool:
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 2:
        return False
    for ch in arg[1:]:
        if ch == letter:
            return True
        if ch in takes_value:
            return False
    return False


def _pathspecs(rest: Args) -> tuple[list[str | None], bool]:
    """(the pathspecs after `--`, or None: no `--`)."""
    if any((a or "").startswith("--pathspec-from-file") for a in rest):
        raise Unknown("git --pathspec-from-file reads paths the guard does not see")
    if "--" in rest:
        return list(rest[rest.index("--") + 1 :]), True
    return [], False


def _literal_path(w: ShellWalk, path: str | None, what: str, op: str) -> None:
    if path is not None and _MAGIC.search(path):
        raise Unknown(f"{what} {path!r} is a pathspec git expands (magic or a glob)")
    w.tree_target(path, op, what)


def _checkout(w: ShellWalk, sub: str, rest: Args) -> None:
    paths, dashed = _pathspecs(rest)
    if not dashed:
        words = [a for a in rest if a is None or not a.startswith("-")]
        if any(a is None for a in rest):
            raise Unknown(f"git {sub}'s arguments are not literal")
        if sub == "checkout" and any(a in ("-b", "-B", "--orphan") for a in rest) and len(words) == 1:
            return  # a new branch at HEAD
        if sub == "restore":
            paths = [a for i, a in enumerate(rest) if a is not None and not a.startswith("-")
                     and rest[i - 1] not in ("-s", "--source")]  # fmt: skip
        else:
            on_disk = [a for a in words if a is not None and w.cwds and any(_exists(c, a) for c in w.cwds)]
            if len(on_disk) != len(words) or not words:
                raise Unknown("git checkout can change files across the working tree (a branch or commit)")
            paths = list(on_disk)
    for path in paths:
        _literal_path(w, path, f"git {sub}'s path", "write")


def _exists(cwd: str, path: str) -> bool:
    return os.path.lexists(os.path.join(cwd, path))


def _paths(w: ShellWalk, sub: str, rest: Args, op: str, cached: tuple[str, ...]) -> None:
    if any(a in cached for a in rest):
        return
    paths, dashed = _pathspecs(rest)
    if not dashed:
        paths = [a for a in rest if a is None or not a.startswith("-")]
    for path in paths:
        _literal_path(w, path, f"git {sub}'s path", op)


def _mv(w: ShellWalk, rest: Args) -> None:
    words = [a for a in rest if a is None or not a.startswith("-")]
    if len(words) < 2:
        return
    for src in words[:-1]:
        _literal_path(w, src, "git mv's source", "move-from")
        dest = words[-1]
        if dest is not None and w.isdir(dest) and src is not None:
            _literal_path(
                w, f"{dest.rstrip('/')}/{src.rstrip('/').rsplit('/', 1)[-1]}", "git mv's destination", "move-to"
            )
        else:
            _literal_path(w, dest, "git mv's destination", "move-to")
