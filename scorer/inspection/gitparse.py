"""Parsers for the git output formats score-diff asks for. Pure functions, no git calls.

Long because every git output format the inspection reads is parsed here, the streaming
diff with its section matching included.

The one diff call is `git diff --raw -p -U0 -z`: NUL-separated raw records, then a
NUL, then the patch. Paths are taken only from the NUL-separated records; patch
sections are matched to them in order (git emits both from the same queue) by the
`diff --git` line git writes for each path, rebuilt from the record and compared
byte for byte, never parsed. Line counts come from the -U0 hunk headers, which is what
`--numstat` would say, without making git compute every file's diff twice.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Iterable, Iterator
from itertools import accumulate

from .. import model
from ..errors import GitError
from ..model import ChangedPath, Hunk
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any

SYMLINK_MODE = "120000"
GITLINK_MODE = "160000"
_STATUS = {
    "A": model.ADDED,
    "M": model.MODIFIED,
    "D": model.DELETED,
    "R": model.RENAMED,
    "C": model.COPIED,
    "T": model.TYPECHANGE,
    "U": model.UNMERGED,
}
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NO_NEWLINE = "\\ No newline at end of file\n"
_BINARY = re.compile(r"Binary files .* differ$", re.M)  # a content line always starts with +, - or space


class RawEntry(NamedTuple):
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    status: str
    path: str
    old_path: str | None


class DiffOutput(NamedTuple):
    entries: list[RawEntry]
    patch: str
    bounds: list[tuple[int, int]]  # each entry's (start, end) in patch
    binary: list[bool]  # git said "Binary files ... differ"


def _decode_path(raw: bytes) -> str:
    return os.fsdecode(raw)


def _take(out: bytes, pos: int) -> tuple[bytes, int]:
    end = out.index(b"\0", pos)
    return out[pos:end], end + 1


def _parse_raw(out: bytes, pos: int) -> tuple[list[RawEntry], int]:
    entries = []
    while out.startswith(b":", pos):
        meta, pos = _take(out, pos)
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].decode("ascii").split(" ")
        first, pos = _take(out, pos)
        if status[0] in "RC":
            second, pos = _take(out, pos)
            entries.append(
                RawEntry(old_mode, new_mode, old_sha, new_sha, status[0], _decode_path(second), _decode_path(first))
            )
        else:
            entries.append(RawEntry(old_mode, new_mode, old_sha, new_sha, status[0], _decode_path(first), None))
    return entries, pos


def _skip_numstat(out: bytes, pos: int, count: int) -> int:
    """Tolerate `--numstat` records (older callers and tests pass them); their counts are not needed."""
    for _ in range(count):
        if not out[pos : pos + 1].isdigit() and out[pos : pos + 1] != b"-":
            return pos
        pos = out.index(b"\t", out.index(b"\t", pos) + 1) + 1
        if out[pos : pos + 1] == b"\0":  # rename/copy: "\0old\0new\0"
            _, pos = _take(out, pos + 1)
        _, pos = _take(out, pos)
    return pos


def parse_diff(out: bytes) -> DiffOutput:
    """Split the raw records from the patch; raise GitError if it does not parse."""
    try:
        entries, pos = _parse_raw(out, 0)
        pos = _skip_numstat(out, pos, len(entries))
    except (ValueError, IndexError) as exc:
        raise GitError(f"could not parse git diff output ({exc})") from exc
    if out[pos : pos + 1] == b"\0":
        pos += 1
    return _part(entries, out[pos:])


def stream_diff(chunks: Iterable[bytes]) -> Iterator[DiffOutput]:
    """Parse `git diff --raw -p -z` while git is still writing it, a run of whole sections at a time.

    git computes the next files' diffs on one core while Python parses the last ones on
    the other. Each yielded DiffOutput covers consecutive entries; together they cover all.
    """
    it = iter(chunks)
    head = bytearray()
    while (end := head.find(b"\0\0")) < 0:
        chunk = next(it, None)
        if chunk is None:
            yield from _last_parts(bytes(head))
            return
        head += chunk
    try:
        entries, _pos = _parse_raw(bytes(head[: end + 1]), 0)
    except (ValueError, IndexError) as exc:
        raise GitError(f"could not parse git diff output ({exc})") from exc
    yield from _sections_as_they_come(entries, bytes(head[end + 2 :]), it)


def _last_parts(out: bytes) -> Iterator[DiffOutput]:
    """Output with no patch (no changes, or only raw records): parse it whole."""
    if out.strip(b"\0"):
        yield parse_diff(out)


_BATCH = 1 << 20


def line_starts(text: Any, literal: Any, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets of the lines of text[start:end] (str or bytes alike) that begin with `literal`.

    A find() loop is C-speed; a `^literal` regex with re.M tests every character.
    """
    stop = len(text) if end is None else end
    found = [start] if text.startswith(literal, start, stop) else []
    needle = ("\n" if isinstance(text, str) else b"\n") + literal
    at = text.find(needle, start, stop)
    while at != -1:
        found.append(at + 1)
        at = text.find(needle, at + 1, stop)
    return found


