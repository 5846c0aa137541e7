"""content.check_added_tokens as it was before issue 29 skipped the substrings' alternation over a
text that holds none of them (lead at 14a1b4e): the reference a differential test holds the new one
to. Test code only, never on a verdict's path."""

from __future__ import annotations

from scorer.checks.content import MAX_LISTED, _list_lines, _what, as_read
from scorer.checks.job import Job
from scorer.model import AddedText, Violation


def check_added_tokens(added: AddedText, job: Job) -> list[Violation]:
    found = []
    read = as_read(added)
    for label, pattern in job.tokens:
        listed: dict[tuple[str, int, str], None] = {}
        more = _list_lines(added.search(pattern), listed, label)
        if more is None and read is not None:
            more = _list_lines(read[0].search(pattern, read[1]), listed, label)
        for path, line, match in listed:
            found.append(Violation("forbidden-token", f"added line contains {_what(label, match)}", path, line))
        if more is not None:
            found.append(
                Violation(
                    "forbidden-token",
                    f"more than {MAX_LISTED} added lines contain {_what(label, more.match)}; the rest are not listed",
                    more.path,
                    more.line,
                )
            )
    return found
