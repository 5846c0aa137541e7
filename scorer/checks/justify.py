"""Blast-radius justifications: parse commit-message trailers, then apply the rule.

A changed sensitive path passes only if it is named exactly in allowed_paths and
a `Blast-Radius:` group for it gives `Justification: <file>:<line> <why>` whose
evidence resolves to an existing line, and a non-empty `Rollback:`. Pure logic:
file contents arrive through the injected `line_count` callable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..manifest.globs import is_glob
from ..model import ChangedPath, Justification, Violation
from ..records import NamedTuple
from .sensitive import SensitiveHit, clean_path

_KEY = re.compile(r"^\s*(blast[-_ ]?radius|justification|rollback)\s*:(.*)$", re.IGNORECASE)
# Everything below git's scissors line (`git commit -v`) is the diff, not the message.
# Any comment character: `core.commentChar` may be set to something other than `#`.
_SCISSORS = re.compile(r"^\S\s*-{3,}\s*>8\s*-{3,}\s*$")
_LINE_NO = re.compile(r"[0-9]+")
_DRIVE = re.compile(r"^[A-Za-z]:")
_TEMPLATE = ('"Justification: <file>:<line> <why>"', '"Rollback: <how to undo>"')


class Claim(NamedTuple):
    """What the commit messages say about one blast-radius path."""

    path: str
    evidence: str | None = None  # the raw "file:line" token, if any
    reason: str = ""
    rollback: str = ""
    source: str = ""  # e.g. "commit 1a2b3c line 5"

    @property
    def has_justification(self) -> bool:
        """A non-empty Justification: line was given (empty ones are ignored)."""
        return self.evidence is not None or bool(self.reason)


def _unquote(value: str) -> str:
    """Strip one pair of surrounding quotes or backticks, as people paste paths."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1].strip()
    return value


def _split_justification(value: str) -> tuple[str | None, str]:
    """`file:line why` -> (evidence, why); a first word without `:` is no evidence."""
    first, *rest = value.split(None, 1)
    if ":" in first:
        return _unquote(first), "".join(rest).strip()
    return None, value


def _apply(claim: Claim, key: str, value: str) -> Claim:
    """Set one trailer value on a claim."""
    if key == "justification":
        evidence, reason = _split_justification(value)
        return claim._replace(evidence=evidence, reason=reason)
    return claim._replace(rollback=value)


def _parse_message(message: str, source: str) -> list[Claim]:
    """Claims in one message, in order; a group is one or more Blast-Radius lines."""
    claims: list[Claim] = []
    group: list[int] = []  # indexes into claims of the current group
    open_for_paths = False  # consecutive Blast-Radius lines share one group
    last_key: str | None = None
    for n, raw in enumerate(message.splitlines(), start=1):
        if _SCISSORS.match(raw):
            break
        if raw.lstrip().startswith("#"):
            continue
        m = _KEY.match(raw)
        if m is None:
            last_key = _continue(claims, group, last_key, raw)
            continue
        key, value = m.group(1).lower(), m.group(2).strip()
        if not value:  # an empty trailer says nothing; leave the claim as it was
            last_key = None
            continue
        if key.startswith("blast"):
            path = clean_path(_unquote(value))
            if not path:
                last_key = None
                continue
            if not open_for_paths:
                group = []
            group.append(len(claims))
            claims.append(Claim(path, source=f"{source} line {n}"))
            open_for_paths, last_key = True, None
        elif group:
            for i in group:
                claims[i] = _apply(claims[i], key, value)
            open_for_paths, last_key = False, key
    return claims


def _continue(claims: list[Claim], group: list[int], last_key: str | None, raw: str) -> str | None:
    """Fold an indented line into the previous trailer value (git's continuation)."""
    if last_key is None or not raw[:1].isspace() or not raw.strip():
        return None
    for i in group:
        c = claims[i]
        if last_key == "rollback":
            claims[i] = c._replace(rollback=f"{c.rollback} {raw.strip()}".strip())
        else:
            claims[i] = c._replace(reason=f"{c.reason} {raw.strip()}".strip())
    return last_key


def _merge(old: Claim, new: Claim) -> Claim:
    """A later group for the same path overrides field by field; empty fields keep the old."""
    justified = new.has_justification
    return Claim(
        path=old.path,
        evidence=new.evidence if justified else old.evidence,
        reason=new.reason if justified else old.reason,
        rollback=new.rollback or old.rollback,
        source=f"{old.source}; {new.source}",
    )


