"""The job as the checks see it: the manifest, its compiled matchers and token patterns."""

from __future__ import annotations

from ..manifest.globs import ForbiddenMatcher, grant_matcher
from ..manifest.load import Manifest

TYPE_CHECKING = False  # typing is not imported on the guard's Write path (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator, Sequence


class Job:
    """The manifest plus the facts about this scoring the checks need."""

    __slots__ = ("allowed", "forbidden", "manifest", "manifest_in_repo", "tokens")

    def __init__(self, manifest: Manifest, manifest_in_repo: str | None = None) -> None:
        self.manifest = manifest
        self.manifest_in_repo = manifest_in_repo  # the manifest's repo-relative path, if it lives in the repo
        self.allowed = grant_matcher(manifest.allowed_paths)
        self.forbidden = ForbiddenMatcher(manifest.forbidden_globs)
        self.tokens = token_patterns(manifest)  # built once, used on every streamed batch


class SubstringMatch:
    """What `AddedText.search` reads of a match: where it starts and ends, and its text."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, start: int, text: str) -> None:
        self._start, self._end, self._text = start, start + len(text), text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, index: int = 0) -> str:
        if index != 0:
            raise IndexError("no such group")
        return self._text


class Substrings:
    """The forbidden substrings found with str.find, as the alternation `re.escape(s) | ...` of them,
    longest first, finds them: the leftmost match, the longest substring at that position, and the
    next search where it ends. Compiling that alternation costs every Write an `re` compile that a
    text without any of them never uses (issue 29); tests/checks/test_job_substrings.py holds the two
    side by side. Non-empty substrings only: `token_patterns` gives an empty one to `re`."""

    __slots__ = ("_wanted",)

    def __init__(self, substrings: Sequence[str]) -> None:
        # Longest first, as the alternation tries them; duplicates add nothing.
        self._wanted = sorted(set(substrings), key=len, reverse=True)

    def finditer(self, subject: str) -> Iterator[SubstringMatch]:
        # A heap of each substring's next place (leftmost, then longest first): a hit costs
        # O(log n) in the substrings, so a line of thousands of hits stays linear. Loaded only
        # for a text that holds one of them (content._may_match).
        from heapq import heapify, heappop, heappush

        heap = [(at, -len(s), s) for s in self._wanted if (at := subject.find(s)) >= 0]
        heapify(heap)
        while heap:
            at, _, text = heap[0]  # equal place and length: equal text
            yield SubstringMatch(at, text)
            end = at + len(text)
            while heap and heap[0][0] < end:  # overlapped by this match: look again after it
                _, size, s = heappop(heap)
                again = subject.find(s, end)
                if again >= 0:
                    heappush(heap, (again, size, s))


def _as_pattern(finder: Substrings) -> re.Pattern[str]:
    """`AddedText.search` calls only `finditer` and reads only `start`, `end` and `group(0)`."""
    return finder  # type: ignore[return-value]


def token_patterns(manifest: Manifest) -> list[tuple[str, re.Pattern[str]]]:
    """(label, pattern) for every forbidden substring and pattern. The user's patterns are compiled
    here, so `re` is loaded only for a manifest that has some (or an empty substring)."""
    found = []
    substrings = manifest.forbidden_substrings
    if substrings and all(substrings):
        found.append(("substring", _as_pattern(Substrings(substrings))))
    elif substrings:
        # An empty substring: the alternation itself, with re's empty matches.
        import re

        alternation = "|".join(re.escape(s) for s in sorted(substrings, key=len, reverse=True))
        found.append(("substring", re.compile(alternation)))
    if manifest.forbidden_patterns:
        import re  # the user's regexes are re's language

        found += [(f"pattern {p!r}", re.compile(p, re.M)) for p in manifest.forbidden_patterns]
    return found
