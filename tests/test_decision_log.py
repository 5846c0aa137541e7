"""Decision log: round trip, order and filters, never raising, concurrent writers, redacted export."""

from __future__ import annotations

import collections
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scorer import decision_log
from scorer.decision_log import DecisionLogError, export, format_records, read, record
from scorer.model import FAIL, PASS, Result, Violation

ROOT = Path(__file__).resolve().parents[1]
FAKE_TOKEN = "gh" + "p_" + "Zq3Lw8Rt5Yk2" * 3  # built at run time; 36 characters after the prefix


def result(job: str | None = "job-1", n: int = 0, **kw: object) -> Result:
    fields: dict[str, object] = {
        "verdict": FAIL if n else PASS,
        "exit_code": 1 if n else 0,
        "job_id": job,
        "mode": "range",
        "violations": tuple(Violation("unlisted-path", f"not allowed {i}", f"src/f{i}.py", i + 1) for i in range(n)),
        "base": "a" * 40,
        "head": "b" * 40,
        "manifest_sha256": "c" * 64,
        "duration_s": 1.25,
        "version": "0.1.0",
        "started_at": "2025-01-02T03:04:05Z",
    }
    fields.update(kw)
    return Result(**fields)  # type: ignore[arg-type]


REAL_FOLD_BYTES = decision_log.FOLD_BYTES


@pytest.fixture(autouse=True)
def every_row_folds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most tests here are about the fold and its faults: each row folds as it is kept. The tests
    of rows waiting below the threshold set the real one back."""
    monkeypatch.setattr(decision_log, "FOLD_BYTES", 0)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "git" / "score-diff" / "decisions.sqlite3"


def test_a_scoring_row_waits_in_the_journal_until_it_holds_fold_bytes(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scoring opens no database on most runs (issue 29): its row is appended to the journal,
    read back with the folded ones, exported, and folded with the others once the journal is full."""
    monkeypatch.setattr(decision_log, "FOLD_BYTES", REAL_FOLD_BYTES)
    assert record(db, result(job="first")) is None
    assert not db.exists()
    (row,) = read(db)
    assert (row["id"], row["job_id"], row["verdict"]) == (None, "first", PASS)
    out = db.parent / "export.jsonl"
    export(db, out)
    assert [json.loads(line)["job_id"] for line in out.read_text().splitlines()] == ["first"]
    journal_file, n = db.with_name(db.name + ".rows"), 0
    while journal_file.exists():  # each row appended; the one that fills the journal folds them all
        size = journal_file.stat().st_size
        assert size < REAL_FOLD_BYTES and not db.exists()
        n += 1
        assert record(db, result(job=f"job-{n}", n=3)) is None
    assert n > 20  # about 32 KiB of rows folded at once, not one row each
    with sqlite3.connect(db) as conn:
        stored = [job for (job,) in conn.execute("SELECT job_id FROM decisions ORDER BY id")]
    assert stored == ["first", *(f"job-{i}" for i in range(1, n + 1))]
    assert record(db, result(job="after")) is None  # a new journal, waiting again
    assert [(r["id"], r["job_id"]) for r in read(db)][:2] == [(None, "after"), (n + 1, f"job-{n}")]


def test_round_trip_creates_the_directory_and_keeps_every_field(db: Path) -> None:
    assert record(db, result(n=2, shadow=True)) is None
    (row,) = read(db)
    assert row == {
        "id": 1,
        "time": "2025-01-02T03:04:05Z",
        "job_id": "job-1",
        "mode": "range",
        "base": "a" * 40,
        "head": "b" * 40,
        "manifest_sha256": "c" * 64,
        "verdict": FAIL,
        "exit_code": 1,
        "shadow": True,
        "violations": [
            {"code": "unlisted-path", "path": "src/f0.py", "line": 1, "message": "not allowed 0"},
            {"code": "unlisted-path", "path": "src/f1.py", "line": 2, "message": "not allowed 1"},
        ],
        "duration_s": 1.25,
        "version": "0.1.0",
        "test_status": "not-run",
        "branch": None,
        "gate": None,
    }


def test_schema_version_is_stored(db: Path) -> None:
    record(db, result())
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == decision_log.SCHEMA_VERSION


def test_newer_schema_is_not_written_to_and_the_row_waits_in_the_journal(db: Path) -> None:
    record(db, result())
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    warning = record(db, result(job="waiting"))
    assert warning and "newer" in warning and "wait in its journal" in warning
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(None, "waiting"), (1, "job-1")]


def test_missing_time_is_filled_in(db: Path) -> None:
    record(db, result(started_at=""))
    assert read(db)[0]["time"].endswith("Z")


