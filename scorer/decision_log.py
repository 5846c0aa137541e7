"""SQLite decision log: one row per scoring, read back newest first, exported redacted.

Long because the log's schema, its in-place migrations, reading and the scrubbed export share
the column list and must change together.

Writing the log is best effort: `record` never raises, because a log that cannot be
written must never change a verdict. Every text stored is passed through
`redaction.redact` first; `export` additionally hides home directories, e-mail and
IP addresses so a log can be shared.
"""

from __future__ import annotations

import os

from . import decision_journal as journal
from . import jsontext
from .errors import ScoreDiffError
from .memo import memoised
from .secrets.redaction import redact, redact_with_counts

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    import collections  # imported by the export: a guard row is only appended (issue 29)
    import re  # imported by the export's patterns: a guard row needs none (issue 29)
    import sqlite3  # imported where a database is opened: a guard row is only appended to the journal
    from collections.abc import Callable, Mapping
    from pathlib import Path  # made only off the guard's path: a guard row is appended by name (issue 29)
    from typing import Any

    from .model import Result

SCHEMA_VERSION = 1  # kept in PRAGMA user_version
BUSY_TIMEOUT_S = 10.0  # how long a writer waits for another process's lock
# A guard decision is answered before it is logged, and the hook's process still waits for the
# log: so a guard row waits for another process's lock this long, once, then warns.
GUARD_BUSY_TIMEOUT_S = 0.5
FOLD_BYTES = 32 << 10  # a row is folded with the others once the journal holds this (some 60 guard rows)
EXPORT_KINDS = ("home", "secret", "email", "ip")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS decisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time TEXT NOT NULL,
        job_id TEXT,
        mode TEXT NOT NULL,
        base TEXT,
        head TEXT,
        manifest_sha256 TEXT,
        verdict TEXT NOT NULL,
        exit_code INTEGER NOT NULL,
        shadow INTEGER NOT NULL,
        violations TEXT NOT NULL,
        duration_s REAL NOT NULL,
        version TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS decisions_by_job ON decisions (job_id, id)",
)
_COLUMNS = (
    "time", "job_id", "mode", "base", "head", "manifest_sha256",
    "verdict", "exit_code", "shadow", "violations", "duration_s", "version",
)  # fmt: skip
# Added for `score-diff guard` (mode "guard"): nullable, added to an existing log in place, so a
# log stays readable and writable by an older score-diff (which names its columns).
GUARD_COLUMNS = ("agent", "event", "tool", "paths", "decision", "reason", "session", "turn")
# Added the same way for every scoring: what the test did (passed, failed, timeout, skipped, not-run),
# the branch scored, and the gate that asked (hook, ci, manual, server; guard rows say guard).
SCORING_COLUMNS = ("test_status", "branch", "gate")
GATES = ("hook", "ci", "manual", "server", "guard")
_ADDED = (*GUARD_COLUMNS, *SCORING_COLUMNS)
# Column names are constants; every value goes through a ? parameter.
_WRITTEN = (*_COLUMNS, *SCORING_COLUMNS)
# Each row's own id from the journal (decision_journal.py), unique: a fold never inserts a row twice.
JOURNAL_COLUMNS = ("row_uid",)


class DecisionLogError(ScoreDiffError):
    """The decision log could not be read or exported (writing only ever warns)."""


def default_db_path(git_dir: Path) -> Path:
    """Where the log lives unless --log-db says otherwise."""
    return git_dir / "score-diff" / "decisions.sqlite3"


def default_db_name(git_dir: str) -> str:
    """`default_db_path` as a string, for the command hook (no pathlib on its path, issue 29)."""
    return os.path.join(git_dir, "score-diff", "decisions.sqlite3")


def infer_gate(environ: Mapping[str, str]) -> str:
    """The gate a scoring ran in, when the command did not say: a commit hook (the pre-commit
    framework sets PRE_COMMIT; git sets GIT_INDEX_FILE for its commit hooks), CI (CI is set by
    GitHub Actions, GitLab CI and most others), or a person at a terminal."""
    if environ.get("PRE_COMMIT") == "1" or environ.get("GIT_INDEX_FILE"):
        return "hook"
    if environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        return "ci"
    return "manual"