def _sections_as_they_come(entries: list[RawEntry], first: bytes, it: Iterator[bytes]) -> Iterator[DiffOutput]:
    """Cut the patch after its last complete section once a batch has come, and parse that.

    Work stays linear however the patch is shaped: the buffer only grows at its end, only the
    bytes that came since the last look are searched for section starts, and each entry's
    header is built once; a single 100 MB section costs one pass, not one per chunk.
    """
    expected = [_header(e) for e in entries]
    pending = bytearray(first)
    starts = line_starts(pending, b"diff --git ")
    scanned, done = len(pending), 0
    for chunk in it:
        pending += chunk
        if not starts and pending.startswith(b"diff --git "):  # the first section: no newline before it
            starts = [0]
        # a start not yet seen ends in what came: it begins at most len(needle) - 1 bytes back
        starts += [at + 1 for at in _finds(pending, _NEXT_SECTION, max(0, scanned - len(_NEXT_SECTION) + 1))]
        scanned = len(pending)
        if len(pending) < _BATCH:
            continue
        sizes = _section_sizes(entries, expected, done, pending, starts, len(starts) - 1)  # the last may grow
        if sizes:
            used = sum(sizes)
            cut = starts[used]
            yield _part(entries[done : done + len(sizes)], bytes(pending[:cut]), sizes)
            del pending[:cut]
            starts = [at - cut for at in starts[used:]]
            scanned -= cut
            done += len(sizes)
    # checks that the sections left are exactly the entries left
    yield _part(entries[done:], bytes(pending), expected=expected[done:])


_NEXT_SECTION = b"\ndiff --git "


def _finds(data: bytes | bytearray, needle: bytes, start: int) -> Iterator[int]:
    at = data.find(needle, start)
    while at != -1:
        yield at
        at = data.find(needle, at + 1)


_MUST_QUOTE = re.compile(rb'[\x00-\x1f"\\\x7f]')
_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r", 34: b'\\"', 92: b"\\\\"}


def _quoted(name: bytes) -> bytes:
    """A name as git's patch header spells it with core.quotePath=false (C quoting, bytes >= 0x80 kept)."""
    if not _MUST_QUOTE.search(name):
        return name
    out = bytearray(b'"')
    for byte in name:
        out += _ESCAPES.get(byte) or (b"\\%03o" % byte if byte < 0x20 or byte == 0x7F else bytes([byte]))
    return bytes(out + b'"')


def _header(entry: RawEntry) -> bytes:
    """The `diff --git` line git writes for an entry: matched exactly, never parsed."""
    old = os.fsencode(entry.old_path if entry.old_path is not None else entry.path)
    return b"diff --git " + _quoted(b"a/" + old) + b" " + _quoted(b"b/" + os.fsencode(entry.path))


def _section_sizes(
    entries: list[RawEntry],
    expected: list[bytes],
    lo: int,
    patch: bytes | bytearray,
    starts: list[int],
    complete: int,
    final: bool = False,
) -> list[int]:
    """How many patch sections each entry from `lo` on owns, as far as the sections seen decide.

    Usually one (two for a type change, which git writes as a deletion and a creation). None
    when git lists a change whose two sides read the same, which only a working-tree file
    that is not the indexed blob it claims to be can cause (`hidden.sectionless` says so):
    such an entry is matched by its header's absence, so the next entries keep their sections.
    """
    headers = [patch[at:end] for at in starts if (end := patch.find(b"\n", at)) >= 0]
    sizes: list[int] = []
    k = 0
    for i in range(lo, len(entries)):
        entry, header = entries[i], expected[i]
        want = 2 if entry.status == "T" else 1
        mine = headers[k : k + want]
        if mine and all(h == header for h in mine):
            if len(mine) == want and k + want <= complete:
                sizes.append(want)
                k += want
                continue
            if final:
                raise GitError(f"git diff has {len(mine)} of the {want} patch sections of {entry.path!r}")
            break  # its sections are still being written
        if k == len(headers) and not final:
            break  # the next header, this entry's or not, is still being written
        if entry.status != "M" or entry.old_mode != entry.new_mode:
            raise GitError(f"git diff has no patch section for {entry.path!r} ({entry.status})")
        sizes.append(0)
    if final and (len(sizes) != len(entries) - lo or k != len(starts)):
        raise GitError(f"git diff listed {len(entries) - lo} paths but its patch has {len(starts)} sections")
    return sizes