def test_newest_first_job_filter_and_limit(db: Path) -> None:
    for job in ("a", "b", "a", "c", "a"):
        assert record(db, result(job=job, n=len(job))) is None
    assert [r["id"] for r in read(db)] == [5, 4, 3, 2, 1]
    assert [r["id"] for r in read(db, job="a")] == [5, 3, 1]
    assert [r["id"] for r in read(db, job="a", limit=2)] == [5, 3]
    assert [r["id"] for r in read(db, limit=1)] == [5]
    assert read(db, job="zzz") == []
    assert read(db, limit=0) == []


def test_reading_a_missing_log_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    assert read(tmp_path / "none.sqlite3") == []
    assert not (tmp_path / "none.sqlite3").exists()


def test_reading_garbage_is_a_named_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DecisionLogError, match="cannot read decision log"):
        read(bad)


def test_a_log_whose_directory_is_a_file_loses_the_row_with_a_warning_and_never_raises(tmp_path: Path) -> None:
    warning = record(_file(tmp_path / "file") / "decisions.sqlite3", result(n=1))
    assert warning and warning.startswith("decision log not written to ")


@pytest.mark.parametrize(
    "make_path",
    [
        pytest.param(lambda t: _dir(t / "dir.sqlite3"), id="path-is-a-directory"),
        pytest.param(lambda t: _garbage(t / "garbage.sqlite3"), id="not-a-database"),
    ],
)
def test_a_database_that_refuses_the_row_warns_and_the_row_waits(tmp_path: Path, make_path: object) -> None:
    path = make_path(tmp_path)  # type: ignore[operator]
    warning = record(path, result(n=1))
    assert warning and "the rows wait in its journal" in warning
    assert [r["verdict"] for r in decision_log.waiting_rows(path)] == [FAIL]


def _file(p: Path) -> Path:
    p.write_text("x")
    return p


def _dir(p: Path) -> Path:
    p.mkdir()
    return p


def _garbage(p: Path) -> Path:
    p.write_bytes(b"\x00garbage" * 512)
    return p


