"""The report's tail of the test's output has a fixed maximum whatever a real process prints
(scorer.testrun.run.tail behind process.Output's 1 MiB cap), and a given secret printed hex
encoded at the very end is masked."""

from __future__ import annotations

import os
import secrets
import string
import sys
from pathlib import Path

import pytest

from scorer.model import TEST_PASSED
from scorer.testrun.run import TAIL_BYTES, TAIL_LINES, run_test

PRINTERS = {
    "binary": "import os, sys; sys.stdout.buffer.write(os.urandom(3 << 20))",
    "one-long-line": "import sys; sys.stdout.write('x' * (5 << 20))",
    "many-lines": "import sys; sys.stdout.write('line\\n' * 1_000_000)",
    "wide-characters": "import sys; sys.stdout.buffer.write('\\u2028é\\U0001F600'.encode() * 400_000)",
}


@pytest.mark.parametrize("name", sorted(PRINTERS))
def test_the_tail_of_a_real_process_is_bounded(name: str, tmp_path: Path) -> None:
    outcome = run_test([sys.executable, "-c", PRINTERS[name]], str(tmp_path), 60, dict(os.environ))
    assert outcome.status == TEST_PASSED, outcome.reason
    assert 0 < len(outcome.output_tail.encode("utf-8")) <= TAIL_BYTES
    assert outcome.output_tail.count("\n") < TAIL_LINES


def test_a_given_secret_printed_hex_at_the_end_of_a_flood_is_masked(tmp_path: Path) -> None:
    value = "".join(secrets.choice(string.ascii_letters) for _ in range(20)) + "7Qz9"
    env = {**os.environ, "SERVICE_TOKEN": value}
    script = "import os, sys; sys.stdout.write('y' * (2 << 20) + os.environ['SERVICE_TOKEN'].encode().hex())"
    outcome = run_test([sys.executable, "-c", script], str(tmp_path), 60, env)
    assert outcome.output_tail.endswith("y****"), outcome.output_tail[-80:]
    assert value.encode().hex()[:8] not in outcome.output_tail
