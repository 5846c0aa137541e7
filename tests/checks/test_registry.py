"""The registry lists every check, and every check keeps the one contract (issue 24)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import scorer.checks
from scorer.checks.contract import CheckInput, Findings
from scorer.checks.registry import AFTER_TEST, CHECKS


def _contract_checks() -> set[str]:
    """Every function of scorer.checks that takes a CheckInput and returns Findings."""
    found = set()
    for info in pkgutil.iter_modules(scorer.checks.__path__):
        module = importlib.import_module(f"scorer.checks.{info.name}")
        for name, fn in vars(module).items():
            if not inspect.isfunction(fn) or fn.__module__ != module.__name__ or name.startswith("_"):
                continue
            hints = fn.__annotations__  # strings: every module of the package defers its annotations
            if hints.get("return") in ("Findings", Findings) and {"CheckInput", CheckInput} & set(hints.values()):
                found.add(f"{info.name}.{name}")
    return found


def test_every_check_of_the_one_contract_is_in_the_registry() -> None:
    every = (*CHECKS, *AFTER_TEST)
    listed = {f"{inspect.getmodule(c).__name__.rsplit('.', 1)[1]}.{c.__name__}" for c in every}  # type: ignore[union-attr]
    assert _contract_checks() <= listed


def test_the_registry_lists_each_check_once() -> None:
    names = [c.__name__ for c in CHECKS]
    assert len(names) == len(set(names)) == 17
    after = [c.__name__ for c in AFTER_TEST]  # run once the test said which tests flipped
    assert after == ["check_flipped_literals"] and not set(after) & set(names)


def test_the_checks_load_nothing_of_the_test_run() -> None:
    """checks/ and testrun/ are sibling stages: pytest's configuration, which both read, lives below
    them (scorer/pytest_config.py), so every check loads without the envelope, observer or process."""
    code = "import sys, scorer.checks.registry; print(sorted(m for m in sys.modules if m.startswith('scorer.testrun')))"
    root = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == "[]"
