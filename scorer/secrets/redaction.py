"""Where secrets are masked: every free text a person or a log can see passes through here.

The detectors (`secrets.detectors`) know what a secret looks like; this module decides what
is redacted, and when: before any cutting (a tail of test output) or formatting (every
report format, the decision log), and for every field of a Result, paths and
justifications included, once the verdict has been reached on the real values.

On top of the detectors' shapes it masks a private key *body* whose header is missing
(cut off, or never printed): runs of base64 lines of key-body shape.
"""

from __future__ import annotations

from .. import digest
from ..lazy_re import LazyPattern
from ..model import EnvelopeFacts, Justification, Result

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_MASK = "****"
ENCODED = "secret-value-form"  # counted for a found value's plain, hex or base64 form elsewhere
# Cheap test first: no base64 run of 40 characters, no key body. Bytes: translate and find
# run in C, several times faster than a regex that must try every position.
_RUNS = bytes(ord("a") if chr(i) in _B64 else ord(" ") for i in range(256))
_LONG_RUN = b"a" * 40
# Line ends, real or escaped as in a repr (`'...\\n...'`), kept so the text keeps its shape;
# compiled on first use, by a text with a base64 run in it (not on every logged tool call).
_LINE_END = LazyPattern(r"(\r\n|\n|\r|\\r\\n|\\n)")
_END_MARKER = "-----END "
_TRAILING = " \t'\",;)]}"
BODY_MIN, BODY_MAX = 40, 100  # PEM lines are 64 characters, OpenSSH 70, MIME 76


def split_lines(text: str) -> list[str]:
    """`_LINE_END.split(text)`: lines and the line ends between them. A text with no line end, real or
    escaped, is one line without compiling the pattern (a logged path of 40 base64 characters)."""
    if "\n" in text or "\r" in text or "\\n" in text:  # each of _LINE_END's forms holds one of these
        return _LINE_END.split(text)
    return [text]


def _token(segment: str) -> tuple[int, int]:
    """(start, end) of the base64 token that ends `segment` (before closing quotes and spaces)."""
    end = len(segment.rstrip(_TRAILING))
    core = segment[:end].rstrip("=")
    start = len(core.rstrip(_B64))
    return start, end


def _is_body(segment: str) -> bool:
    """A full key-body line: one base64 token of key-line length, mixed case and digits."""
    start, end = _token(segment)
    token = segment[start:end]
    if not BODY_MIN <= len(token) <= BODY_MAX or "=" in token.rstrip("="):
        return False
    return any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)


def _is_last(segment: str, previous: str) -> bool:
    """A key body's short last line: a base64 token after the same prefix as the body's lines
    (`E       ` in pytest's output), or alone on its line."""
    start, end = _token(segment)
    lead = segment[:start]
    return 4 <= end - start <= BODY_MAX and (not lead.strip(_TRAILING) or lead == previous[: _token(previous)[0]])


def _mask(segment: str) -> str:
    start, end = _token(segment)
    return segment[:start] + _MASK + segment[end:]


def redact_key_body(text: str) -> tuple[str, int]:
    """`text` with private-key body lines masked even where no BEGIN line precedes them.

    Two or more consecutive key-body lines (or one followed by an END line) are a key body;
    the short line that ends one is masked with it. Returns the text and how many runs.
    """
    text, runs, _ = _key_body_found(text)
    return text, runs


def _key_body_found(text: str) -> tuple[str, int, set[str]]:
    """`redact_key_body`, and the body lines' tokens it masked."""
    found: set[str] = set()
    if _LONG_RUN not in text.encode("utf-8", "surrogatepass").translate(_RUNS):
        return text, 0, found
    parts = split_lines(text)
    lines = parts[::2]
    body = [_is_body(line) for line in lines]
    runs, i = 0, 0
    while i < len(lines):
        if not body[i]:
            i += 1
            continue
        j = i
        while j < len(lines) and body[j]:
            j += 1
        ended = j < len(lines) and _END_MARKER in lines[j]
        if j - i >= 2 or ended:
            runs += 1
            if not ended and j < len(lines) and _is_last(lines[j], lines[j - 1]):
                j += 1
            for k in range(i, j):
                start, end = _token(lines[k])
                found.add(lines[k][start:end])
                lines[k] = _mask(lines[k])
        i = j
    parts[::2] = lines
    return "".join(parts), runs, found


def redact_found(text: str, known: Iterable[str] = ()) -> tuple[str, dict[str, int], frozenset[str]]:
    """`text` with every secret shape masked, then every form (`encodings`) of each value found
    in it and of each `known` value; how many of each (by detector id), and the values found."""
    from . import detectors, encodings

    text, counts, found = detectors.redact_found(text)
    text, runs, body = _key_body_found(text)
    if runs:
        counts["private-key-body"] = counts.get("private-key-body", 0) + runs
    text, encoded = encodings.mask(text, {*found, *body, *known})
    if encoded:
        counts[ENCODED] = counts.get(ENCODED, 0) + encoded
    return text, counts, frozenset({*found, *body})


