"""Forbidden tokens in the new content as the language reads it, and in the whole new file.

git shows a file's bytes as UTF-8; Python decodes source with the encoding its PEP 263
cookie names. Under `# coding: unicode_escape` the text `\\x65val(` is `eval(` to Python,
and under latin-1 a byte that NFKC folds to a letter completes an identifier. So a Python
file whose cookie names anything but UTF-8 or ASCII is decoded as Python would decode it
and token-checked whole; one that cannot be decoded fails `unreadable-encoding`.

With `token_scope: "whole-file"` every changed file's whole new content is token-checked,
so code made live by deleting the lines around it is seen too.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import accumulate, islice

from ..model import DELETED, AddedText, ChangedPath, Inspection, Violation
from .content import check_added_tokens
from .contract import CheckInput, Findings
from .job import Job

WHOLE_FILE = "whole-file"
PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")
# Encodings in which git's UTF-8 view is Python's view (NFKC is applied to both already).
SAME_AS_GIT = frozenset({"utf-8", "ascii"})
# PEP 263, as the tokenizer reads it: a comment line holding coding[:=]name.
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_SHEBANG_PYTHON = re.compile(rb"^#![^\r\n]*python")
_LINE_END = re.compile(rb"\r\n|\r|\n")

ReadFiles = Callable[[Sequence[str]], Mapping[str, "bytes | None"]]


def _may_be_python(path: str) -> bool:
    """By name: a Python suffix, or no suffix at all (a script whose shebang may say python)."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(PYTHON_SUFFIXES) or "." not in name.lstrip(".")


def _is_python(path: str, data: bytes) -> bool:
    return path.endswith(PYTHON_SUFFIXES) or bool(_SHEBANG_PYTHON.match(data))


def _cookie(data: bytes) -> bytes | None:
    """The encoding a cookie on line 1 or 2 names (line 2 only after a comment or blank line 1).

    Lines end as Python's tokenizer ends them: at CRLF, LF or a lone CR.
    """
    ends = [m.start() for m in islice(_LINE_END.finditer(data), 2)] + [len(data)] * 2
    first = data[: ends[0]]
    second = data[ends[0] : ends[1]].lstrip(b"\r\n")  # however long line 1 is, as Python reads it
    m = _COOKIE.match(first)
    if m is None and (not first.strip() or first.lstrip().startswith(b"#")):
        m = _COOKIE.match(second)
    return m.group(1) if m else None


def _python_encoding(name: bytes) -> str:
    """The codec Python would use for a cookie; raises LookupError/SyntaxError where Python would."""
    import tokenize

    return tokenize.detect_encoding(io.BytesIO(b"# coding: " + name + b"\n").readline)[0]


def decode_as_python(data: bytes) -> tuple[str, str] | None:
    """(text, encoding) of Python source whose cookie git's UTF-8 view does not match; None if
    it does. Raises ValueError when Python's own decoding is not possible."""
    name = _cookie(data)
    if name is None:
        return None
    try:
        encoding = _python_encoding(name)
        canonical = codecs.lookup(encoding).name
    except (LookupError, SyntaxError) as exc:
        raise ValueError(f"unknown encoding {name.decode('ascii', 'replace')!r}") from exc
    if canonical in SAME_AS_GIT or canonical.startswith("utf-8"):
        return None
    try:
        if b"# coding".decode(encoding) != "# coding":  # utf-16 and the like: not how Python read the cookie
            raise ValueError(f"{name.decode('ascii', 'replace')!r} is not ASCII-compatible")
        return data.decode(encoding), canonical
    except (UnicodeDecodeError, LookupError, TypeError) as exc:  # rot13 and friends are not text codecs
        raise ValueError(f"{name.decode('ascii', 'replace')!r} does not decode it ({exc})") from exc


def _as_added(texts: Sequence[tuple[str, str]]) -> AddedText:
    blocks = [t if t.endswith("\n") else t + "\n" for _, t in texts]
    starts = tuple(accumulate((len(b) for b in blocks[:-1]), initial=0)) if blocks else ()
    return AddedText("".join(blocks), starts, tuple((path, 1) for path, _ in texts))


def _readable(c: ChangedPath) -> bool:
    return c.status != DELETED and not (c.binary or c.symlink or c.submodule)


def check_new_content(ins: Inspection, job: Job, read_files: ReadFiles) -> list[Violation]:
    """Tokens in Python source as Python decodes it, and (token_scope whole-file) in every changed
    file's whole new content. Reads nothing when the manifest forbids no token."""
    if not job.tokens:
        return []
    whole = job.manifest.token_scope == WHOLE_FILE
    paths = [c.path for c in ins.changed if _readable(c) and (whole or _may_be_python(c.path))]
    if not paths:
        return []
    found: list[Violation] = []
    decoded: list[tuple[str, str]] = []
    plain: list[tuple[str, str]] = []
    for path, data in read_files(paths).items():
        if data is None:
            continue
        try:
            as_python = decode_as_python(data) if _is_python(path, data) else None
        except ValueError as exc:
            found.append(
                Violation(
                    "unreadable-encoding",
                    f"Python source declares an encoding the scorer cannot read as Python would: {exc}",
                    path,
                )
            )
            continue
        if as_python is not None:
            decoded.append((path, as_python[0]))
        elif whole:
            plain.append((path, data.decode("utf-8", "replace")))
    for v in check_added_tokens(_as_added(decoded), job) if decoded else []:
        found.append(v._replace(message=v.message.replace("added line", "line", 1) + " as Python decodes it"))
    for v in check_added_tokens(_as_added(plain), job) if plain else []:
        found.append(v._replace(message=v.message.replace("added line", "line", 1) + " (token_scope whole-file)"))
    return found


def merge_token_hits(content: list[Violation], more: list[Violation]) -> list[Violation]:
    """`more` without the forbidden-token hits an added line already reported."""
    seen = {(v.path, v.line) for v in content if v.code == "forbidden-token"}
    return [v for v in more if v.code != "forbidden-token" or (v.path, v.line) not in seen]


def _where(v: Violation) -> tuple[str, int, str]:
    return (v.path or "", v.line or 0, v.code)


def check_streamed(given: CheckInput) -> Findings:
    """What CONTENT_CHECKS found on the added lines while git streamed them, by path, line and code."""
    return Findings(tuple(sorted(given.streamed, key=_where)))


def check_new_source(given: CheckInput) -> Findings:
    """`check_new_content` on the scored tree, less the token hits an added line already reported."""
    read = partial(given.trees.read_files, given.scored_rev)
    return Findings(tuple(merge_token_hits(list(given.streamed), check_new_content(given.ins, given.job, read))))
