"""Terminal niceties for the text report: colour, a progress line, the pager."""

from __future__ import annotations

import contextlib
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator, Mapping

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
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
    """Shows, on a terminal only, that the required test is running, which phase it is in (the
    session names it through `enter`: the base's run, the spec pass, the job's tests, the rerun of
    the tests that flipped) and for how long; without a phase, which run it is."""

    SHOW_AFTER_S = 2.0  # a quick run stays silent

    def __init__(self, stream: TextIO, close: bool = False) -> None:
        self.stream, self.close = stream, close  # close: the stream was opened for it (/dev/tty)
        self.shown = False
        self.runs = 0
        self.last = float("inf")
        self.phase: str | None = None

    def enter(self, phase: str) -> None:
        """The runs that follow belong to `phase` ("running the spec pass")."""
        self.phase = phase

    def __call__(self, elapsed: float) -> None:
        if elapsed < self.last:  # the clock started again: the next run of the test
            self.runs += 1
        self.last = elapsed
        if elapsed < self.SHOW_AFTER_S:
            return
        doing = self.phase or f"running the required test (run {self.runs})"
        self.stream.write(f"\r  score-diff: {doing} ... {elapsed:.0f}s ")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 72 + "\r")
            self.stream.flush()
        if self.close:
            self.stream.close()


TTY = "/dev/tty"


def progress_stream(
    stderr: TextIO, environ: Mapping[str, str], opener: Callable[[str], TextIO] | None = None
) -> TextIO | None:
    """Where a person is looking: stderr when it is a terminal; under pre-commit, which captures
    the hook's output until it ends (it sets PRE_COMMIT=1, pre_commit/commands/run.py), the
    controlling terminal itself; None when there is none (CI, a pipe, a machine reading stdout)."""
    if getattr(stderr, "isatty", lambda: False)():
        return stderr
    if environ.get("PRE_COMMIT") != "1":
        return None
    try:
        return (opener or _open_tty)(TTY)
    except OSError:  # no controlling terminal (ENXIO): a commit from a script or an IDE
        return None


@contextlib.contextmanager
def progress_line(
    stderr: TextIO, environ: Mapping[str, str], opener: Callable[[str], TextIO] | None = None
) -> Iterator[Progress | None]:
    """A Progress where `progress_stream` says a person is looking, None where nobody is; on the
    way out its line is cleared and a /dev/tty it opened is closed. Never stdout: that is the
    report's, and `--format json` there is read by a program."""
    stream = progress_stream(stderr, environ, opener)
    progress = Progress(stream, close=stream is not stderr) if stream is not None else None
    try:
        yield progress
    finally:
        if progress is not None:
            progress.done()


def _open_tty(path: str) -> TextIO:
    return open(path, "w", encoding="utf-8", errors="replace")


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
