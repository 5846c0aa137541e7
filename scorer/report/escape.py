"""One escaping policy for every free text a report shows, per output format.

Paths, messages, job ids and test output are free text the job controls. Every renderer
passes them through here, so none can start a line of its own, hide the verdict, reorder
what a reviewer reads (bidirectional overrides) or smuggle in markup or a workflow command.
"""

from __future__ import annotations

import re

# What would let a file name or the test's output rewrite a terminal or a CI log: C0 and C1
# controls (ESC starts cursor moves and SGR 8, which hides everything printed after it; CR
# returns over a line already shown), line and paragraph separators, bidirectional overrides,
# and lone surrogates from undecodable names. Tab stays.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ud800-\udfff]")
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
    """`text` as one printable line: a name cannot start a line of its own (`RESULT: PASS`,
    a `::workflow-command::`) or hide the verdict after it."""
    return _UNSAFE.sub(_escaped, text)


def printable_lines(text: str) -> str:
    """Multi-line text, each line made printable; a CR that ends a line (CRLF files) is kept."""
    return "\n".join(one_line(line[:-1]) + "\r" if line.endswith("\r") else one_line(line)
                     for line in text.split("\n"))


# Characters that start Markdown or HTML markup, GitHub issue references (#1) or
# mentions (@team): escaped, a hostile path cannot become a link, an image, a
# ping or a broken table.
_MARKUP = re.compile(r"([\\`*_\[\]<>|#!~&@])")
_NEWLINE = re.compile(r"\r\n?|\n")
_BACKTICKS = re.compile(r"`+")
# Characters no reader can see or XML 1.0 cannot hold: control bytes (terminal
# colour codes in test output), lone surrogates from undecodable file names.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _show(m: re.Match[str]) -> str:
    cp = ord(m.group(0))
    if 0xDC80 <= cp <= 0xDCFF:  # surrogateescape: show the original byte
        return f"\\x{cp - 0xDC00:02x}"
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def printable(text: str) -> str:
    """`text` with invisible and XML-forbidden characters written as backslash escapes."""
    return _INVISIBLE.sub(_show, text)


def escape_cell(text: str) -> str:
    """Text made safe for one GFM table cell or list item: markup escaped, newlines as <br>."""
    return _NEWLINE.sub("<br>", _MARKUP.sub(r"\\\1", printable(text)))


def fenced(text: str, info: str = "text") -> str:
    """A fenced code block longer than any backtick run inside, so the text cannot close it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{printable(text).rstrip(chr(10))}\n{fence}"


def escape_data(text: str) -> str:
    """Escape a command's message as the runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value (file, title): data escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


