"""scorer.main's help formatter: the width shutil would give argparse, read without importing shutil."""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import struct
import sys
import termios

import pytest

from scorer import main

WIDTHS = [{"COLUMNS": "100"}, {"COLUMNS": "0"}, {"COLUMNS": "-3"}, {"COLUMNS": "wide"}, {"COLUMNS": ""}, {}]


@pytest.mark.parametrize("environ", WIDTHS)
def test_the_width_is_shutils_without_a_terminal(environ: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with open(os.devnull, "w") as not_a_tty:
        monkeypatch.setattr(sys, "__stdout__", not_a_tty)
        assert main.terminal_columns(os.environ, sys.__stdout__) == shutil.get_terminal_size().columns


@pytest.mark.parametrize("environ", WIDTHS)
def test_the_width_is_shutils_on_a_terminal(environ: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    leader, follower = os.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 57, 0, 0))
        with open(follower, "w", closefd=False) as tty:
            monkeypatch.setattr(sys, "__stdout__", tty)
            assert main.terminal_columns(os.environ, sys.__stdout__) == shutil.get_terminal_size().columns
    finally:
        os.close(leader)
        os.close(follower)


def test_no_stdout_is_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "__stdout__", None)
    assert main.terminal_columns(os.environ, sys.__stdout__) == shutil.get_terminal_size().columns == 80


@pytest.mark.parametrize("columns", ["40", "73", "200"])
def test_help_is_argparses_own(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    p = main.parser("score")
    ours = p.format_help()
    p.formatter_class = argparse.HelpFormatter
    assert ours == p.format_help()
