"""Programs that write files, their targets read as the program reads its command line.

The grammars are GNU coreutils' (`cp`, `mv`, `ln`, `install`, `touch`, `truncate`, `tee`,
`rm`, `shred`, `chmod`, `sort` --help and the coreutils manual), GNU sed's and findutils'
`find` (its manual's actions: -delete, -exec, -execdir, -ok, -okdir, -fprint, -fprint0,
-fprintf, -fls). sed's own script language is read for the commands that write or run
(`w`, `W`, `e`, and the `s` flags `w` and `e`); a script the reader cannot follow is unknown.
"""

from __future__ import annotations

import posixpath
import re

from .. import patch
from ..payload import patch_targets
from .base import Args, ShellWalk, Unknown
from .options import grammar, parse

_BACKUP = "backup"
_G = {
    "cp": grammar(
        "abdfHilLnPpRrsTuvxZ",
        "St",
        long="archive attributes-only copy-contents dereference force interactive link no-clobber no-dereference"
        " one-file-system parents recursive remove-destination strip-trailing-slashes symbolic-link"
        " no-target-directory verbose debug keep-directory-symlink",
        long_valued="no-preserve sparse suffix target-directory",
        long_optional="backup context preserve reflink update",
        aliases={"t": "target-directory", "T": "no-target-directory", "s": "symbolic-link"},
    ),
    "mv": grammar(
        "bfinTuvZ",
        "St",
        long="force interactive no-clobber strip-trailing-slashes no-target-directory verbose context debug"
        " exchange no-copy",
        long_valued="suffix target-directory",
        long_optional="backup update",
        aliases={"t": "target-directory", "T": "no-target-directory"},
    ),
    "ln": grammar(
        "bdFfinLPrsTv",
        "St",
        long="directory force interactive logical no-dereference physical relative symbolic no-target-directory"
        " verbose",
        long_valued="suffix target-directory",
        long_optional="backup",
        aliases={"t": "target-directory", "T": "no-target-directory", "s": "symbolic"},
    ),
    "install": grammar(
        "bcCdDpsTvZ",
        "gmoSt",
        long="compare directory preserve-timestamps strip no-target-directory verbose preserve-context debug",
        long_valued="group mode owner strip-program suffix target-directory",
        long_optional="backup context",
        aliases={"t": "target-directory", "T": "no-target-directory", "d": "directory"},
    ),
    "touch": grammar("acfhm", "drt", long="no-create no-dereference", long_valued="date reference time"),
    "truncate": grammar("co", "rs", long="no-create io-blocks", long_valued="reference size"),
    "tee": grammar("aip", long="append ignore-interrupts", long_optional="output-error"),
    "rm": grammar(
        "fiIrRdv",
        long="dir force recursive verbose one-file-system no-preserve-root",
        long_optional="interactive preserve-root",
    ),
    "unlink": grammar(),
    "shred": grammar(
        "fuvxz",
        "ns",
        long="force exact verbose zero",
        long_valued="iterations size random-source",
        long_optional="remove",
    ),
    "chmod": grammar(
        "cfvR", long="changes silent quiet verbose no-preserve-root preserve-root recursive", long_valued="reference"
    ),
    "sort": grammar(
        "bdfgiMhnRrVcCmsuz",
        "koStT",
        long="ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting"
        " month-sort human-numeric-sort numeric-sort random-sort reverse version-sort merge stable unique"
        " zero-terminated debug",
        long_valued="random-source sort batch-size compress-program files0-from key output buffer-size"
        " field-separator temporary-directory parallel",
        long_optional="check",
        aliases={"o": "output"},
    ),
    "sed": grammar(
        "nrEsuz",
        "efl",
        "i",
        long="quiet silent debug follow-symlinks posix regexp-extended separate sandbox unbuffered null-data",
        long_valued="expression file line-length",
        long_optional="in-place",
        aliases={"e": "expression", "f": "file", "i": "in-place"},
    ),
    "rsync": grammar(
        "aAbcCdDEgHIKlLmnoOpPqrRStuvWxXz",
        "efTB",
        long="archive recursive verbose quiet checksum update links copy-links hard-links perms times group owner"
        " devices specials dry-run whole-file one-file-system existing ignore-existing remove-source-files"
        " delete delete-before delete-after delete-excluded compress stats progress partial human-readable"
        " itemize-changes relative no-relative",
        long_valued="exclude include exclude-from include-from filter rsh temp-dir suffix backup-dir"
        " link-dest compare-dest copy-dest chmod chown",
        aliases={"n": "dry-run"},
    ),
}
_MODE = re.compile(r"^[-+=][-+=,rwxXstugoa0-7]*$")


