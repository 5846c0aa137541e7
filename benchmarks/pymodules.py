"""Python modules that parse, for the benchmark's `modules` size: many changed modules.

The other sizes fill `.py` files with lines drawn from a pool, which Python cannot parse, so
the checks that read a syntax tree (cheats, special cases, protected tests) return early on
every file. This size's `.py` files are modules of functions, classes with methods, lookup
tables and branches on literals, and an edit replaces or adds whole functions, so every
changed module parses at the base and in the change: the shape of a real agent's change
across many modules. A "line" of this content is one block (a function, a class, a table);
the file is its blocks joined by blank lines. No name contains a forbidden substring.
"""

from __future__ import annotations

import random

WORDS = (
    "alpha", "beta", "gamma", "delta", "core", "util", "model", "view", "parser", "render",
    "config", "cache", "store", "index", "query", "event", "queue", "token", "graph", "layout",
    "report", "schema", "loader", "writer", "reader", "buffer", "stream", "socket", "client",
    "server", "router", "handler", "widget", "record", "column", "filter", "sort", "merge",
)  # fmt: skip

FUNCTION = '''def {a}_{b}_{n}({c}, {d}={m}):
    """{A} the {b} of {c}."""
    {a}_{n} = {c} + {d}
    if {a}_{n} > {n}:
        {a}_{n} = {b}_{c}({a}_{n}, {m})
    for {e} in range({m}):
        {a}_{n} += {e} * {d}
    return {a}_{n}
'''
BRANCHES = """def {a}_{b}_kind_{n}({c}):
    if {c} == "{a}":
        return {m}
    if {c} == "{b}":
        return {n}
    return len({c}) + {m}
"""
CLASS = '''class {A}{B}{n}:
    """A {b} of {a}s."""

    def __init__(self, {c}, {d}=None):
        self.{c} = {c}
        self.{d} = {d} or []

    def {a}_{n}(self, {e}):
        if {e} in self.{d}:
            return self.{c}
        self.{d}.append({e})
        return {e} + {m}

    def __eq__(self, other):
        return isinstance(other, {A}{B}{n}) and self.{c} == other.{c}

    def __hash__(self):
        return hash(self.{c})
'''
TABLE = """{A}_{B}_{n} = {{
    "{a}": {m},
    "{b}": {n},
    "{c}": "{d}",
}}
"""
IMPORTS = "import os\nimport sys\nfrom collections import defaultdict\n"
TEMPLATES = (FUNCTION, FUNCTION, FUNCTION, CLASS, CLASS, BRANCHES, TABLE)


class ModuleContent:
    """The same interface as generate.Content, in blocks: `lines(n)` is n blocks, `edit` replaces
    and adds whole blocks."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def block(self) -> str:
        a, b, c, d, e = self.rng.sample(WORDS, 5)
        n, m = self.rng.randrange(10_000), self.rng.randrange(1, 100)
        return self.rng.choice(TEMPLATES).format(a=a, b=b, c=c, d=d, e=e, A=a.title(), B=b.title(), n=n, m=m)

    def lines(self, count: int) -> list[str]:
        return [self.block() for _ in range(max(1, count // 8))]

    def file_length(self) -> int:
        return 40 + min(600, int(self.rng.expovariate(1 / 80)))

    def module(self, count: int) -> list[str]:
        return [IMPORTS, *self.lines(count)]

    def edit(self, blocks: list[str], hunks: int, _size: object = None) -> list[str]:
        """`hunks` blocks (not the imports) replaced by new ones, and one more block added."""
        new = list(blocks)
        for at in self.rng.sample(range(1, len(new)), min(hunks, len(new) - 1)):
            new[at] = self.block()
        new.insert(self.rng.randrange(1, len(new) + 1), self.block())
        return new
