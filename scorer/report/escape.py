"""One escaping policy for every free text a report shows, per output format.

Paths, messages, job ids and test output are free text the job controls. Every renderer
passes them through here, so none can start a line of its own, hide the verdict, reorder
what a reviewer reads (bidirectional overrides) or smuggle in markup or a workflow command.
"""

from __future__ import annotations

import re

# One set of characters no format may show raw: C0 and C1 controls (ESC starts cursor moves
# and SGR 8, which hides everything printed after it; CR returns over a line already shown),
# line and paragraph separators, bidirectional marks, embeddings, overrides and isolates (a
# file name with U+202E reads reversed in a review comment), zero-width characters (two
# names that look the same), the BOM, XML's non-characters, and lone surrogates from
# undecodable names. Tab stays; LF and CR stay only where a format keeps lines.
_INVISIBLE = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff\ud800-\udfff"
)
_UNSAFE = re.compile(f"[\n\r{_INVISIBLE}]")  # everything, line ends included: one line
_UNSAFE_KEEP_LINES = re.compile(f"[{_INVISIBLE}]")  # LF and CR kept: the format keeps lines
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escaped(m: re.Match[str]) -> str:
    char = m.group(0)
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the original byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """Text and logs: `text` as one printable line, so a name cannot start a line of its own
    (`RESULT: PASS`, a `::workflow-command::`) or hide the verdict after it."""
    return _UNSAFE.sub(_escaped, text)


def printable_lines(text: str) -> str:
    """Multi-line text, each line made printable; a CR that ends a line (CRLF files) is kept."""
    return "\n".join(one_line(line[:-1]) + "\r" if line.endswith("\r") else one_line(line) for line in text.split("\n"))


def printable(text: str) -> str:
    """JUnit and code blocks: every unsafe character escaped, newlines kept."""
    return _UNSAFE_KEEP_LINES.sub(_escaped, text)


def json_safe(rendered: str) -> str:
    """Serialised JSON with every unsafe character as a `\\uXXXX` escape: parsers read the same
    value, and nobody reading the raw file (or a tool showing it) sees a reordered name."""
    return _UNSAFE_KEEP_LINES.sub(lambda m: f"\\u{ord(m.group(0)):04x}", rendered)


# Characters that start Markdown or HTML markup, GitHub issue references (#1) or
# mentions (@team): escaped, a hostile path cannot become a link, an image, a
# ping or a broken table.
_MARKUP = re.compile(r"([\\`*_\[\]<>|#!~&@])")
_NEWLINE = re.compile(r"\r\n?|\n")
_BACKTICKS = re.compile(r"`+")


def escape_cell(text: str) -> str:
    """Markdown: text made safe for one GFM table cell or list item: markup escaped, newlines as <br>."""
    return _NEWLINE.sub("<br>", _MARKUP.sub(r"\\\1", printable(text)))


def fenced(text: str, info: str = "text") -> str:
    """Markdown: a fenced code block longer than any backtick run inside, so the text cannot close it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{printable(text).rstrip(chr(10))}\n{fence}"


def escape_data(text: str) -> str:
    """GitHub workflow commands: a message, every unsafe character escaped, then the runner's own
    escapes (so lines stay lines in the annotation, and none starts a command of its own)."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value (file, title): data escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
