"""Regular expressions compiled where they are first used, and `re`'s flags by value: a module
imported on every agent tool call (the guard's Write path) holds its patterns without importing re,
which costs some 25M instructions with enum and functools (issue 29). tests/test_lazy_re.py holds
the flags to re's and each pattern's answers to re's own."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's: re is imported when a pattern is first used
if TYPE_CHECKING:
    import re

# re.RegexFlag's values, fixed by sre_constants since Python 3.6.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16


class LazyPattern:
    """A regular expression compiled on its first use, not at import: the guard imports the modules
    that hold these on every agent tool call, and most calls need none of them (compiling the secret
    values' patterns was a third of that module's cost, issue 29). The pattern and its flags are
    fixed; only when it is compiled moves."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self.compiled.split(text, maxsplit)

    def sub(self, replacement: str, text: str) -> str:
        return self.compiled.sub(replacement, text)
