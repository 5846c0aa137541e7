"""Programs' command lines read the way the programs read them: GNU getopt_long, from their manuals.

A `Grammar` is one program's options as its manual (and its `--help` on a GNU system) lists
them: short flags, short options that take a value (attached, `-tDIR`, or the next word),
short options whose value can only be attached (`sed -i[SUFFIX]`), the same three kinds of
long option, and whether the first operand ends the options (getopt's leading `+`, as
`env`, `timeout`, `nice`, `xargs` and `sudo` parse: the rest is the command they run).
GNU permutes otherwise: an option may follow an operand. A long option may be abbreviated
to any unique prefix (`--target=d` is `--target-directory=d`), as getopt_long allows.

Whatever a grammar does not list, and a word that is not literal where an option could
be (a variable could expand to `-t/elsewhere`), raises `Unknown`: the guard then asks or
denies, never guesses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .base import Unknown


class Grammar(NamedTuple):
    short: str = ""  # flags
    short_valued: str = ""  # take a value: attached or the next word
    short_optional: str = ""  # take a value only when attached
    long: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()  # --name[=VALUE]
    stops: bool = False  # the first operand ends the options (getopt "+")
    aliases: Mapping[str, str] = {}  # short letter -> the long name it means
    numeric: str = ""  # `nice -5`: a digit option is this long option's value


class Parsed(NamedTuple):
    options: tuple[tuple[str, str | None], ...]  # (long name or letter, value)
    operands: tuple[str | None, ...]  # with `stops`, the first operand and every word after it

    def has(self, *names: str) -> bool:
        return any(n in names for n, _ in self.options)

    def values(self, *names: str) -> list[str | None]:
        return [v for n, v in self.options if n in names]


def grammar(
    short: str = "",
    valued: str = "",
    optional: str = "",
    long: str = "",
    long_valued: str = "",
    long_optional: str = "",
    stops: bool = False,
    aliases: Mapping[str, str] | None = None,
    numeric: str = "",
) -> Grammar:
    """A Grammar from space-separated long names (the manual's spelling, without `--`)."""
    return Grammar(
        short,
        valued,
        optional,
        frozenset(long.split()) | {"help", "version"},
        frozenset(long_valued.split()),
        frozenset(long_optional.split()),
        stops,
        dict(aliases or {}),
        numeric,
    )


def _long_name(g: Grammar, given: str, program: str) -> str:
    names = g.long | g.long_valued | g.long_optional
    if given in names:
        return given
    matches = [n for n in names if n.startswith(given)] if given else []
    if len(matches) != 1:
        raise Unknown(f"{program} option --{given} is not one the guard knows")
    return matches[0]


def parse(g: Grammar, args: Sequence[str | None], program: str) -> Parsed:
    """The options and operands of `args` under `g`; Unknown for anything the grammar does not explain."""
    options: list[tuple[str, str | None]] = []
    operands: list[str | None] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:  # before the options end, it could expand to one
            raise Unknown(f"{program} is given a word that is not literal where an option could be")
        if arg == "--":
            operands += args[i + 1 :]
            break
        if arg.startswith("--"):
            i = _long(g, args, i, program, options)
        elif arg.startswith("-") and arg != "-":
            i = _short(g, args, i, program, options)
        else:
            if g.stops:
                operands += args[i:]
                break
            operands.append(arg)
        i += 1
    return Parsed(tuple(options), tuple(operands))


def _long(g: Grammar, args: Sequence[str | None], i: int, program: str, out: list[tuple[str, str | None]]) -> int:
    given, eq, value = str(args[i])[2:].partition("=")
    name = _long_name(g, given, program)
    if name in g.long:
        if eq:
            raise Unknown(f"{program} option --{name} takes no value")
        out.append((name, None))
    elif name in g.long_valued:
        if not eq:
            if i + 1 >= len(args):
                raise Unknown(f"{program} option --{name} has no value")
            i += 1
            out.append((name, args[i]))
        else:
            out.append((name, value))
    else:
        out.append((name, value if eq else None))
    return i


def _short(g: Grammar, args: Sequence[str | None], i: int, program: str, out: list[tuple[str, str | None]]) -> int:
    arg = str(args[i])
    j = 1
    while j < len(arg):
        c = arg[j]
        name = g.aliases.get(c, c)
        if c in g.short:
            out.append((name, None))
        elif c in g.short_valued:
            if j + 1 < len(arg):
                out.append((name, arg[j + 1 :]))
            elif i + 1 < len(args):
                i += 1
                out.append((name, args[i]))
            else:
                raise Unknown(f"{program} option -{c} has no value")
            return i
        elif c in g.short_optional:
            out.append((name, arg[j + 1 :] or None))
            return i
        elif g.numeric and c.isdigit() and j == 1:
            out.append((g.numeric, arg[1:]))
            return i
        else:
            raise Unknown(f"{program} option -{c} is not one the guard knows")
        j += 1
    return i
