"""Decision log: round trip, order and filters, never raising, concurrent writers, redacted export."""

from __future__ import annotations

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

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "git" / "score-diff" / "decisions.sqlite3"


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


def test_newer_schema_is_not_written_to(db: Path) -> None:
    record(db, result())
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    warning = record(db, result())
    assert warning and "newer" in warning
    assert len(read(db)) == 1


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


@pytest.mark.parametrize(
    "make_path",
    [
        pytest.param(lambda t: _file(t / "file") / "decisions.sqlite3", id="parent-is-a-file"),
        pytest.param(lambda t: _dir(t / "dir.sqlite3"), id="path-is-a-directory"),
        pytest.param(lambda t: _garbage(t / "garbage.sqlite3"), id="not-a-database"),
    ],
)
def test_unwritable_log_returns_a_warning_and_never_raises(tmp_path: Path, make_path: object) -> None:
    path = make_path(tmp_path)  # type: ignore[operator]
    warning = record(path, result(n=1))
    assert warning and warning.startswith("decision log not written to ")


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
    counts = decision_log.collections.Counter[str]()
    assert decision_log.scrub(text, counts) == text
    assert sum(counts.values()) == 0


def test_scrub_is_linear_on_crafted_text() -> None:
    text = "a" * 200_000 + " " + "a@" * 50_000 + ":" * 100_000 + "/home/" * 20_000
    decision_log.scrub(text, decision_log.collections.Counter[str]())  # milliseconds, not minutes


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
