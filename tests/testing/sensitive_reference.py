"""sensitive._Index._directory as it was before issue 29 built each directory's answer on its
parent's (lead at 14a1b4e): the reference a differential test holds the new one to. Test code only."""

from __future__ import annotations

from scorer.checks.sensitive import _dir_tokens, _index


def directory(dirs: tuple[str, ...]) -> frozenset[int]:
    index = _index()
    if not dirs:
        return frozenset()
    lower = [d.lower() for d in dirs]
    found = set(index.root_dirs.get(lower[0], ()))
    for seg in lower:
        found |= index.dirs.get(seg, set())
    if index.words:
        for token in set().union(*(_dir_tokens(d) for d in dirs)) & index.words.keys():
            found |= index.words[token]
    return frozenset(found)