def tee(w: ShellWalk, name: str, args: Args) -> None:
    for path in parse(_G["tee"], args, name).operands:
        w.target(path, "write", "tee's file")


def sed(w: ShellWalk, name: str, args: Args) -> None:
    parsed = parse(_G["sed"], args, name)
    operands = list(parsed.operands)
    scripts = parsed.values("expression")
    if parsed.has("file"):
        raise Unknown("sed -f runs a script file the guard does not read")
    if not scripts:
        if not operands:
            return
        scripts = [operands.pop(0)]
    for script in scripts:
        why = script_writes(script) if script is not None else "its script is not literal"
        if why and not parsed.has("sandbox"):
            raise Unknown(f"sed's script {why}")
    if parsed.has("in-place"):
        for path in operands:
            w.target(path, "edit", "sed -i's file")


def script_writes(script: str) -> str | None:
    """Why a GNU sed script may write or run something (`w`, `W`, `e`, s///w, s///e); None if it cannot."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!" or c.isdigit() or c in "$,~+":
            i += 1
        elif c == "#":
            i = _line_end(script, i)
        elif c in "/\\":
            delim = "/" if c == "/" else script[i + 1 : i + 2]
            i = _delimited(script, i + (1 if c == "/" else 2), delim)
            while i < n and script[i] in "IM":
                i += 1
        elif c in "pdDnNgGhHxlLPqQz=F":
            i += 1
        elif c in "aicrR:":
            i = _line_end(script, i)
        elif c in "bBtT":
            i += 1
            while i < n and script[i] not in ";\n":
                i += 1
        elif c in "sy":
            delim = script[i + 1 : i + 2]
            if delim in ("", "\n", "\\"):
                return "has an s command the guard cannot read"
            i = _delimited(script, _delimited(script, i + 2, delim), delim)
            while c == "s" and i < n and script[i] in "gpiImMe0123456789w":
                if script[i] in "we":
                    return "writes a file or runs a command (s///w or s///e)"
                i += 1
        elif c in "wWe":
            return "writes a file or runs a command (w, W or e)"
        else:
            return f"has a command {c!r} the guard does not know"
    return None


def _line_end(text: str, i: int) -> int:
    while i < len(text) and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _delimited(text: str, i: int, delim: str) -> int:
    """The index after the next unescaped `delim` (a bracket expression is not special: see below)."""
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "[" and "]" in text[i:]:
            raise Unknown("sed's script has a bracket expression the guard does not read exactly")
        if text[i] == delim:
            return i + 1
        i += 1
    raise Unknown("sed's script ends inside a regular expression")


def delete(w: ShellWalk, name: str, args: Args) -> None:
    for path in parse(_G[name], args, name).operands:
        w.tree_target(path, "delete", f"{name}'s operand")


def make(w: ShellWalk, name: str, args: Args) -> None:
    for path in parse(_G[name], args, name).operands:
        w.target(path, "write", f"{name}'s file")


def chmod(w: ShellWalk, name: str, args: Args) -> None:
    words = list(args)
    mode = None
    if not any((a or "").startswith("--reference") for a in args):
        mode = next((a for a in words if a is not None and (_MODE.match(a) or not a.startswith("-"))), None)
        if mode is not None:
            words.remove(mode)
    for path in parse(_G["chmod"], words, name).operands:
        w.tree_target(path, "mode", "chmod's file")


def dd(w: ShellWalk, name: str, args: Args) -> None:
    for arg in args:
        if arg is None:
            raise Unknown("dd's arguments are not literal")
        if arg.startswith("of="):
            w.target(arg[3:], "write", "dd's of= file")


def sort(w: ShellWalk, name: str, args: Args) -> None:
    parsed = parse(_G["sort"], args, name)
    if parsed.has("compress-program"):
        raise Unknown("sort --compress-program runs a program the guard does not read")
    for out in parsed.values("output"):
        w.target(out, "write", "sort -o's file")


def copy(w: ShellWalk, name: str, args: Args) -> None:
    parsed = parse(_G[name], args, name)
    if name == "install" and parsed.has("directory"):
        return  # install -d makes directories, which git does not track
    if name == "install" and parsed.has("strip-program"):
        raise Unknown("install --strip-program runs a program the guard does not read")
    operands = list(parsed.operands)
    if name == "rsync":
        if parsed.has("dry-run"):
            return
        operands = [a for a in operands if a is None or not re.match(r"^[^/]*:", a)]  # host:path is remote
    directories = parsed.values("target-directory")
    directory = directories[-1] if directories else None
    if directories and directory is None:
        raise Unknown(f"{name}'s target directory is not literal")
    sources, dest = (operands, directory) if directory else (operands[:-1], operands[-1] if operands else None)
    if dest is None or not sources:
        raise Unknown(f"{name}'s destination cannot be told from its arguments")
    link = name == "ln" and parsed.has("symbolic")
    link = link or (name == "cp" and parsed.has("symbolic-link"))
    into_dir = directory is not None or (
        not parsed.has("no-target-directory") and (dest.endswith("/") or w.isdir(dest))
    )
    for src in sources:
        if name == "mv" or (name == "rsync" and parsed.has("remove-source-files")):
            w.tree_target(src, "move-from", f"{name}'s source")
        if src is None:
            raise Unknown(f"{name}'s source is not literal")
        tree = name not in ("ln",) and w.isdir(src)
        where = posixpath.join(dest, posixpath.basename(src.rstrip("/"))) if into_dir else dest
        if name == "rsync" and src.endswith("/"):
            where = dest  # rsync src/ dest copies the contents
        op = "tree" if tree else "link" if link else "move-to" if name == "mv" else "write"
        w.target(where, op, f"{name}'s destination", link=src if link else None)
        if name == "cp" and parsed.has("parents"):
            raise Unknown("cp --parents puts each source's whole path under the directory")


def find(w: ShellWalk, name: str, args: Args) -> None:
    """find's actions that act on files (-delete, -exec and kin, -fprint and kin); the rest only reads."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-delete":
            raise Unknown("find -delete removes files the guard cannot list")
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((k for k in range(i + 1, len(args)) if args[k] in (";", "+")), len(args))
            command = [None if (a is not None and "{}" in a) else a for a in args[i + 1 : end]]
            if arg in ("-execdir", "-okdir"):
                saved = w.cwds
                w.cwds = None  # each file's own directory
                _run_found(w, command)
                w.cwds = saved
            else:
                _run_found(w, command)
            i = end + 1
            continue
        if arg in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            w.target(args[i + 1] if i + 1 < len(args) else None, "write", f"find {arg}'s file")
        i += 1


def _run_found(w: ShellWalk, command: Args) -> None:
    if not command:
        return
    if command[0] is None:
        raise Unknown("the command find -exec runs is not literal")
    w.dispatch(command[0], [*command[1:], None])


def apply_patch(w: ShellWalk, name: str, args: Args) -> None:
    text = w.stdin.text if w.stdin is not None else (args[0] if args else None)
    if text is None:
        raise Unknown("apply_patch's patch is not literal")
    try:
        files = patch.parse_patch(text)
    except patch.PatchError as exc:
        raise Unknown(f"apply_patch: {exc}") from exc
    for cwd in w.cwds or ():
        w.targets += patch_targets(files, cwd)
    if w.cwds is None:
        raise Unknown("apply_patch runs in a directory the guard cannot follow")
