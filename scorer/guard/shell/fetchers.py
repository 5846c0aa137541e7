"""Programs whose writes are named by their input or by a server: patch, tar, unzip, cpio, 7z, curl, wget.

An unpacker writes the files its input (a diff, an archive) names, which the guard does not
read: unknown, unless its options make it a listing or a dry run. tar -c/-r/-u writes only its
archive. curl writes only where its options say (its manual's file options), wget the file its
URL names unless -O says where.
"""

from __future__ import annotations

import re

from .base import Args, ShellWalk, Unknown

# Programs that write what their input names (a diff, an archive): no target is on the command line.
UNPACKERS = {
    "patch": ("--dry-run",),
    "tar": ("-t", "--list"),
    "unzip": ("-l", "-Z", "-v", "-t"),
    "cpio": (),
    "7z": ("l",),
}


def unpacker(w: ShellWalk, name: str, args: Args) -> None:
    """patch, tar, unzip: the files they write are named inside their input, not on the command line."""
    if name == "tar":
        # tar's mode is in its first word (`tar czf`) or an option cluster (`-xzf`, `--extract`)
        modes = [a for i, a in enumerate(args) if a is None or a.startswith("-") or i == 0]
        if not any(a is None or re.match(r"^-?[a-zA-Z]*x|^--extract|^--get", a) for a in modes):
            if any(a is not None and re.match(r"^-?[a-zA-Z]*[cru]|^--(create|append|update)", a) for a in modes):
                _tar_archive(w, args)
            return
    if any(a in UNPACKERS[name] for a in args):
        return
    w.unknown(f"{name} writes the files its input names, which the guard does not read")


def _tar_archive(w: ShellWalk, args: Args) -> None:
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


def curl(w: ShellWalk, name: str, args: Args) -> None:
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


def wget(w: ShellWalk, name: str, args: Args) -> None:
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
