"""git's command line (git(1), gitcli(7), the subcommands' manuals): what it writes in the working tree.

Global options are git(1)'s; `-C` is followed, `--git-dir`/`--work-tree` make the call
unknown (they point git elsewhere), and `-c` is known only for settings that change what git
prints. Subcommands fall in three sets: ones that change no file in the working tree
(status, log, diff, add, commit, ...), each read with its manual's options that write and
run nothing, so `git diff --output=f` or `git log --output` is unknown; ones whose path
operands are the files they write (checkout/restore with paths, rm, mv, clean); and every
other one (switching branches, reset --hard, stash, merge, archive, config NAME VALUE, init,
push, an alias): unknown. A pathspec with magic (`:/path`, `:(glob)...`, `:!x`) or a glob, and
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
# The subcommands that change no file in the working tree, each with the options of its manual
# that write nothing and run nothing (git-diff(1) --output, git-archive(1) -o, git-log's
# --output, git-format-patch(1) -o are left out, so they are unknown). Long options are
# read in both spellings (`--stat`, `--stat=80`); a valued one also takes the next word.
_DIFF_FLAGS = (
    "p u s patch no-patch raw patch-with-raw stat numstat shortstat dirstat summary name-only name-status"
    " patch-with-stat z full-index binary abbrev B M C find-copies-harder D irreversible-delete l S G"
    " pickaxe-all pickaxe-regex R text a ignore-cr-at-eol ignore-space-at-eol b ignore-space-change w"
    " ignore-all-space ignore-blank-lines W function-context exit-code quiet ext-diff no-ext-diff textconv"
    " no-textconv ignore-submodules src-prefix dst-prefix no-prefix default-prefix color no-color"
    " color-words word-diff word-diff-regex color-moved no-color-moved compact-summary cached staged"
    " merge-base no-index minimal patience histogram anchored diff-algorithm unified U relative"
    " no-relative inter-hunk-context break-rewrites find-renames find-copies find-object diff-filter O"
    " output-indicator-new output-indicator-old output-indicator-context check ws-error-highlight"
    " line-prefix ita-invisible-in-index ita-visible-in-index no-renames rename-empty no-rename-empty"
    " indent-heuristic no-indent-heuristic submodule color-moved-ws no-color-moved-ws 1 2 3 0 base ours"
    " theirs c cc combined-all-paths m dd remerge-diff first-parent"
)
_LOG_FLAGS = _DIFF_FLAGS + (
    " oneline pretty format abbrev-commit no-abbrev-commit encoding expand-tabs no-expand-tabs notes"
    " no-notes show-signature relative-date date parents children left-right graph show-linear-break"
    " n max-count skip since after until before author committer grep all-match invert-grep i"
    " regexp-ignore-case basic-regexp E extended-regexp F fixed-strings P perl-regexp remove-empty"
    " merges no-merges min-parents max-parents no-min-parents no-max-parents not all branches tags"
    " remotes glob exclude reflog walk-reflogs single-worktree ignore-missing bisect stdin cherry-mark"
    " cherry-pick left-only right-only cherry follow L decorate no-decorate decorate-refs"
    " decorate-refs-exclude source use-mailmap mailmap log-size full-diff reverse topo-order date-order"
    " author-date-order no-walk do-walk simplify-by-decoration full-history dense sparse"
    " simplify-merges ancestry-path boundary show-pulls alternate-refs g follow clear-decorations"
    " show-notes standard-notes no-standard-notes q"
)
_GRAMMARS: dict[str, str] = {
    "status": "s short b branch show-stash porcelain long v verbose u untracked-files ignore-submodules"
    " ignored z column no-column ahead-behind no-ahead-behind renames no-renames find-renames",
    "diff": _DIFF_FLAGS,
    "diff-tree": _DIFF_FLAGS + " r t root stdin no-commit-id v pretty format",
    "diff-files": _DIFF_FLAGS + " q",
    "diff-index": _DIFF_FLAGS,
    "log": _LOG_FLAGS,
    "show": _LOG_FLAGS,
    "whatchanged": _LOG_FLAGS,
    "shortlog": "n numbered s summary e email format c committer w group",
    "rev-list": _LOG_FLAGS + " count objects objects-edge no-object-names timestamp header",
    "blame": "b root show-stats L l t S reverse p porcelain line-porcelain incremental encoding contents"
    " date M C ignore-rev ignore-revs-file color-lines color-by-age progress no-progress score-debug f"
    " show-name n show-number s e show-email w abbrev c",
    "annotate": "b root show-stats L l t S reverse p porcelain line-porcelain incremental encoding contents date M C w",
    "ls-files": "c cached d deleted m modified o others i ignored s stage u unmerged k killed z t v f"
    " directory no-empty-directory eol x exclude X exclude-from exclude-per-directory exclude-standard"
    " error-unmatch with-tree full-name recurse-submodules abbrev debug deduplicate format sparse",
    "ls-tree": "d r t l long z name-only name-status object-only full-name full-tree abbrev format",
    "rev-parse": "parseopt sq-quote keep-dashdash stop-at-non-option stuck-long revs-only no-revs flags"
    " no-flags default prefix verify q quiet sq short not symbolic symbolic-full-name abbrev-ref all"
    " branches tags remotes glob exclude exclude-hidden disambiguate local-env-vars path-format git-dir"
    " git-common-dir resolve-git-dir git-path show-toplevel show-superproject-working-tree"
    " shared-index-path absolute-git-dir is-inside-git-dir is-inside-work-tree is-bare-repository"
    " is-shallow-repository show-cdup show-prefix show-object-format show-ref-format since after until"
    " before",
    "describe": "dirty broken all tags contains abbrev candidates exact-match debug long match exclude"
    " always first-parent",
    "cat-file": "t s e p batch batch-check batch-all-objects buffer follow-symlinks unordered textconv"
    " filters allow-unknown-type use-mailmap Z z",
    "show-ref": "head dereference d verify hash s abbrev q quiet exclude-existing tags heads branches exists",
    "for-each-ref": "count shell s perl p python tcl sort format color points-at merged no-merged contains"
    " no-contains ignore-case omit-empty exclude include-root-refs",
    "merge-base": "a all octopus independent is-ancestor fork-point",
    "name-rev": "tags refs exclude all annotate-stdin name-only no-undefined always",
    "check-ignore": "q quiet v verbose stdin z n non-matching no-index",
    "check-attr": "a all cached stdin z source",
    "check-ref-format": "normalize allow-onelevel no-allow-onelevel refspec-pattern branch",
    "count-objects": "v verbose H human-readable",
    "cherry": "v abbrev",
    "range-diff": _DIFF_FLAGS + " creation-factor left-only right-only no-dual-color notes",
    "grep": "cached no-index untracked no-exclude-standard exclude-standard recurse-submodules a text"
    " textconv no-textconv i ignore-case I max-depth r recursive w word-regexp v invert-match h H"
    " full-name E extended-regexp G basic-regexp P perl-regexp F fixed-strings n line-number column l"
    " files-with-matches name-only L files-without-match z null o only-matching c count color no-color"
    " break heading p show-function A after-context B before-context C context W function-context m"
    " max-count threads f e and or not all-match q quiet",
    "version": "build-options",
    "var": "l",
    "reflog": _LOG_FLAGS,
    "add": "n dry-run v verbose f force i interactive p patch u update A all no-ignore-removal"
    " no-all ignore-removal N intent-to-add refresh ignore-errors ignore-missing no-warn-embedded-repo"
    " renormalize chmod sparse",
    "commit": "a all p patch C reuse-message c reedit-message fixup squash reset-author short branch"
    " porcelain long z null F file author date m message t template s signoff no-signoff trailer n"
    " no-verify verify allow-empty allow-empty-message cleanup e edit no-edit amend no-post-rewrite i"
    " include o only pathspec-from-file pathspec-file-nul u untracked-files v verbose q quiet dry-run"
    " status no-status S gpg-sign no-gpg-sign",
    "tag": "l list n sort i ignore-case column no-column contains no-contains merged no-merged"
    " points-at format color omit-empty v verify a annotate m message F file s sign u local-user d delete"
    " f force",
    "branch": "v vv verbose q quiet a all r remotes l list show-current contains no-contains merged"
    " no-merged points-at sort format color no-color column no-column abbrev no-abbrev i ignore-case"
    " omit-empty d D delete m M move c C copy f force",
}
# Short options that take the next word as their value, by subcommand (their manuals' synopses).
_VALUED_SHORT = {
    "log": "nSGL", "show": "nSGL", "whatchanged": "nSGL", "rev-list": "nSGL", "reflog": "nSGL", "diff": "SGlO",
    "blame": "LS", "annotate": "LS", "grep": "ABCmefh", "commit": "CcFmt", "ls-files": "xX", "tag": "nmFu",
}  # fmt: skip
# A valued long option: its value may be the next word.
_VALUED_LONG = frozenset(
    {
        "format", "pretty", "since", "after", "until", "before", "author", "committer", "grep", "max-count",
        "skip", "encoding", "date", "message", "file", "template", "trailer", "reuse-message",
        "reedit-message", "fixup", "squash", "sort", "points-at", "contains", "no-contains", "merged",
        "no-merged", "exclude", "exclude-from", "exclude-per-directory", "with-tree", "abbrev",
        "diff-filter", "relative", "src-prefix", "dst-prefix", "line-prefix", "contents", "ignore-rev",
        "ignore-revs-file", "max-depth", "threads", "after-context", "before-context", "context",
        "decorate-refs", "decorate-refs-exclude", "glob", "default", "prefix", "git-path", "match",
        "candidates", "count", "word-diff-regex", "anchored", "diff-algorithm", "find-object",
        "inter-hunk-context", "creation-factor", "cleanup", "untracked-files", "refs", "source",
        "resolve-git-dir", "show-ref-format", "path-format", "unified",
    }
)  # fmt: skip
_STASH_READ = ("list", "show")
_BRANCH_LISTING = frozenset({"-v", "-vv", "-a", "-r", "-l", "--list", "--show-current", "--all", "--remotes"})
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
            _nested(w)
            _sub(w, sub, rest)
    else:
        _nested(w)
        _sub(w, sub, rest)


def _nested(w: ShellWalk) -> None:
    """git run in a repository nested in the session's (`cd src/x && git init && git ...`) is not this fence's git."""
    if w.root is None:
        return
    for cwd in w.cwds or ():
        real, top = os.path.realpath(cwd), os.path.realpath(w.root)
        probe = real
        while probe.startswith(top + os.sep):
            if os.path.lexists(os.path.join(probe, ".git")):
                raise Unknown(f"git runs in {probe}, a repository nested in the session's")
            probe = os.path.dirname(probe)


# `git -c KEY=VALUE` keys that only change how git prints; any other key can make git run a
# program or write somewhere (core.fsmonitor, core.pager, alias.*, diff.external, ...): unknown.
_PRINT_ONLY_CONFIG = re.compile(
    r"(?i)(color\.[a-z.]+|advice\.[a-z]+|core\.quotepath|log\.[a-z]+|diff\.(noprefix|mnemonicprefix|renames|"
    r"algorithm|context|indentheuristic)|status\.[a-z]+|column\.[a-z]+|init\.defaultbranch|user\.(name|email)|"
    r"commit\.gpgsign|tag\.gpgsign|core\.abbrev|i18n\.[a-z]+|grep\.[a-z]+|blame\.[a-z]+|safe\.directory)"
)
_CONFIG_READING = frozenset(
    {
        "--get", "--get-all", "--get-regexp", "-l", "--list", "--show-origin", "--show-scope", "--null", "-z",
        "--name-only", "--local", "--global", "--system", "--includes", "--bool", "--int",
    }
)  # fmt: skip


def _config(w: ShellWalk, setting: str | None) -> None:
    if setting is None or "hookspath" in setting.lower():
        w.skips.append("git -c core.hooksPath moves the commit gate's hooks")
    elif not _PRINT_ONLY_CONFIG.fullmatch(setting.split("=", 1)[0]):
        raise Unknown(f"git -c {setting.split('=', 1)[0]} is not a setting the guard knows changes only output")


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
    elif sub == "reset" and not any(a is None or a in ("--hard", "--merge", "--keep") for a in rest):
        return  # reset moves HEAD and the index; the working tree stays
    elif sub == "switch" and rest and rest[0] in ("-c", "-C", "--create") and len(rest) == 2:
        return  # a new branch at HEAD: no file changes
    elif sub == "config":
        _config_read(rest)
    elif sub == "remote":
        if not (rest in ([], ["-v"], ["--verbose"]) or (rest[:1] in (["show"], ["get-url"]))):
            raise Unknown("git remote changes the repository's configuration")
    elif sub in _GRAMMARS:
        _options(sub, rest)
    elif sub in _TREE_WIDE:
        raise Unknown(f"git {sub} can change files across the working tree")
    else:
        raise Unknown(f"git {sub} is not a git command the guard knows writes nothing here (or an alias)")


def _config_read(rest: Args) -> None:
    """git config's reading forms (git-config(1)): `--get`, `--list`, `get`, `list`, or one name."""
    words = [a for a in rest if a is None or not a.startswith("-")]
    flags = [a for a in rest if a is not None and a.startswith("-")]
    if any(f not in _CONFIG_READING for f in flags) or any(a is None for a in words):
        raise Unknown("git config with these options may change the repository's configuration")
    if words[:1] in (["get"], ["list"]) or len(words) <= 1 or (set(flags) & {"--get", "--get-all", "--get-regexp"}):
        return
    raise Unknown("git config NAME VALUE changes the repository's configuration (core.fsmonitor runs a program)")