def record_guard(db_path: str | os.PathLike[str], row: dict[str, Any], spare: Path | None = None) -> str | None:
    """Append one guard decision (keys: _COLUMNS and GUARD_COLUMNS); None, or a warning.

    The row goes to the journal with one write; the journal is folded into SQLite only once it
    holds about FOLD_BYTES, so a tool call pays for no database at all on most calls."""
    try:
        values = _guard_values(row)
    except Exception as e:  # a log that cannot be written never changes the decision
        return f"decision log not written to {db_path}: {type(e).__name__}: {e}"
    return _keep(db_path, values, spare, GUARD_BUSY_TIMEOUT_S, fold_from=FOLD_BYTES)


def record_guards(db_path: Path, rows: list[dict[str, Any]], spare: Path | None = None) -> str | None:
    """Several guard decisions (the sidecar's backlog) with one journal write; None, or a warning.

    If that write fails, each row is kept on its own as `record_guard` keeps it: a row that the
    failed write did land is not kept twice, since a fold and `read` both know a row by its uid."""
    try:
        prepared = [_guard_values(row) for row in rows]
        data = b"".join(journal.encode(values) for values in prepared)
    except Exception as e:
        return f"decision log not written to {db_path}: {type(e).__name__}: {e}"
    journal_file = journal.journal_path(db_path)
    try:
        journal.append(journal_file, data)
    except Exception:
        kept = [_keep(db_path, v, spare, GUARD_BUSY_TIMEOUT_S, fold_from=FOLD_BYTES) for v in prepared]
        return next((warning for warning in kept if warning), None)
    try:
        if journal_file.stat().st_size < FOLD_BYTES:
            return None
    except OSError:
        pass
    return fold(db_path, spare, GUARD_BUSY_TIMEOUT_S)


def _guard_values(row: dict[str, Any]) -> dict[str, Any]:
    values = {k: (_r(v) if isinstance(v, str) else v) for k, v in row.items() if k in (*_COLUMNS, *_ADDED)}
    values.setdefault("gate", "guard")
    if isinstance(row.get("paths"), (list, tuple)):
        values["paths"] = jsontext.dumps([_r(str(p)) for p in row["paths"]], ensure_ascii=False)
    values["violations"] = jsontext.dumps(row.get("violations", []), ensure_ascii=False)
    values.setdefault("time", _now())
    values["row_uid"] = _uid()
    return values


def record(db_path: Path, result: Result, gate: str | None = None, spare: Path | None = None) -> str | None:
    """Append one row for `result`, asked for by `gate`; return None, or a warning if it could not be written.

    Like a guard row, it is folded into SQLite with the others once the journal holds FOLD_BYTES:
    a scoring opens no database on most runs, and `read` lists the rows still waiting."""
    try:
        values = dict(zip(_WRITTEN, (*_row(result), result.test.status, _r(result.branch), gate), strict=True))
        values["row_uid"] = _uid()
    except Exception as e:  # a log that cannot be written never changes the verdict
        return f"decision log not written to {db_path}: {type(e).__name__}: {e}"
    return _keep(db_path, values, spare, BUSY_TIMEOUT_S, fold_from=FOLD_BYTES)


def _uid() -> str:
    return os.urandom(16).hex()  # secrets.token_hex(16), without importing secrets (and hmac) on every tool call


def _keep(
    db_path: str | os.PathLike[str], row: dict[str, Any], spare: Path | None, busy_s: float, fold_from: int
) -> str | None:
    """The row into the journal (or, if the journal refuses, the database, then the spare journal),
    then the journal folded when it holds `fold_from` bytes or more. None, or a warning."""
    data = journal.encode(row)
    journal_file = journal.journal_name(db_path)
    try:
        journal.append(journal_file, data)
    except Exception as e:
        return _journal_refused(db_path, row, data, spare, busy_s, e)
    try:
        if os.stat(journal_file).st_size < fold_from:
            return None
    except OSError:
        pass
    from pathlib import Path  # once in about 60 guard rows: the fold

    return fold(Path(db_path), spare, busy_s)


def _journal_refused(
    db_path: str | os.PathLike[str], row: dict[str, Any], data: bytes, spare: Path | None, busy_s: float, why: Exception
) -> str | None:
    first = f"{type(why).__name__}: {why}"
    try:
        _regular_or_absent(db_path)
        _insert_rows(db_path, [row], busy_s)
        return None
    except Exception as e:
        second = f"{type(e).__name__}: {e}"
    if spare is not None:
        try:
            journal.append(spare, data)
            return f"decision log not written to {db_path} ({first}; {second}); the row waits in {spare}"
        except Exception as e:
            second += f"; {spare}: {type(e).__name__}: {e}"
    return f"decision log not written to {db_path}: {first}; {second}"