def test_even_an_unexpected_error_is_only_a_warning(db: Path) -> None:
    weird = result(violations=(object(),))  # not a Violation: _row itself fails
    assert "not written" in (record(db, weird) or "")


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from scorer.decision_log import record
    from scorer.model import Result
    db, job, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    while not go.exists():  # start together, so the writes really overlap
        time.sleep(0.001)
    for i in range(50):
        warning = record(db, Result("PASS", 0, f"{job}-{i}", "worktree"))
        if warning:
            sys.exit(warning)
    """
)


def test_two_processes_writing_at_once_lose_nothing(db: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), job, str(go)], env=env) for job in ("p", "q")]
    go.touch()
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    jobs = {r["job_id"] for r in read(db)}
    assert jobs == {f"{j}-{i}" for j in ("p", "q") for i in range(50)}


def test_stored_text_is_redacted(db: Path) -> None:
    leaky = Violation("test-failed", f"output: token={FAKE_TOKEN}", f"cfg/{FAKE_TOKEN}.txt", 3)
    record(db, result(job=f"job-{FAKE_TOKEN}", violations=(leaky,)))
    raw = db.read_bytes()
    assert FAKE_TOKEN.encode() not in raw
    (row,) = read(db)
    assert row["violations"][0]["message"] == "output: token=ghp_****"
    assert row["job_id"] == "job-ghp_****"


def test_format_text_and_json(db: Path) -> None:
    record(db, result(n=1, shadow=True))
    records = read(db)
    text = format_records(records, "text")
    assert text.splitlines() == [
        "2025-01-02T03:04:05Z  FAIL (shadow)  exit 1  job job-1  range aaaaaaaaaaaa..bbbbbbbbbbbb"
        "  test not-run  1.2s  1 violation",
        "    [unlisted-path] src/f0.py:1: not allowed 0",
    ]
    assert json.loads(format_records(records, "json")) == records
    assert format_records([], "text") == "no decisions logged\n"
    with pytest.raises(ValueError, match="unknown format"):
        format_records(records, "xml")


PLANTED = {
    "home": ["/home/alice/project/a.py", "/Users/bob/src/b.py", "C:\\Users\\carol\\c.py"],
    "email": ["dev.person+ci@example.org", "ops@corp.example.co.uk"],
    "ip": ["10.1.2.3", "192.168.100.254", "2001:db8:85a3::8a2e:370:7334", "fe80::1ff:fe23:4567:890a"],
}


def test_export_redacts_and_counts(db: Path, tmp_path: Path) -> None:
    aws_key = "AK" + "IA" + "Q7RM2XK4WZ9PLT5N"
    message = " ".join(v for values in PLANTED.values() for v in values)
    violations = (Violation("test-failed", message, "/home/alice/project/a.py", 1),)
    record(db, result(job="ops@corp.example.co.uk", violations=violations))
    record(db, result(job="clean"))
    with sqlite3.connect(db) as conn:  # a row that somehow escaped redaction when written
        conn.execute("UPDATE decisions SET base = ? WHERE job_id = 'clean'", (f"key {aws_key}",))
    out = tmp_path / "export.jsonl"
    counts = export(db, out)
    # Three homes in the message and one in the path; the job id adds an e-mail.
    assert counts == {"home": 4, "secret": 1, "email": 3, "ip": 4}
    text = out.read_text()
    for planted in [*(v for values in PLANTED.values() for v in values), aws_key, "alice", "bob", "carol"]:
        assert planted not in text
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["job_id"] for r in rows] == ["<email>", "clean"]  # oldest first
    assert rows[1]["base"] == "key AKIA****"
    assert rows[0]["violations"][0]["path"] == "/home/<redacted>/project/a.py"
    assert "C:\\Users\\<redacted>\\c.py" in rows[0]["violations"][0]["message"]


@pytest.mark.parametrize(
    "text",
    [
        "commit aaaaaaaa at 2025-01-02T03:04:05Z",
        "mac 00:1a:2b:3c:4d:5e",
        "slice x[::2] and ::1",
        "at 12:34:56",
        "v1.2.3",
        "a@b",
    ],
)
def test_export_leaves_look_alikes_alone(text: str) -> None:
    counts = collections.Counter[str]()
    assert decision_log.scrub(text, counts) == text
    assert sum(counts.values()) == 0


def test_scrub_is_linear_on_crafted_text() -> None:
    text = "a" * 200_000 + " " + "a@" * 50_000 + ":" * 100_000 + "/home/" * 20_000
    decision_log.scrub(text, collections.Counter[str]())  # milliseconds, not minutes


def test_export_of_an_empty_log_writes_an_empty_file(tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    assert export(tmp_path / "none.sqlite3", out) == {"home": 0, "secret": 0, "email": 0, "ip": 0}
    assert out.read_text() == ""


def test_export_to_an_unwritable_path_is_a_named_error(db: Path, tmp_path: Path) -> None:
    record(db, result())
    with pytest.raises(DecisionLogError, match="cannot write export"):
        export(db, tmp_path / "missing-dir" / "x.jsonl")


# -- what a row says about the run: the test, the branch, the gate ---------------------------


def test_a_row_carries_the_test_status_branch_and_gate(db: Path) -> None:
    from scorer.model import TestOutcome

    skipped = result(branch="agent-fix", test=TestOutcome("skipped", ("pytest",), reason="--skip-test"))
    assert record(db, skipped, gate="ci") is None
    (row,) = read(db)
    assert (row["test_status"], row["branch"], row["gate"]) == ("skipped", "agent-fix", "ci")
    assert format_records([row], "text").splitlines()[0] == (
        "2025-01-02T03:04:05Z  PASS  exit 0  job job-1  range aaaaaaaaaaaa..bbbbbbbbbbbb"
        "  branch agent-fix  gate ci  test skipped  1.2s  0 violations"
    )


def test_an_older_log_gains_the_columns_in_place_and_its_rows_stay_unknown(db: Path) -> None:
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        for statement in decision_log._SCHEMA:  # the version-1 table, before the guard's and these columns
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO decisions (time, job_id, mode, verdict, exit_code, shadow, violations, "
            "duration_s, version) VALUES ('t', 'old', 'range', 'PASS', 0, 0, '[]', 1.0, '0.0.9')"
        )
    assert record(db, result(job="new"), gate="hook") is None
    new, old = read(db)
    assert (new["job_id"], new["gate"], new["test_status"]) == ("new", "hook", "not-run")
    assert (old["job_id"], old["gate"], old["test_status"], old["branch"]) == ("old", None, None, None)
    assert "gate" not in format_records([old], "text") and "test" not in format_records([old], "text")


def test_read_filters_by_job_and_verdict(db: Path) -> None:
    for job, n in (("a", 0), ("a", 1), ("b", 1), ("b", 0)):
        record(db, result(job=job, n=n))
    assert [(r["job_id"], r["verdict"]) for r in read(db, job="a", verdict=FAIL)] == [("a", FAIL)]
    assert [r["job_id"] for r in read(db, verdict=PASS)] == ["b", "a"]
    assert [r["verdict"] for r in read(db, job="b")] == [PASS, FAIL]


@pytest.mark.parametrize(
    ("environ", "gate"),
    [
        ({}, "manual"),
        ({"PRE_COMMIT": "1"}, "hook"),
        ({"GIT_INDEX_FILE": ".git/index"}, "hook"),
        ({"CI": "true"}, "ci"),
        ({"CI": "false"}, "manual"),
        ({"CI": "1", "PRE_COMMIT": "1"}, "hook"),
    ],
)
def test_the_gate_is_inferred_from_the_environment(environ: dict[str, str], gate: str) -> None:
    assert decision_log.infer_gate(environ) == gate


def test_a_scoring_run_logs_its_test_branch_and_gate_and_log_filters_them(committed, monkeypatch) -> None:
    from tests.testing.repo import run_cli

    log = str(committed.scratch / "log.sqlite3")
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "changed\n")
    assert committed.score("--log-db", log).exit_code == 0  # --skip-test
    committed.write("other/b.py", "stray\n")
    monkeypatch.setenv("CI", "true")
    assert committed.score("--log-db", log).exit_code == 1
    assert committed.score("--log-db", log, "--gate", "hook").exit_code == 1
    code, out = run_cli(["log", "--log-db", log, "--job", "test-job", "--verdict", "FAIL", "--format", "json"])
    rows = json.loads(out)
    assert code == 0 and [(r["gate"], r["test_status"], r["branch"]) for r in rows] == [
        ("hook", "not-run", "agent-x"),
        ("ci", "not-run", "agent-x"),
    ]
    code, out = run_cli(["log", "--log-db", log, "--verdict", "PASS"])
    assert code == 0 and "  branch agent-x  gate manual  test skipped  " in out and len(out.splitlines()) == 1


# -- the journal: every fault leaves the row somewhere `score-diff log` reads ----------------


def test_a_locked_database_keeps_the_row_in_the_journal_until_the_next_fold(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(db, result(job="first"))
    monkeypatch.setattr(decision_log, "BUSY_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a write
    try:
        assert record(db, result(job="waits")) is None  # a lock is not worth a warning: the row is kept
        assert [r["job_id"] for r in decision_log.waiting_rows(db)] == ["waits"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(None, "waits"), (1, "first")]
    assert record(db, result(job="third")) is None  # this fold takes the waiting row too, in order
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(3, "third"), (2, "waits"), (1, "first")]
    assert decision_log.waiting_rows(db) == []


def test_a_corrupt_database_keeps_rows_in_the_journal_and_log_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from scorer.main import main

    db = _garbage(tmp_path / "corrupt.sqlite3")
    assert "wait in its journal" in (record(db, result(job="kept", n=1)) or "")
    capsys.readouterr()
    assert main(["log", "--log-db", str(db)]) == 1
    out, err = capsys.readouterr()
    assert "job kept" in out and "cannot read decision log" in err and "1 rows waiting" in err
    db.unlink()  # the database is repaired (here: removed): the next fold takes the waiting row
    assert record(db, result(job="after")) is None
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(2, "after"), (1, "kept")]


def test_a_disk_that_refuses_the_journal_write_puts_the_row_straight_into_the_database(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")  # ENOSPC, at the one write the journal makes

    monkeypatch.setattr(decision_log.journal.os, "write", full)
    assert record(db, result(job="no-space")) is None
    monkeypatch.undo()
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(1, "no-space")]


def test_a_write_cut_short_costs_no_other_row(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write

    def half(fd: int, data: bytes) -> int:
        return real(fd, data[: len(data) // 2])  # the disk filled up in the middle of the row

    record(db, result(job="before"))
    monkeypatch.setattr(decision_log.journal.os, "write", half)
    monkeypatch.setattr(decision_log, "_insert_rows", _refuse)  # and the database refuses it too
    warning = record(db, result(job="cut"))
    assert warning and "short write" in warning
    monkeypatch.undo()
    assert record(db, result(job="after")) is None  # its line starts clean after the half row
    assert [r["job_id"] for r in read(db)] == ["after", "before"]


def _refuse(*args: object) -> None:
    raise sqlite3.OperationalError("database or disk is full")


def test_a_fold_that_died_after_its_commit_inserts_nothing_twice(db: Path) -> None:
    record(db, result(job="once"))
    (row,) = read(db)
    with sqlite3.connect(db) as conn:
        (uid,) = conn.execute("SELECT row_uid FROM decisions").fetchone()
    again = {"row_uid": uid, "time": row["time"], "job_id": "once", "mode": "range", "verdict": PASS}
    again.update(exit_code=0, shadow=0, violations="[]", duration_s=1.0, version="0.1.0")
    journal = decision_log.journal
    journal.folding_path(journal.journal_path(db)).write_bytes(journal.encode(again))
    assert len(read(db)) == 1  # read does not show it twice either
    assert record(db, result(job="next")) is None
    assert [r["job_id"] for r in read(db)] == ["next", "once"]


def _read_only_mount(directory: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` run with `directory` read-only: a read-only bind mount in a mount namespace when
    root (root writes through any mode bits), the directory's mode bits otherwise."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        finally:
            directory.chmod(0o755)
    mount = f'mount --bind -o ro {directory} {directory} && exec {sys.executable} -c "$0"'
    proc = subprocess.run(["unshare", "-m", "sh", "-c", mount, script], env=env, capture_output=True, text=True)
    if "mount" in proc.stderr and proc.returncode != 0:
        pytest.skip(f"no read-only bind mount here: {proc.stderr.strip()}")
    return proc


def test_a_read_only_git_dir_keeps_the_row_in_the_spare_journal(db: Path, tmp_path: Path) -> None:
    from scorer.decision_journal import spare_journal

    record(db, result(job="before"))
    spare = spare_journal(db, str(tmp_path / "state"))
    assert spare is not None
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from scorer.decision_log import record
        from scorer.model import Result
        print(record(Path({str(db)!r}), Result("FAIL", 1, "read-only", "worktree"), spare=Path({str(spare)!r})))
        """
    )
    proc = _read_only_mount(db.parent, script)
    assert proc.returncode == 0, proc.stderr
    assert f"the row waits in {spare}" in proc.stdout
    assert [r["job_id"] for r in read(db, spare=spare)] == ["read-only", "before"]
    assert record(db, result(job="writable again"), spare=spare) is None  # the spare is folded too
    assert [(r["id"], r["job_id"]) for r in read(db)] == [(3, "writable again"), (2, "read-only"), (1, "before")]