def _options(sub: str, rest: Args) -> None:
    """Every option of a subcommand that changes no file, read with its grammar; the rest are operands it reads."""
    names = frozenset(_GRAMMARS[sub].split())
    valued = _VALUED_SHORT.get(sub, "")
    skip = False
    for i, arg in enumerate(rest):
        if skip:
            skip = False
            continue
        if arg == "--":
            return
        if arg is None:
            raise Unknown(f"git {sub} is given a word that is not literal where an option could be")
        if arg.startswith("--"):
            name, eq, _ = arg[2:].partition("=")
            if name not in names and not (name.startswith("no-") and name[3:] in names):
                raise Unknown(f"git {sub} option --{name} is not one the guard knows writes nothing")
            skip = not eq and name in _VALUED_LONG and i + 1 < len(rest) and not str(rest[i + 1]).startswith("-")
        elif arg.startswith("-") and len(arg) > 1:
            skip = _short(sub, arg, names, valued)


def _short(sub: str, arg: str, names: frozenset[str], valued: str) -> bool:
    """A cluster of short options; True when its last letter takes the next word as its value."""
    if arg[1:].isdigit() and "n" in names:
        return False  # git log -3
    for j, c in enumerate(arg[1:], start=1):
        if c not in names:
            raise Unknown(f"git {sub} option -{c} is not one the guard knows writes nothing")
        if c in valued or c in "MCBUO":
            return c in valued and j == len(arg) - 1
    return False


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
