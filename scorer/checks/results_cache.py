"""What the cheat checks' first pass found in one module, kept across scorings under the git directory.

(runner_reach.py keeps its own answer here too, in the same entries, when it is "no shape at all":
`shapes` is a function of the module's bytes alone.)

An agent's branch is scored on every commit and again by `--base`: most changed modules keep
their content between scorings. The cheat checks' first pass (parse, then one walk of the units
the diff touches, with the base's facts assumed at their strictest) is a function of two things
alone, and is keyed by them and by the code that computes it (`code_version`):

- the module's bytes (sha256) and the changed line spans ("every" for a new file). The pass
  reads no manifest field, no option and no other file: `disabled_detectors` and the base's
  tests are applied after it, to what it found, here as in cheats.py.
- what is kept is only what that filter reads: each finding's code, and for a special-cased
  input the digests of its data-like pairs (`special_cases.kept_pairs`), never a literal's text
  nor a message. When something survives the filter, the module is judged from its source
  again, exactly as without a cache: a kept entry can only say "nothing here".

One entry per check (`Results`), through the store the pipeline passes in (`CheckInput.kept`:
testrun.cache_store.Store under the git directory, which takes an entry only if it is ours, not
writable by others, and its digest and key hold): a corrupt, foreign or stale entry is a miss,
never trusted and never an error, and a git directory we cannot write leaves scoring as it is.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable, Sequence

from . import special_cases

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from .contract import Kept

KIND = "checks"
EVERY = "every"
# The modules whose code decides what the first passes find (and this one, which decides the keys).
_CODE = ("cheats.py", "special_cases.py", "runner_reach.py", "pyast.py", "results_cache.py")
MAX_MODULES = 4096  # per check: about ten scorings of the modules benchmark's size
_versions: dict[str, str | None] = {}


def code_version() -> str | None:
    """A digest of the first pass's source and of the Python that parses; None if one cannot be
    read (then nothing is kept). A digest, not a constant to bump: a forgotten bump would keep a
    "nothing here" from before a new detector, which is a loosened check."""
    if "" not in _versions:
        _versions[""] = _digest_code()
    return _versions[""]


def _digest_code() -> str | None:
    # The files beside this one, read, not imported: cheats and runner_reach import this module.
    h = hashlib.sha256(f"{sys.version}\0{sys.implementation.cache_tag}\0".encode())
    for name in _CODE:
        try:
            with open(os.path.join(os.path.dirname(__file__), name), "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        h.update(b"%s\0%d\0" % (name.encode(), len(data)) + data)
    return h.hexdigest()


def spans_key(spans: Sequence[tuple[int, int]] | None) -> str:
    """The changed lines as the key writes them: "every" (None) or "a-b,c-d" in order."""
    return EVERY if spans is None else ",".join(f"{a}-{b}" for a, b in sorted(spans))


Kept1 = dict[str, object]  # {"code": ...} and, for a special-cased input, "own" and "group" digests


def to_kept(codes_and_candidates: Iterable[tuple[str, special_cases.Candidate | None]]) -> list[Kept1] | None:
    """The first pass's findings as kept; None if one cannot be (then nothing is kept)."""
    kept: list[Kept1] = []
    for code, candidate in codes_and_candidates:
        if candidate is None:
            kept.append({"code": code})
            continue
        own = special_cases.kept_pairs(candidate.pairs)
        group = [special_cases.kept_pairs(g) for g in candidate.group]
        if own is None or None in group:
            return None
        kept.append({"code": code, "own": own, "group": group})
    return kept


def survives(kept: Kept1, disabled: frozenset[str], spec: special_cases.Spec) -> bool:
    """The filter of cheats._new_findings on a kept finding: not disabled, and a candidate matched."""
    if kept["code"] in disabled:
        return False
    if "own" not in kept:
        return True
    return spec.matched_kept(kept["own"], kept["group"])  # type: ignore[arg-type]


class Results:
    """The kept first passes of one check, in the store `kept` gives (None: nothing kept).

    One entry per check, not one per module: it holds every module of the scorings it was
    written by, by `_name`, and is read once and written once per scoring, only when a module
    was missing. (One file per module cost a file created per module on a cold scoring, ~0.3 ms
    each: 120 ms for the modules benchmark's 196, more than the parses they save on a warm one.)
    The modules this scoring used are written last, and the oldest past MAX_MODULES let go."""

    def __init__(self, kept: Kept | None, check: str) -> None:
        version = code_version() if kept is not None else None
        self._store = kept(KIND) if kept is not None and version else None
        self._key = {"check": check, "version": version or ""}
        self._stored: dict[str, object] | None = None
        self._used: dict[str, list[Kept1]] = {}
        self._added = False

    def _entries(self) -> dict[str, object]:
        if self._stored is None:
            value = self._store.get(self._key) if self._store is not None else None
            self._stored = value if isinstance(value, dict) else {}
        return self._stored

    def name(self, source: bytes, spans: str) -> str:
        """A module's place in the entry (`get`, `put`): its bytes hashed once for both."""
        return _name(source, spans) if self._store is not None else ""

    def get(self, name: str) -> list[Kept1] | None:
        """The kept findings for exactly this module and these spans, from an entry of ours, whole."""
        if self._store is None:
            return None
        value = self._entries().get(name)
        if not isinstance(value, list) or not all(_well_formed(k) for k in value):
            return None
        self._used[name] = value
        return value

    def put(self, name: str, kept: list[Kept1] | None) -> None:
        """Keep what the first pass found here (written by `flush`)."""
        if self._store is not None and kept is not None:
            self._used[name] = kept
            self._added = True

    def flush(self) -> None:
        """Write the entry if a module was added; a failed write is only a miss next time."""
        if self._store is None or not self._added:
            return
        merged = {name: v for name, v in self._entries().items() if name not in self._used} | self._used
        self._store.put(self._key, dict(list(merged.items())[-MAX_MODULES:]))
        self._added = False


def _name(source: bytes, spans: str) -> str:
    """A module's place in the entry: the digest of its bytes' digest and its changed lines."""
    return hashlib.sha256(b"%s\0%s" % (hashlib.sha256(source).digest(), spans.encode())).hexdigest()


def _well_formed(kept: object) -> bool:
    """An entry's finding as to_kept writes it: anything else is read as a miss."""
    if not isinstance(kept, dict) or not isinstance(kept.get("code"), str):
        return False
    if set(kept) == {"code"}:
        return True
    own, group = kept.get("own"), kept.get("group")
    return (
        set(kept) == {"code", "own", "group"}
        and _strings(own)
        and isinstance(group, list)
        and all(_strings(g) for g in group)
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
