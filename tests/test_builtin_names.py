"""The names a manifest may turn off (scorer/builtin_names.py) are exactly the tables' own."""

from __future__ import annotations

from scorer.builtin_names import CHEAT_IDS, DETECTOR_IDS, SENSITIVE_CATEGORIES
from scorer.checks import cheats
from scorer.checks.sensitive import SENSITIVE
from scorer.secrets.detector_table import DETECTORS


def test_detector_ids_are_the_tables() -> None:
    table = {d.id for d in DETECTORS}
    assert len(table) == len(DETECTORS)  # ids are unique
    assert table == DETECTOR_IDS, "add or remove the id in scorer/builtin_names.py as well"


def test_sensitive_categories_are_the_tables() -> None:
    assert {rule.category for rule in SENSITIVE} == SENSITIVE_CATEGORIES, (
        "add or remove the category in scorer/builtin_names.py as well"
    )


def test_cheat_ids_are_the_cheat_checks_codes() -> None:
    assert {cheats.RUNNER, cheats.EQUALITY, cheats.SPECIAL, cheats.STACK} == CHEAT_IDS
    assert not CHEAT_IDS & DETECTOR_IDS