def _part(
    entries: list[RawEntry], raw_patch: bytes, sizes: list[int] | None = None, expected: list[bytes] | None = None
) -> DiffOutput:
    """One run of entries with their sections; `sizes` if already matched, else matched here, finally."""
    if sizes is None:
        starts = line_starts(raw_patch, b"diff --git ")
        headers = expected if expected is not None else [_header(e) for e in entries]
        sizes = _section_sizes(entries, headers, 0, raw_patch, starts, len(starts), final=True)
    patch = raw_patch.decode("utf-8", errors="replace")
    bounds = _section_bounds(patch, sizes)
    marks = [at for at in line_starts(patch, "Binary files ") if _BINARY.match(patch, at)]
    return DiffOutput(entries, patch, bounds, [a < b and _any_between(marks, a, b) for a, b in bounds])


def sectionless(diff: DiffOutput) -> list[str]:
    """Paths git listed as changed but wrote no patch section for: both sides read the same."""
    return [e.path for e, (a, b) in zip(diff.entries, diff.bounds, strict=True) if a == b]


def _any_between(marks: list[int], start: int, end: int) -> bool:
    i = bisect.bisect_left(marks, start)
    return i < len(marks) and marks[i] < end


def _section_bounds(patch: str, sizes: list[int]) -> list[tuple[int, int]]:
    """(start, end) of each entry's sections in the decoded patch; (at, at) for an entry without one."""
    starts = line_starts(patch, "diff --git ")
    if len(starts) != sum(sizes):  # decoding never adds or removes a line
        raise GitError(f"git diff patch has {len(starts)} sections where {sum(sizes)} were matched")
    edges = [*starts, len(patch)]
    return [
        (edges[i], edges[i + n - 1 + 1] if n else edges[i])
        for i, n in zip(accumulate(sizes, initial=0), sizes, strict=False)
    ]


def _added_block(patch: str, body: int, end: int, new_lines: int) -> str:
    """The added lines of one -U0 hunk, '+' stripped, each ending in a newline."""
    if new_lines == 0:
        return ""
    first = patch.find("\n+", body - 1, end)
    block = patch[first + 1 : end]
    if "\n-" in block or "\n " in block:  # not the usual removed-then-added shape
        lines = [ln[1:] for ln in block.splitlines() if ln.startswith("+")]
        return "\n".join(lines) + "\n"
    block = block.replace("\n" + _NO_NEWLINE, "\n")  # git's marker is a line of its own, never text in one
    return block[1:].replace("\n+", "\n")