def test_a_guard_row_is_appended_without_sqlite_and_read_back(db: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from scorer.decision_log import record_guard
        row = {{"mode": "guard", "verdict": "PASS", "exit_code": 0, "shadow": 0, "duration_s": 0.01,
               "version": "0", "decision": "allow", "paths": ["a.py"]}}
        assert record_guard(Path({str(db)!r}), row) is None
        print("sqlite3" in sys.modules)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
    (row,) = read(db)
    assert (row["id"], row["mode"], row["decision"], row["paths"]) == (None, "guard", "allow", ["a.py"])


GUARD_ROW = {"mode": "guard", "verdict": "PASS", "exit_code": 0, "shadow": 0, "duration_s": 0.01, "version": "0"}


def test_the_hook_appends_a_guard_row_by_name_without_pathlib_or_sqlite(db: Path) -> None:
    """The command hook names the log with a string (issue 29): the same row lands, and neither
    pathlib nor sqlite3 is imported to append it."""
    script = textwrap.dedent(
        f"""
        import sys
        started = set(sys.modules)  # the interpreter's start-up (a .pth may import pathlib, as on CI's machine)
        from scorer.decision_log import record_guard
        assert record_guard({str(db)!r}, {{**{GUARD_ROW!r}, "decision": "allow"}}) is None
        print([m for m in ("pathlib", "sqlite3") if m in sys.modules and m not in started])
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
    assert [(r["id"], r["decision"]) for r in read(db)] == [(None, "allow")]


@pytest.mark.parametrize("by_name", [False, True], ids=["Path", "str"])
def test_a_guard_row_the_journal_refuses_goes_to_the_database_however_the_log_is_named(
    db: Path, monkeypatch: pytest.MonkeyPatch, by_name: bool
) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(decision_log.journal.os, "write", full)
    assert decision_log.record_guard(str(db) if by_name else db, {**GUARD_ROW, "decision": "deny"}) is None
    monkeypatch.undo()
    assert [(r["id"], r["decision"]) for r in read(db)] == [(1, "deny")]


@pytest.mark.parametrize("by_name", [False, True], ids=["Path", "str"])
def test_a_full_journal_is_folded_however_the_log_is_named(
    db: Path, monkeypatch: pytest.MonkeyPatch, by_name: bool
) -> None:
    monkeypatch.setattr(decision_log, "FOLD_BYTES", 0)  # every row folds (as the autouse fixture says)
    assert decision_log.record_guard(str(db) if by_name else db, {**GUARD_ROW, "decision": "ask"}) is None
    assert [(r["id"], r["decision"]) for r in read(db)] == [(1, "ask")]
    assert not os.path.exists(f"{db}.rows")