def fold(db_path: Path, spare: Path | None = None, busy_s: float = BUSY_TIMEOUT_S) -> str | None:
    """Move the journals' rows into SQLite; a row the database refuses stays where it is. None, or a
    warning when the database refused them for a reason other than another writer's lock."""
    import sqlite3

    try:
        # The spare first: its rows waited while the log's own directory refused them.
        for source in (*((spare,) if spare else ()), journal.journal_path(db_path)):
            for _ in range(2):  # what an earlier fold left set aside, then the journal itself
                with journal.folding(source) as aside:
                    if aside is None:
                        break
                    _regular_or_absent(db_path)
                    _insert_rows(db_path, journal.rows(aside), busy_s)
                    os.unlink(aside)
    except sqlite3.OperationalError as e:
        if "locked" in str(e) or "busy" in str(e):
            return None  # another process is writing: the rows wait for the next fold
        return f"decision log {db_path} not written (the rows wait in its journal): {type(e).__name__}: {e}"
    except Exception as e:
        return f"decision log {db_path} not written (the rows wait in its journal): {type(e).__name__}: {e}"
    return None


def _regular_or_absent(db_path: str | os.PathLike[str]) -> None:
    """The job can write the git directory: a FIFO or device there would hang sqlite's open."""
    import stat

    for path in (os.fspath(db_path), f"{db_path}-journal", f"{db_path}-wal"):
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise DecisionLogError(f"{path} is not a regular file")


def _insert_rows(db_path: str | os.PathLike[str], rows: list[dict[str, Any]], busy_timeout_s: float) -> None:
    """Every row in one transaction; a row already there (same row_uid: a fold that died after its
    commit) is not inserted twice."""
    import sqlite3
    from contextlib import closing

    known = {*_COLUMNS, *_ADDED, *JOURNAL_COLUMNS}
    with (
        closing(sqlite3.connect(db_path, timeout=busy_timeout_s, isolation_level=None)) as conn,
        _Immediate(conn),
    ):
        _ensure_schema(conn)
        for row in rows:
            names = sorted(k for k in row if k in known)  # column names are constants, checked here
            sql = f"INSERT OR IGNORE INTO decisions ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"  # noqa: S608
            conn.execute(sql, tuple(row[n] for n in names))


def _now() -> str:
    """The one timestamp format (scorer.pipeline.now_iso writes the same for a scoring row)."""
    import time  # not datetime: the guard logs a row per tool call, and datetime costs it a millisecond

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _r(text: str | None) -> str | None:
    return None if text is None else redact(text)


def _row(result: Result) -> tuple[Any, ...]:
    violations = [
        {"code": v.code, "path": _r(v.path), "line": v.line, "message": _r(v.message)} for v in result.violations
    ]
    return (
        _r(result.started_at) or _now(), _r(result.job_id), result.mode, _r(result.base), _r(result.head),
        _r(result.manifest_sha256), result.verdict, result.exit_code, int(result.shadow),
        jsontext.dumps(violations, ensure_ascii=False), float(result.duration_s), result.version,
    )  # fmt: skip


