"""Programs known to write nothing, each with its whole option grammar: the only programs the guard allows unread.

A program is here only when no option of its manual writes a file, runs a command or changes
where a later command runs; its operands are files it reads. Every option is read with the
program's grammar (options.py), and a word the grammar does not explain makes the command
unknown, so a future `--output` is not allowed by default. The grammars are GNU coreutils'
(`ls`, `cat`, `head`, `tail`, `wc`, `stat`, `cut`, `tr`, `uniq`, `du`, `df`, ... --help and
the coreutils manual), GNU grep's and GNU diffutils' (`diff`, `cmp`) `--help`, and bash's own
builtins (bash(1), SHELL BUILTIN COMMANDS) for the builtins that only print, test or set the
shell's own options and variables. A program that is not here, in a writer's row or a
runner's, is unknown: asked, denied, or run in the job's jail.
"""

from __future__ import annotations

from .base import Args, ShellWalk, Unknown
from .options import Grammar, grammar, parse

# Builtins that print, test, or change only the shell's variables and options, whatever their words.
# (`read` reads stdin into variables, `printf -v` sets one, `shift`/`set --` move the arguments.)
FREE_BUILTINS = frozenset(
    {
        ":", "true", "false", "echo", "printf", "test", "[", "pwd", "read", "shift", "exit", "return",
        "break", "continue", "wait", "jobs", "umask", "getopts", "type", "times", "dirs", "let", "set",
        "shopt", "unset",
    }
)  # fmt: skip

_LS = grammar(
    "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    "ITw",
    long="all almost-all author escape directory dired file-type human-readable si dereference-command-line"
    " dereference-command-line-symlink-to-dir hide-control-chars show-control-chars inode kibibytes dereference"
    " numeric-uid-gid literal no-group recursive reverse size context zero group-directories-first full-time",
    long_valued="block-size format hide ignore indicator-style quoting-style sort tabsize time time-style width",
    long_optional="color hyperlink classify",
    aliases={"I": "ignore", "T": "tabsize", "w": "width"},
)
_GREP = grammar(
    "EFGPiyvwxcLloqsbHhnTZzaIrRUV",
    "efmABCdD",
    long="extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case word-regexp"
    " line-regexp null-data no-messages invert-match count files-with-matches files-without-match with-filename"
    " no-filename line-number byte-offset initial-tab only-matching text recursive dereference-recursive null"
    " quiet silent line-buffered",
    long_valued="regexp file max-count after-context before-context context label binary-files devices"
    " directories exclude include exclude-from exclude-dir",
    long_optional="color colour",
    numeric="context",
)
_DIFF = grammar(
    "abBcdeEfhinNpPqrstTuvwyZ",
    "CDFlILSUWxX",
    long="normal brief report-identical-files expand-tabs initial-tab suppress-common-lines side-by-side"
    " left-column new-file unidirectional-new-file ignore-case ignore-tab-expansion ignore-trailing-space"
    " ignore-space-change ignore-all-space ignore-blank-lines text strip-trailing-cr minimal speed-large-files"
    " ignore-file-name-case no-ignore-file-name-case recursive show-c-function suppress-blank-empty",
    long_valued="context unified ifdef show-function-line label width tabsize exclude exclude-from"
    " starting-file from-file to-file ignore-matching-lines horizon-lines old-line-format new-line-format"
    " unchanged-line-format line-format old-group-format new-group-format changed-group-format"
    " unchanged-group-format",
    long_optional="color palette",
)
GRAMMARS: dict[str, Grammar] = {
    "ls": _LS,
    "dir": _LS,
    "vdir": _LS,
    "cat": grammar(
        "AbeEnstTuv", long="show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting"
    ),
    "tac": grammar("br", "s", long="before regex", long_valued="separator"),
    "head": grammar(
        "qvz", "cn", long="quiet silent verbose zero-terminated", long_valued="bytes lines", numeric="lines"
    ),
    "tail": grammar(
        "fFqrvz",
        "cns",
        long="retry quiet silent verbose zero-terminated",
        long_valued="bytes lines max-unchanged-stats pid sleep-interval",
        long_optional="follow",
        numeric="lines",
    ),
    "wc": grammar("clmwL", long="bytes chars lines words max-line-length", long_valued="files0-from total"),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "diff": _DIFF,
    "cmp": grammar("blsz", "in", long="print-bytes quiet silent verbose zero", long_valued="bytes ignore-initial"),
    "stat": grammar("Lft", "c", long="dereference file-system terse", long_valued="format printf cached"),
    "basename": grammar("az", "s", long="multiple zero", long_valued="suffix"),
    "dirname": grammar("z", long="zero"),
    "realpath": grammar(
        "eLmPqsz",
        long="canonicalize-existing logical canonicalize-missing physical quiet strip no-symlinks zero",
        long_valued="relative-to relative-base",
    ),
    "readlink": grammar(
        "efmnqsvz", long="canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero"
    ),
    "cut": grammar(
        "nsz",
        "bcdf",
        long="complement only-delimited zero-terminated",
        long_valued="bytes characters delimiter fields output-delimiter",
    ),
    "tr": grammar("cCdst", long="complement delete squeeze-repeats truncate-set1"),
    "nl": grammar(
        "p",
        "bdfhilnsvw",
        long="no-renumber",
        long_valued="body-numbering section-delimiter"
        " footer-numbering header-numbering line-increment join-blank-lines number-format"
        " number-separator starting-line-number number-width",
    ),
    "rev": grammar(),
    "fold": grammar("bs", "w", long="bytes spaces", long_valued="width"),
    "paste": grammar("sz", "d", long="serial zero-terminated", long_valued="delimiters"),
    "comm": grammar("123iz", long="check-order nocheck-order total zero-terminated", long_valued="output-delimiter"),
    "du": grammar(
        "0abcDhHklLmPsSx",
        "BdtX",
        long="null all apparent-size bytes total dereference-args"
        " human-readable si dereference count-links no-dereference separate-dirs summarize"
        " one-file-system inodes",
        long_valued="block-size max-depth threshold exclude-from exclude files0-from",
        long_optional="time time-style",
    ),
    "df": grammar(
        "ahHiklPTtvx",
        "Bt",
        long="all human-readable si inodes local portability print-type total no-sync sync",
        long_valued="block-size exclude-type type",
        long_optional="output",
    ),
    "md5sum": grammar("bctwz", long="binary check tag text zero ignore-missing quiet status strict warn"),
    "sha1sum": grammar("bctwz", long="binary check tag text zero ignore-missing quiet status strict warn"),
    "sha256sum": grammar("bctwz", long="binary check tag text zero ignore-missing quiet status strict warn"),
    "sha512sum": grammar("bctwz", long="binary check tag text zero ignore-missing quiet status strict warn"),
    "seq": grammar("w", "fs", long="equal-width", long_valued="format separator"),
    "sleep": grammar(),
    "whoami": grammar(),
    "nproc": grammar(long="all", long_valued="ignore"),
    "uname": grammar(
        "asnrvmpio",
        long="all kernel-name nodename kernel-release kernel-version machine processor"
        " hardware-platform operating-system",
    ),
    "id": grammar("agGnruzZ", long="context group groups name real user zero"),
    "printenv": grammar("0", long="null"),
    "which": grammar("a"),
    "date": grammar(
        "uRI",
        "dfr",
        long="debug utc universal rfc-email",
        long_valued="date file reference",
        long_optional="iso-8601 rfc-3339",
    ),
}