def parse_trailers(messages: Iterable[str], *, sources: Sequence[str] = ()) -> tuple[Claim, ...]:
    """Every Blast-Radius claim in `messages` (oldest first), one per path.

    `sources[i]` names message i in Claim.source (default "message <i+1>").
    """
    by_path: dict[str, Claim] = {}
    for i, message in enumerate(messages):
        source = sources[i] if i < len(sources) else f"message {i + 1}"
        for claim in _parse_message(message, source):
            old = by_path.get(claim.path)
            by_path[claim.path] = _merge(old, claim) if old else claim
    return tuple(by_path.values())


def resolve_evidence(evidence: str, line_count: Callable[[str], int | None]) -> str | None:
    """None if `file:line` names an existing line; otherwise what did not resolve."""
    file, sep, line = evidence.rpartition(":")
    if not sep or not file or not _LINE_NO.fullmatch(line):
        return f"evidence {evidence!r} is not <file>:<line>"
    unix = file.replace("\\", "/")
    parts = unix.split("/")
    if unix.startswith("/") or _DRIVE.match(unix) or ".." in parts or ".git" in map(str.lower, parts):
        return f"evidence file {file!r} is not a repo-relative path inside the repository"
    path, number = clean_path(unix), int(line)
    count = line_count(path)
    if count is None:
        return f"evidence file {path!r} does not exist in the scored tree"
    if not 1 <= number <= count:
        return f"evidence line {path}:{number} does not exist ({path} has {count} lines)"
    return None


def _missing_parts(claim: Claim | None) -> list[str]:
    """The trailer lines (or parts of them) still to add for one path."""
    if claim is None:
        return list(_TEMPLATE)
    missing = []
    if not claim.has_justification:
        missing.append(_TEMPLATE[0])
    elif not claim.reason:
        missing.append(f'a reason after the evidence: "Justification: {claim.evidence or "<file>:<line>"} <why>"')
    if not claim.rollback:
        missing.append(_TEMPLATE[1])
    return missing


def _sensitive_message(path: str, hit: SensitiveHit, claim: Claim | None, listed: bool) -> str:
    """The sensitive-path FAIL text: exactly what to add, pre-filled with the path. A path the job
    was not granted gets no trailer template: trailers cannot grant it (feedback.hints says undo it)."""
    asks = []
    missing = _missing_parts(claim)
    if not listed and is_glob(path):
        asks.append(
            "its name holds glob characters, so no allowed_paths entry names it exactly "
            "(a glob never grants a sensitive path)"
        )
    elif not listed:
        asks.append("it is not named exactly in allowed_paths (a glob never grants a sensitive path)")
    elif claim is None:
        asks.append(f'add to the commit message: "Blast-Radius: {path}" / ' + " / ".join(missing))
    elif missing:
        asks.append(f'add to the commit message under "Blast-Radius: {path}": ' + " / ".join(missing))
    return f"{path} is a sensitive path ({hit.category}: {hit.reason}); " + "; ".join(asks)


def _check_path(
    path: str,
    hit: SensitiveHit,
    claim: Claim | None,
    listed: bool,
    line_count: Callable[[str], int | None],
) -> tuple[list[Violation], Justification | None]:
    """Violations for one sensitive path, or the accepted Justification."""
    violations = []
    problem = resolve_evidence(claim.evidence, line_count) if claim and claim.evidence else None
    if claim and claim.has_justification and claim.evidence is None:
        problem = f"justification for {path} has no <file>:<line> evidence before the reason"
    if problem:
        violations.append(Violation("bad-justification", f"{path}: {problem}", path=path))
    if not listed or _missing_parts(claim):
        violations.append(Violation("sensitive-path", _sensitive_message(path, hit, claim, listed), path=path))
    if violations or claim is None or claim.evidence is None:
        return violations, None
    file, _, line = claim.evidence.rpartition(":")
    evidence = f"{clean_path(file)}:{int(line)}"
    return [], Justification(path, evidence, claim.reason, claim.rollback)


def evaluate(
    changed: Sequence[ChangedPath],
    claims: Iterable[Claim],
    *,
    allowed_paths: Sequence[str],
    is_sensitive: Callable[[str], SensitiveHit | None],
    line_count: Callable[[str], int | None],
) -> tuple[list[Violation], list[Justification]]:
    """Apply the blast-radius rule to every side of every changed path."""
    # An entry with glob metacharacters is a glob whatever it spells: a file literally named
    # `.github/workflows/*.yml` is matched by it, never named by it.
    listed = {p for p in map(clean_path, allowed_paths) if not is_glob(p)}
    by_path = {c.path: c for c in claims}
    violations: list[Violation] = []
    accepted: list[Justification] = []
    seen: set[str] = set()
    for change in changed:
        for path in map(clean_path, change.paths):
            hit = None if path in seen else is_sensitive(path)
            if hit is None:
                continue
            seen.add(path)
            found, ok = _check_path(path, hit, by_path.get(path), path in listed, line_count)
            violations.extend(found)
            if ok:
                accepted.append(ok)
    return violations, accepted