class _Immediate:
    """One write transaction that takes the write lock up front, so two writers never deadlock; rolled
    back if its block raises. A class: contextlib is not imported where a guard row is written (issue 29)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the table on first use; refuse a log written by a newer schema."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise DecisionLogError(f"log schema version {version} is newer than this score-diff ({SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    have = {row[1] for row in conn.execute("PRAGMA table_info(decisions)")}
    for name in _ADDED:
        if name not in have:  # constant names; an older log gains the new columns in place
            conn.execute(f"ALTER TABLE decisions ADD COLUMN {name} TEXT")
    if "row_uid" not in have:
        conn.execute("ALTER TABLE decisions ADD COLUMN row_uid TEXT")
        conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS decisions_by_row_uid ON decisions (row_uid)")


def read(
    db_path: Path,
    *,
    job: str | None = None,
    limit: int | None = None,
    verdict: str | None = None,
    spare: Path | None = None,
) -> list[dict[str, Any]]:
    """Logged decisions, newest first, optionally for one job and one verdict, at most `limit` of
    them: the database's rows and, newer than those, the rows still waiting in its journals (their
    id is None until they are folded)."""
    stored = _read_db(db_path, job, limit, verdict)
    folded = {uid for uid, _ in stored if uid}
    waiting = [r for r in waiting_rows(db_path, job=job, verdict=verdict, spare=spare) if r["row_uid"] not in folded]
    merged = [_without_uid(r) for r in reversed(waiting)] + [r for _, r in stored]
    return merged if limit is None else merged[: max(limit, 0)]


def waiting_rows(
    db_path: Path, *, job: str | None = None, verdict: str | None = None, spare: Path | None = None
) -> list[dict[str, Any]]:
    """The rows not yet folded into the database, oldest first, as `read` returns them (with row_uid)."""
    journals = [*((spare,) if spare else ()), journal.journal_path(db_path)]
    try:
        rows = journal.pending(journals)
    except OSError as e:
        raise DecisionLogError(f"cannot read the decision log's journal: {e}") from e
    names = ("id", *_COLUMNS, *_ADDED)
    out = []
    for row in rows:
        try:
            record = {**_record(names, tuple(row.get(n) for n in names)), "row_uid": row["row_uid"]}
        except (TypeError, ValueError, KeyError):
            continue  # not a row score-diff wrote
        if (job is None or record["job_id"] == job) and (verdict is None or record["verdict"] == verdict):
            out.append(record)
    return out


def _without_uid(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "row_uid"}


def _read_db(
    db_path: Path, job: str | None, limit: int | None, verdict: str | None
) -> list[tuple[str | None, dict[str, Any]]]:
    import sqlite3
    from contextlib import closing

    if not db_path.is_file():
        return []
    where = [(clause, value) for clause, value in (("job_id = ?", job), ("verdict = ?", verdict)) if value is not None]
    params: list[Any] = [value for _, value in where]
    sql = (" WHERE " + " AND ".join(clause for clause, _ in where)) if where else ""
    sql += " ORDER BY id DESC"
    if limit is not None:
        sql, params = sql + " LIMIT ?", [*params, max(limit, 0)]
    try:
        uri = db_path.resolve().as_uri() + "?mode=ro"  # reading never creates the file
        with closing(sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)) as conn:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'decisions'").fetchone():
                return []
            have = {row[1] for row in conn.execute("PRAGMA table_info(decisions)")}
            names = ("id", *_COLUMNS, *(c for c in _ADDED if c in have))
            uid = ", row_uid" if "row_uid" in have else ", NULL"
            query = f"SELECT {', '.join(names)}{uid} FROM decisions{sql}"  # noqa: S608 - constant column names
            return [(row[-1], _record(names, row[:-1])) for row in conn.execute(query, params)]
    except sqlite3.Error as e:
        raise DecisionLogError(f"cannot read decision log {db_path}: {e}") from e


def _record(names: tuple[str, ...], row: tuple[Any, ...]) -> dict[str, Any]:
    record = dict(zip(names, row, strict=True))
    record["shadow"] = bool(record["shadow"])
    record["violations"] = jsontext.loads(record["violations"])
    if record.get("paths"):
        record["paths"] = jsontext.loads(record["paths"])
    if record.get("mode") != "guard":  # a scoring row: the guard's columns mean nothing there
        for name in GUARD_COLUMNS:
            record.pop(name, None)
        for name in SCORING_COLUMNS:
            record.setdefault(name, None)  # a row from before these columns: unknown, never guessed
    else:
        for name in ("test_status", "branch"):
            record.pop(name, None)
    return record


def _format_text(records: list[dict[str, Any]]) -> str:
    if not records:
        return "no decisions logged\n"
    out = []
    for r in records:
        if r["mode"] == "guard":
            out += _guard_lines(r)
            continue
        verdict = r["verdict"] + (" (shadow)" if r["shadow"] else "")
        span = f"{(r['base'] or '-')[:12]}..{(r['head'] or '-')[:12]}"
        n = len(r["violations"])
        known = "".join(
            f"  {label} {r[key]}"
            for label, key in (("branch", "branch"), ("gate", "gate"), ("test", "test_status"))
            if r.get(key)
        )
        out.append(
            f"{r['time']}  {verdict}  exit {r['exit_code']}  job {r['job_id'] or '-'}  {r['mode']} {span}{known}"
            f"  {r['duration_s']:.1f}s  {n} violation{'' if n == 1 else 's'}"
        )
        for v in r["violations"]:
            where = f"{v['path']}:{v['line']}" if v["path"] and v["line"] else (v["path"] or "-")
            out.append(f"    [{v['code']}] {where}: {v['message']}")
    from .report.escape import one_line  # a stored file name must not add lines or hide the ones after it

    return "\n".join(one_line(line) for line in out) + "\n"


def _guard_lines(r: dict[str, Any]) -> list[str]:
    paths = ", ".join(r.get("paths") or []) or "-"
    head = (
        f"{r['time']}  guard {r.get('decision') or r['verdict']}  {r.get('agent') or '-'} {r.get('event') or '-'}"
        f" {r.get('tool') or '-'}  job {r['job_id'] or '-'}  session {r.get('session') or '-'}"
        f" turn {r.get('turn') or '-'}  {paths}"
    )
    reason = (r.get("reason") or "").splitlines()
    return [head] + [f"    {line}" for line in reason[:6]]


def _format_json(records: list[dict[str, Any]]) -> str:
    import json  # the export only: indented

    from .report.escape import json_safe

    return json_safe(json.dumps(records, indent=2, ensure_ascii=False)) + "\n"


FORMATS: dict[str, Callable[[list[dict[str, Any]]], str]] = {"text": _format_text, "json": _format_json}


def format_records(records: list[dict[str, Any]], fmt: str) -> str:
    """Render records from `read` as "text" or "json"."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt](records)


