"""Terminal niceties for the text report: colour, a progress line, the pager."""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Mapping
from typing import TextIO

_ANSI = {"red": "\033[31m", "green": "\033[32m", "yellow": "\033[33m", "bold": "\033[1m", "reset": "\033[0m"}
_LINE_COLOURS = (
    (re.compile(r"^RESULT: PASS \(shadow"), "yellow"),
    (re.compile(r"^RESULT: PASS"), "green"),
    (re.compile(r"^RESULT: FAIL"), "red"),
    (re.compile(r"^(FAIL|WOULD-FAIL) \["), "red"),
    (re.compile(r"^warning: "), "yellow"),
)


def use_colour(choice: str, stream: TextIO, environ: Mapping[str, str]) -> bool:
    """--color auto|always|never; auto means a terminal and no NO_COLOR."""
    if choice == "always":
        return True
    if choice == "never" or environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def colourise(text: str) -> str:
    """Colour whole lines of a text report; the words stay exactly the same."""
    out = []
    for line in text.split("\n"):
        for pattern, colour in _LINE_COLOURS:
            if pattern.match(line):
                line = f"{_ANSI[colour]}{line}{_ANSI['reset']}"
                break
        out.append(line)
    return "\n".join(out)


class Progress:
    """Shows that the required test is running, and for how long, on a terminal only."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, elapsed: float) -> None:
        self.stream.write(f"\r  running required test ... {elapsed:.0f}s ")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def page(text: str, stdout: TextIO, environ: Mapping[str, str]) -> None:
    """Through the user's pager on a terminal; straight out otherwise."""
    pager = environ.get("GIT_PAGER") or environ.get("PAGER") or "less -R"
    if not getattr(stdout, "isatty", lambda: False)() or pager in ("", "cat"):
        stdout.write(text)
        return
    stdout.flush()
    env = {**environ, "LESS": environ.get("LESS", "FRX")}
    try:
        subprocess.run(shlex.split(pager), input=text.encode("utf-8", "replace"), env=env, check=False)
    except OSError:
        stdout.write(text)