class Pieces:
    """Accumulates added text for model.AddedText without repeated string copies."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.starts: list[int] = []
        self.locations: list[tuple[str, int]] = []
        self.size = 0
        self.taken = 0

    def add(self, path: str, first_line: int, text: str) -> None:
        if not text:
            return
        if not text.endswith("\n"):
            text += "\n"
        self.parts.append(text)
        self.starts.append(self.size)
        self.locations.append((path, first_line))
        self.size += len(text)

    def build(self) -> model.AddedText:
        return model.AddedText("".join(self.parts), tuple(self.starts), tuple(self.locations))

    def take_new(self) -> model.AddedText:
        """The added text of the pieces since the last call: each piece is handed out once."""
        first, self.taken = self.taken, len(self.parts)
        if first == len(self.parts):
            return model.AddedText()
        base = self.starts[first]
        return model.AddedText(
            "".join(self.parts[first:]), tuple(s - base for s in self.starts[first:]), tuple(self.locations[first:])
        )


def _hunks(patch: str, start: int, end: int) -> list[tuple[Hunk, str]]:
    """Each -U0 hunk of one patch section with its added lines."""
    at = line_starts(patch, "@@ -", start, end)
    stops = [*at[1:], end]
    found = []
    for begin, stop in zip(at, stops, strict=False):
        m = _HUNK.match(patch, begin)
        if m is None:
            raise GitError(f"could not parse a hunk header in git diff output at offset {begin}")
        old_start, old_n, new_start, new_n = m.groups()
        hunk = Hunk(int(old_start), int(old_n or 1), int(new_start), int(new_n or 1))
        body = patch.find("\n", m.end(), stop) + 1
        found.append((hunk, _added_block(patch, body, stop, hunk.new_lines)))
    return found


def _stat(found: list[tuple[Hunk, str]]) -> tuple[int, int]:
    return sum(h.new_lines for h, _ in found), sum(h.old_lines for h, _ in found)


def _text_sections(text_diff: DiffOutput | None) -> dict[str, tuple[str, int, int, bool]]:
    """From a `--text` rerun: the sections whose new side is text (no NUL in an added line).

    The flag says whether the old side was binary: git calls a diff binary when either
    side is, but a binary file rewritten as text (which an interpreter will run) must
    still have its new lines checked.
    """
    if text_diff is None:
        return {}
    patch = text_diff.patch
    found = {}
    for e, (a, b), binary in zip(text_diff.entries, text_diff.bounds, text_diff.binary, strict=True):
        if binary or not line_starts(patch, "@@ -", a, b):
            continue
        if any("\0" in added for _, added in _hunks(patch, a, b)):
            continue  # the new side is binary too
        found[e.path] = (patch, a, b, "\0" in patch[a:b])
    return found


def to_changes(diff: DiffOutput, pieces: Pieces, text_diff: DiffOutput | None = None) -> list[ChangedPath]:
    """One ChangedPath per raw entry, with hunks and added lines from its patch section.

    `text_diff` is a `--text` rerun for entries git called binary: where its new side is
    plain text, attributes (or a binary old side) were hiding the lines, and they are scored.
    """
    textual = _text_sections(text_diff)
    changes = []
    for entry, (start, end), binary in zip(diff.entries, diff.bounds, diff.binary, strict=True):
        patch, old_binary = diff.patch, False
        if binary and entry.path in textual:
            binary = False
            patch, start, end, old_binary = textual[entry.path]
        found = [] if binary else _hunks(patch, start, end)
        for hunk, added in found:
            pieces.add(entry.path, hunk.new_start, added)
        change = _changed_path(entry, None if binary else _stat(found), found)
        if old_binary:  # still a binary change (its removed "lines" are bytes), but its new text was checked
            change = change._replace(binary=True, removed=0, hunks=())
        changes.append(change)
    return changes


def _changed_path(entry: RawEntry, stat: tuple[int, int] | None, found: list[tuple[Hunk, str]]) -> ChangedPath:
    status = _STATUS.get(entry.status, model.MODIFIED)
    if status == model.MODIFIED and stat == (0, 0) and entry.old_mode != entry.new_mode:
        status = model.MODE_CHANGE
    modes = (entry.old_mode, entry.new_mode)
    target = found[-1][1].rstrip("\n") if entry.new_mode == SYMLINK_MODE and found else None
    return ChangedPath(
        path=entry.path,
        status=status,
        old_path=entry.old_path,
        added=stat[0] if stat else 0,
        removed=stat[1] if stat else 0,
        hunks=tuple(h for h, _ in found),
        binary=stat is None,
        symlink=SYMLINK_MODE in modes,
        submodule=GITLINK_MODE in modes,
        old_mode=None if entry.old_mode == "000000" else entry.old_mode,
        new_mode=None if entry.new_mode == "000000" else entry.new_mode,
        symlink_target=target,
    )


def split_z(out: bytes) -> list[str]:
    """NUL-terminated path list -> paths."""
    return [_decode_path(p) for p in out.split(b"\0") if p]


_PLAIN_TAG = ord("H")  # a tracked entry with no flag set


def parse_ls_files_v(out: bytes) -> tuple[list[str], list[tuple[str, str]]]:
    """`ls-files -z -v -c -o`: (untracked paths, [(tag, path)] for flagged or unmerged entries).

    Tag 'H' is a normal tracked entry; '?' untracked; 'M' unmerged; 'S' skip-worktree;
    a lower-case tag means assume-unchanged.
    """
    untracked: list[str] = []
    flagged: list[tuple[str, str]] = []
    # Nearly every entry is "H <path>": passed over by its first byte, never decoded. (A regex
    # that looks behind for the NUL before an entry tests every byte: 41 ms against 5 ms for the
    # 50,200 entries of large.)
    for entry in out.split(b"\0"):
        if not entry or entry[0] == _PLAIN_TAG:
            continue
        tag, path = entry[:1].decode("ascii", "replace"), _decode_path(entry[2:])
        if tag == "?":
            untracked.append(path)
        else:
            flagged.append((tag, path))
    return untracked, flagged


class Staged(NamedTuple):
    """One path whose index entry differs from HEAD (status porcelain v2, content-based)."""

    path: str
    mode: str  # in the index
    sha: str  # the blob `git commit` records
    worktree_clean: bool  # git's stat cache says the working tree holds exactly this blob


def staged(out: bytes) -> list[Staged]:
    """`status --porcelain=v2 -z`: the paths staged with content (not deleted from the index)."""
    found = []
    for entry in out.split(b"\0"):
        if entry[:2] == b"1 " and entry[2:3] != b".":
            fields = entry.split(b" ", 8)
            if fields[4] != b"000000":
                found.append(
                    Staged(_decode_path(fields[8]), fields[4].decode(), fields[7].decode(), fields[1][1:2] == b".")
                )
    return found


def status_paths(out: bytes) -> list[str]:
    """`status --porcelain=v2 -z`: every path it reports (changed in the index, on disk, or unmerged)."""
    return [
        _decode_path(e.split(b" ", 8 if e[:1] == b"1" else 10)[-1]) for e in out.split(b"\0") if e[:2] in (b"1 ", b"u ")
    ]


def partially_staged(out: bytes) -> list[str]:
    """`status --porcelain=v2 -z`: paths changed both in the index and, differently, on disk."""
    found = []
    for entry in out.split(b"\0"):
        if entry[:2] == b"1 " and b"." not in entry[2:4]:
            found.append(_decode_path(entry.split(b" ", 8)[8]))
    return found


def status_branch(out: bytes) -> tuple[bool, str | None]:
    """`status --porcelain=v2 -z --branch`: (True, the branch HEAD names), or (False, None) when
    the header cannot say: git writes `(detached)` for a detached HEAD and `(null)` for HEAD on a
    ref outside refs/heads/, and a branch may be named either, so any name in parentheses is left
    for `git symbolic-ref` to tell apart. No `branch.head` header, or two, is an error."""
    heads = [e[len(b"# branch.head ") :] for e in out.split(b"\0") if e.startswith(b"# branch.head ")]
    if len(heads) != 1 or not heads[0]:
        raise GitError(f"git status --branch named {len(heads)} branch.head headers, not one")
    if heads[0].startswith(b"("):
        return False, None
    return True, heads[0].decode("utf-8", "replace")


# Fields before the path in each `status --porcelain=v2` record kind (renames are not asked for).
_STATUS_FIELDS = {b"1": 8, b"u": 10, b"?": 1, b"!": 1}


def status_records(out: bytes) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """`status --porcelain=v2 -z --branch --no-renames`: ({header: value}, {path: whole record})."""
    headers: dict[str, bytes] = {}
    records: dict[str, bytes] = {}
    for entry in out.split(b"\0"):
        kind = entry[:1]
        if kind == b"#":
            name, _, value = entry[2:].partition(b" ")
            headers[name.decode("ascii", "replace")] = value
        elif kind in _STATUS_FIELDS:
            fields = entry.split(b" ", _STATUS_FIELDS[kind])
            if len(fields) == _STATUS_FIELDS[kind] + 1:
                records[_decode_path(fields[-1])] = entry
        elif entry:
            raise GitError(f"unexpected git status record {entry[:40]!r}")
    return headers, records


def index_records(out: bytes) -> dict[str, frozenset[bytes]]:
    """`ls-files -s -v -z`: every record (tag, mode, object id, stage) of each path in the index."""
    found: dict[str, set[bytes]] = {}
    for entry in out.split(b"\0"):
        meta, tab, name = entry.partition(b"\t")
        if tab:
            found.setdefault(_decode_path(name), set()).add(meta)
    return {path: frozenset(metas) for path, metas in found.items()}