def free_builtin(w: ShellWalk, name: str, args: Args) -> None:
    """A builtin that prints, tests or sets the shell's own variables: nothing to write, whatever its words."""
    if name == "printf" and any(a is None for a in args[:2]):
        raise Unknown("printf is given a word that is not literal where -v could be")


DECLARES = frozenset({"export", "declare", "typeset", "local", "readonly"})


def declare(w: ShellWalk, name: str, args: Args) -> None:
    """export/declare NAME=VALUE: a variable set for what runs after (the walker reads its name)."""
    for arg in args:
        if arg is None:
            raise Unknown(f"{name} is given a word that is not literal (it could set any variable)")
        if "=" in arg and not arg.startswith("-"):
            key, _, value = arg.partition("=")
            w.env(key, value)


def reader(w: ShellWalk, name: str, args: Args) -> None:
    """A program that writes nothing: its options are read with its grammar, its operands are files it reads.

    A word that is not literal (`xargs grep x`, `find -exec grep x {} +`) can only become one of
    the options listed, none of which writes, or an operand, which is read: it is not read further."""
    parse(GRAMMARS[name], [a for a in args if a is not None], name)


def uniq(w: ShellWalk, name: str, args: Args) -> None:
    """uniq [OPTION]... [INPUT [OUTPUT]]: the second operand is a file it writes (uniq --help)."""
    parsed = parse(
        grammar(
            "cdDiuz",
            "fsw",
            long="count repeated ignore-case unique zero-terminated",
            long_valued="skip-fields skip-chars check-chars",
            long_optional="all-repeated group",
        ),
        args,
        name,
    )
    if len(parsed.operands) > 1:
        w.target(parsed.operands[1], "write", "uniq's output file")


def mkdir(w: ShellWalk, name: str, args: Args) -> None:
    """mkdir makes each operand (and with -p its parents): a write at each (mkdir --help)."""
    parsed = parse(grammar("pvZ", "m", long="parents verbose", long_valued="mode", long_optional="context"), args, name)
    for path in parsed.operands:
        if path is None or not w.isdir(path):  # an existing directory is left as it is
            w.target(path, "write", "mkdir's directory")
