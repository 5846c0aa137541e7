"""docs/detectors.md: one row per detector, and every example in it does what the row says."""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

import pytest

from scorer.model import AddedText
from scorer.secrets.detectors import DETECTOR_IDS, scan
from scorer.secrets.secret_values import PUBLISHED_SAMPLES

DOC = Path(__file__).resolve().parents[2] / "docs" / "detectors.md"
ALPHABETS = {
    "A": string.ascii_letters + string.digits,
    "B": string.ascii_letters + string.digits + "_-",
    "S": string.ascii_letters + string.digits + "+/",
    "H": "0123456789abcdef",
    "D": string.digits,
    "U": string.ascii_uppercase + string.digits,
    "P": string.ascii_letters + string.digits + "!#%&*+-=?@^_~",
}


def cells(row: str) -> list[str]:
    """The cells of one markdown table row; `\\|` is a literal bar."""
    parts = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    return [p.strip().replace("\\|", "|") for p in parts]


def code(cell: str) -> str:
    found = re.fullmatch(r"`(.*)`", cell)
    assert found, cell
    return found.group(1)


def expand(example: str, seed: int) -> str:
    """Fill each [X12] with 12 random characters of alphabet X; \\n is a line break."""
    rng = random.Random(seed)

    def fill(m: re.Match[str]) -> str:
        return "".join(rng.choice(ALPHABETS[m.group(1)]) for _ in range(int(m.group(2))))

    return re.sub(r"\[([A-Z])(\d+)\]", fill, example).replace("\\n", "\n")


def detector_rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## The detectors", 1)[1].split("\n## ", 1)[0]
    rows = [cells(line) for line in table.splitlines() if line.startswith("| `")]
    assert all(len(r) == 5 for r in rows), [r for r in rows if len(r) != 5]
    return rows


ROWS = detector_rows()


def test_every_detector_has_exactly_one_row() -> None:
    ids = [code(r[0]) for r in ROWS]
    assert sorted(ids) == sorted(DETECTOR_IDS)


def test_every_row_names_a_source() -> None:
    for row in ROWS:
        assert row[2], row[0]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: code(r[0]))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_must_fire_example_fires_its_detector_only(row: list[str], seed: int) -> None:
    line = expand(code(row[3]), seed)
    found = scan(AddedText(line + "\n", (0,), (("example.txt", 1),)))
    assert [v.message.split(":")[0] for v in found] == [code(row[0])]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: code(r[0]))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_must_not_fire_example_fires_nothing(row: list[str], seed: int) -> None:
    line = expand(code(row[4]), seed)
    assert scan(AddedText(line + "\n", (0,), (("example.txt", 1),))) == []


def test_the_published_samples_table_matches_the_code() -> None:
    text = DOC.read_text(encoding="utf-8")
    for sample in PUBLISHED_SAMPLES:
        assert f"| {sample.what} | {sample.source} |" in text
