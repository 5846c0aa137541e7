"""The sidecar's kept handler threads (guard/workers.py) and when its decision log is written."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

import pytest

from scorer.guard import run, serve
from scorer.guard.serve import GuardServer
from scorer.guard.workers import Workers
from tests.testing.guard import serving, write_payload
from tests.testing.repo import GitRepo

WAIT_S = 30.0  # a bound on waits that should end at once: a bug fails the test instead of hanging it


def settle(condition: Callable[[], bool]) -> None:
    """Wait until `condition` holds (polled; WAIT_S at most, then the assertion fails)."""
    done = threading.Event()
    for _ in range(int(WAIT_S / 0.01)):
        if condition():
            return
        done.wait(0.01)
    assert condition()


def test_a_worker_that_finished_takes_the_next_job() -> None:
    workers, ran, done = Workers(), list[int](), threading.Semaphore(0)
    for _ in range(5):
        workers.submit(lambda: ran.append(threading.get_ident()), done.release)
        assert done.acquire(timeout=WAIT_S)
    workers.close()
    assert len(set(ran)) == 1 and workers.alive <= 1


def test_busy_workers_are_added_to_and_then_reused() -> None:
    workers, gate, done = Workers(), threading.Event(), threading.Semaphore(0)

    def hold() -> None:
        gate.wait(WAIT_S)

    for _ in range(5):
        workers.submit(hold, done.release)
    assert workers.alive == 5  # every worker was busy when the next job came
    gate.set()
    for _ in range(5):
        assert done.acquire(timeout=WAIT_S)
    for _ in range(5):
        workers.submit(lambda: None, done.release)
        assert done.acquire(timeout=WAIT_S)
    assert workers.alive == 5
    workers.close()
    settle(lambda: workers.alive == 0)


def test_idle_workers_end_and_new_ones_start() -> None:
    before = threading.active_count()
    workers, done = Workers(idle_s=0.01), threading.Semaphore(0)
    workers.submit(lambda: None, done.release)
    assert done.acquire(timeout=WAIT_S)
    settle(lambda: workers.alive == 0 and threading.active_count() == before)
    workers.submit(lambda: None, done.release)
    assert done.acquire(timeout=WAIT_S)
    workers.close()


def test_a_job_handed_over_as_its_worker_times_out_is_still_run() -> None:
    """The race: a worker's wait ends just as a job is handed to it. Many tiny jobs, many
    submitters and a tiny idle time make it happen; every job must run and report done."""
    workers, done, lock = Workers(idle_s=0.0005), threading.Semaphore(0), threading.Lock()
    counted: list[int] = []

    def job() -> None:
        with lock:
            counted.append(1)

    def submitter() -> None:
        for i in range(300):
            workers.submit(job, done.release)
            if i % 7 == 0:
                threading.Event().wait(0.001)  # let workers go idle and time out

    threads = [threading.Thread(target=submitter) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for _ in range(1200):
        assert done.acquire(timeout=WAIT_S)
    assert len(counted) == 1200
    workers.close()


def test_a_job_that_escapes_ends_its_worker_without_losing_the_next_job(monkeypatch: pytest.MonkeyPatch) -> None:
    workers, done, ended = Workers(), threading.Semaphore(0), list[type]()
    monkeypatch.setattr(threading, "excepthook", lambda args: ended.append(args.exc_type))

    def escape() -> None:
        raise SystemExit  # a BaseException the handler does not catch (threading ends the thread quietly)

    workers.submit(escape, done.release)
    assert done.acquire(timeout=WAIT_S)  # its slot is freed all the same
    settle(lambda: workers.alive == 0 and ended == [SystemExit])  # it is not counted as waiting for work
    workers.submit(lambda: None, done.release)
    assert done.acquire(timeout=WAIT_S)  # a new worker runs it instead of the queue holding it forever
    workers.close()


# --- the server ----------------------------------------------------------------------------------


def running(repo: GitRepo, **kwargs: Any) -> contextlib.AbstractContextManager[GuardServer]:
    return serving(repo, str(repo.scratch / "log.sqlite3"), **kwargs)


def ask(port: int, repo: GitRepo, path: str) -> dict[str, Any]:
    body = write_payload(repo, path)
    head = "POST /score?agent=claude HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head.encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    answer: dict[str, Any] = json.loads(data.partition(b"\r\n\r\n")[2])
    return answer


@pytest.fixture
def fenced(committed: GitRepo) -> GitRepo:
    committed.manifest(allowed_paths=["allowed/**"])
    return committed


def test_requests_one_after_another_are_decided_on_one_thread(fenced: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = serve._Handler._decide

    def decide(self: Any, agent: str, raw: bytes) -> Any:
        seen.append(threading.get_ident())
        return real(self, agent, raw)

    monkeypatch.setattr(serve._Handler, "_decide", decide)
    with running(fenced) as server:
        port = server.server_address[1]
        assert [ask(port, fenced, "allowed/a.py") for _ in range(4)] == [{}] * 4
        settle(lambda: server.busy == 0)
        assert ask(port, fenced, "other/b.py")["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert len(seen) == 5 and len(set(seen)) == 1


def test_the_log_waits_for_requests_that_come_together(fenced: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows are written once requests stop coming for LOG_QUIET_S, not as soon as none is being
    decided: a request that comes a moment after another is not slowed by the first one's row.
    (A quiet time longer than the test makes "a moment" certain.)"""
    batches: list[int] = []
    real = run.log_batch

    def log_batch(items: list[Any]) -> list[str]:
        batches.append(len(items))
        return real(items)

    monkeypatch.setattr(run, "log_batch", log_batch)
    monkeypatch.setattr(serve, "LOG_QUIET_S", WAIT_S)
    monkeypatch.setattr(serve, "LOG_YIELD_S", 10 * WAIT_S)
    with running(fenced) as server:
        port = server.server_address[1]
        assert ask(port, fenced, "allowed/a.py") == {}
        settle(lambda: server.busy == 0)
        assert ask(port, fenced, "allowed/b.py") == {}
        assert batches == []  # the first row still waits
    assert batches == [2]  # closing the server wrote both, together