def redact_with_counts(text: str, known: Iterable[str] = ()) -> tuple[str, dict[str, int]]:
    """`text` with every secret shape, and every form of a value found or `known`, masked;
    how many of each (by detector id)."""
    text, counts, _ = redact_found(text, known)
    return text, counts


def redact(text: str, known: Iterable[str] = ()) -> str:
    """`text` with every secret shape masked, and every form of a value found or `known`."""
    return redact_with_counts(text, known)[0]


def _redact_many(items: Sequence[str], values: frozenset[str]) -> list[str]:
    """`redact` of each item, with one scan for the common case of nothing to mask.

    Masking never depends on more than the item itself and `values`: joined by newlines, items
    that hold no secret shape still hold none. Halving finds the few that do in O(k log n) scans.
    """
    if not items:
        return []
    joined = "\n".join(items)
    if redact(joined, values) == joined:
        return list(items)
    if len(items) == 1:
        return [redact(items[0], values)]
    mid = len(items) // 2
    return _redact_many(items[:mid], values) + _redact_many(items[mid:], values)


def _texts(result: Result) -> Iterator[str | None]:
    """Every short free text of `result` (the test's output is redacted on its own)."""
    yield from (
        result.manifest_path,
        result.job_id,
        result.branch,
        result.description,
        *result.warnings,
        *result.allowed,
    )
    for c in result.changed:
        yield from (c.path, c.old_path, c.symlink_target)
    for v in result.violations:
        yield from (v.message, v.path, v.hint, v.fix)
    for j in result.justifications:
        yield from j
    test = result.test
    yield from (test.reason, *test.argv, *test.notes)
    if test.envelope is not None:
        yield from (*test.envelope.enforced, *test.envelope.missing, *test.envelope.observed)
    if test.evidence is not None:
        yield from (test.evidence.report, test.evidence.note)


def redacted_result(result: Result, known: Iterable[str] = ()) -> Result:
    """Every free text of `result` masked: messages, paths, justifications, the test's output.

    A value found in any field, or `known` (the secrets in the test's environment), is masked
    in every field in each of its forms (`encodings`). Applied after the verdict: the checks
    decide on real paths, people only ever see these.
    """
    texts = sorted({t for t in _texts(result) if t})
    everything = "\n".join([*texts, result.test.output_tail])
    masked, _, found = redact_found(everything, known)
    if masked == everything:  # the usual case: one scan, 5,000 paths untouched
        return result
    values = frozenset({*found, *known})
    table = {t: m for t, m in zip(texts, _redact_many(texts, values), strict=True) if m != t}
    return _replaced(result, table, redact(result.test.output_tail, values))


def _envelope(envelope: EnvelopeFacts, rt: Callable[[Iterable[str]], tuple[str, ...]]) -> EnvelopeFacts:
    """The envelope's lines masked; the observer log's digest stands for the lines shown."""
    observed = rt(envelope.observed)
    log_sha256 = envelope.log_sha256
    if observed != envelope.observed:  # as envelope.log_digest and verify-report compute it
        log_sha256 = digest.sha256("".join(f"{line}\n" for line in observed).encode("utf-8")).hexdigest()
    return envelope._replace(
        enforced=rt(envelope.enforced), missing=rt(envelope.missing), observed=observed, log_sha256=log_sha256
    )


def _replaced(result: Result, table: dict[str, str], tail: str) -> Result:
    """`result` with each text in `table` replaced by its masked form, and the output's `tail`."""

    def r(text: str | None) -> str | None:
        return table.get(text, text) if text else text

    def rs(text: str) -> str:
        return table.get(text, text)

    def rt(texts: Iterable[str]) -> tuple[str, ...]:
        return tuple(map(rs, texts))

    test, envelope, evidence = result.test, result.test.envelope, result.test.evidence
    return result._replace(
        violations=tuple(
            v._replace(message=rs(v.message), path=r(v.path), hint=rs(v.hint), fix=rs(v.fix)) for v in result.violations
        ),
        changed=tuple(
            c._replace(path=rs(c.path), old_path=r(c.old_path), symlink_target=r(c.symlink_target))
            for c in result.changed
        ),
        allowed=frozenset(map(rs, result.allowed)),  # renderers look changed paths up in it
        justifications=tuple(Justification(*map(rs, j)) for j in result.justifications),
        test=test._replace(
            output_tail=tail,
            reason=rs(test.reason),
            argv=rt(test.argv),
            notes=rt(test.notes),
            envelope=envelope and _envelope(envelope, rt),
            evidence=evidence and evidence._replace(report=r(evidence.report), note=rs(evidence.note)),
        ),
        warnings=rt(result.warnings),
        manifest_path=r(result.manifest_path),
        job_id=r(result.job_id),
        description=rs(result.description),
        branch=r(result.branch),
    )
