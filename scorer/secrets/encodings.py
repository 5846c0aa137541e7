"""The other forms a secret value takes when a test prints it: hex, and base64 at each alignment.

Redaction (`secrets.redaction`) masks the shapes the detectors know; a test that prints
`binascii.hexlify(token)` or `base64.b64encode(b"x" + token)` shows no such shape. Once a
value is known (a detector found it, or the environment the test was given holds it), these
are the strings that spell it out again:

- the value itself, wherever it stands without the shape around it;
- its hex, any case (`binascii.hexlify`, `bytes.hex`, `.upper()`): hex is byte-aligned, so
  the hex of anything containing the value contains the value's hex;
- its base64, standard and URL-safe alphabets (RFC 4648 sections 4 and 5), padded or not.
  Base64 turns 3 bytes into 4 characters, so the value's characters depend on where it falls
  in the encoded bytes: at offset 0, 1 or 2 modulo 3. For each offset, the *core* is the run of
  characters made only of the value's bits; any encoding that contains the value at that
  offset contains its core. The one character either side mixes the value's bits with its
  neighbours' and is masked with it, padding included.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's: re is imported where a value is masked, not for every log row (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator

MASK = "****"
MIN_LENGTH = 8  # shorter values' encodings occur by chance in ordinary output
_B64_CHAR = "[A-Za-z0-9+/_-]"
_URLSAFE = str.maketrans("+/", "-_")


def _base64_cores(raw: bytes) -> Iterator[tuple[str, str]]:
    """(core, regex source) per alignment and alphabet: the source adds the partial neighbours."""
    import base64  # here: masking a value is rare on the guard's log path, and base64 loads struct
    import re

    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        start = -(-8 * offset // 6)  # the first character made only of the value's bits
        end = 8 * (offset + len(raw)) // 6  # one past the last such character
        lead = f"{_B64_CHAR}?" if offset else ""
        trail = f"{_B64_CHAR}?" if (offset + len(raw)) % 3 else ""
        for core in {encoded[start:end], encoded[start:end].translate(_URLSAFE)}:
            yield core, f"{lead}{re.escape(core)}{trail}={{0,2}}"


def forms(value: str) -> list[tuple[str, str]]:
    """(literal, regex source) for `value` and each encoding of it; none for a value too short.

    The literal is what the source must contain, lower case for hex (found in the lowered text)."""
    if len(value) < MIN_LENGTH:
        return []
    import re

    raw = value.encode("utf-8", "surrogatepass")
    return [(value, re.escape(value)), (raw.hex(), f"(?i:{raw.hex()})"), *_base64_cores(raw)]


def pattern(text: str, values: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for every form of every value that `text` holds, longest first; None if it holds
    none. The literal search (in C) keeps a large output with nothing to mask from a long regex."""
    lower: str | None = None
    sources: set[str] = set()
    for literal, source in (f for v in values for f in forms(v)):
        if source.startswith("(?i:"):
            lower = text.lower() if lower is None else lower
            present = literal in lower
        else:
            present = literal in text
        if present:
            sources.add(source)
    if not sources:
        return None
    import re

    return re.compile("|".join(sorted(sources, key=len, reverse=True)))


def mask(text: str, values: Iterable[str]) -> tuple[str, int]:
    """`text` with every form of every value masked; how many were."""
    found = pattern(text, values)
    if found is None:
        return text, 0
    return found.subn(MASK, text)