# Export redaction: a home directory keeps its prefix, the rest becomes a marker.
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"


def _ipv6(m: re.Match[str]) -> str:
    """Only real IPv6 addresses with two or more groups (not ::1, 12:34:56 or a MAC)."""
    import ipaddress  # here: only an export meets an IPv6-shaped text, and the guard logs on every call

    try:
        ipaddress.IPv6Address(m.group(0))
    except ValueError:
        return m.group(0)
    return "<ip>" if len([g for g in m.group(0).split(":") if g]) >= 2 else m.group(0)


@memoised()
def _pii() -> tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str]], ...]:
    """The export's patterns, compiled on the first export: a guard call that only logs never needs them."""
    import re

    home = re.compile(r"(/home/|/Users/|(?i:[a-z]:[\\/]+(?:users|documents and settings)[\\/]+))[^/\\\s\"'<>:]+")
    email = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
    ipv4 = re.compile(rf"(?<![\w.]){_OCTET}(?:\.{_OCTET}){{3}}(?!\w|\.\d)")
    ipv6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
    return (
        ("home", home, lambda m: m.group(1) + "<redacted>"),
        ("email", email, lambda m: "<email>"),
        ("ip", ipv4, lambda m: "<ip>"),
        ("ip", ipv6, _ipv6),
    )


def scrub(text: str, counts: collections.Counter[str]) -> str:
    """`text` with secrets, home directories, e-mail and IP addresses redacted; counts by kind."""
    text, secrets = redact_with_counts(text)
    counts["secret"] += sum(secrets.values())
    for kind, pattern, replace in _pii():
        text = _sub_counting(text, kind, pattern, replace, counts)
    return text


def _sub_counting(
    text: str,
    kind: str,
    pattern: re.Pattern[str],
    replace: Callable[[re.Match[str]], str],
    counts: collections.Counter[str],
) -> str:
    def one(m: re.Match[str]) -> str:
        new = replace(m)
        if new != m.group(0):
            counts[kind] += 1
        return new

    return pattern.sub(one, text)


def _scrub_value(value: Any, counts: collections.Counter[str]) -> Any:
    if isinstance(value, str):
        return scrub(value, counts)
    if isinstance(value, list):
        return [_scrub_value(v, counts) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_value(v, counts) for k, v in value.items()}
    return value


def export(db_path: Path, out_path: Path) -> collections.Counter[str]:
    """Write every logged decision, oldest first, as redacted JSON lines; return counts per kind."""
    import collections

    counts: collections.Counter[str] = collections.Counter({kind: 0 for kind in EXPORT_KINDS})
    # Each string is scrubbed on its own, before JSON escaping could hide a boundary.
    from .report.escape import json_safe

    lines = [
        json_safe(jsontext.dumps(_scrub_value(r, counts), ensure_ascii=False)) + "\n" for r in reversed(read(db_path))
    ]
    try:
        out_path.write_text("".join(lines), encoding="utf-8")
    except OSError as e:
        raise DecisionLogError(f"cannot write export {out_path}: {e}") from e
    return counts
