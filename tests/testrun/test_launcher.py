"""The launcher's own start: what it imports, and its JSON held side by side to `json`."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from scorer.testrun import envelope, launcher


def _modules(code: str) -> set[str]:
    """The modules `python -I -S -c CODE` holds at its end, less those of `python -I -S -c pass`."""
    listing = "; import sys; print(*sorted(sys.modules))"
    argv = [sys.executable, "-I", "-S", "-c"]
    base = subprocess.run([*argv, "pass" + listing], capture_output=True, text=True, check=True)
    got = subprocess.run([*argv, code + listing], capture_output=True, text=True, check=True)
    return set(got.stdout.split()) - set(base.stdout.split())


def test_the_launcher_imports_neither_json_typing_socket_nor_enum() -> None:
    """launcher.py starts at every test run (`python -I -S launcher.py`), so each module it imports
    is paid each time: json brings re, typing brings re and contextlib, socket and signal bring enum."""
    import os

    where = os.path.dirname(envelope.LAUNCHER)
    loaded = _modules(f"import sys; sys.path.insert(0, {where!r}); import launcher")
    assert "launcher" in loaded
    assert not {"json", "re", "typing", "contextlib", "socket", "signal", "enum", "shutil"} & loaded


CONFIGS = [
    {"status_fd": 8, "parent": 0, "network": True, "write_roots": ["/tmp/a", "/t\u00e9st/\nb"], "required": False},
    {"status_fd": 3, "parent": 4242, "network": False, "write_roots": None, "cleanup": ["/x"], "unavailable": []},
    {"n": 1.5, "big": 10**30, "neg": -0.0, "e": 1e-300, "u": "\U0001f600\u202e\x00", "nested": [[{}], []]},
    [],
    "a string",
    None,
]


@pytest.mark.parametrize("value", CONFIGS)
def test_the_launchers_json_writes_and_reads_what_json_does(value: object) -> None:
    assert launcher.dumps(value) == json.dumps(value)
    text = json.dumps(value)
    for spaced in (text, f" \n\t{text}\r\n "):
        assert launcher.loads(spaced) == json.loads(spaced)


@pytest.mark.parametrize(
    "text", ["", " ", "{", '{"a": 1} x', "\ufeff{}", "[1,]", '{"a"}', "'x'", '"\x01"', "[NaN, Infinity, -Infinity]"]
)
def test_the_launchers_json_refuses_and_reads_as_json_does(text: str) -> None:
    def outcome(loads: object) -> tuple[object, ...]:
        try:
            value = loads(text)  # type: ignore[operator]
        except Exception as exc:
            return ("raised", type(exc), str(exc))
        return ("read", json.dumps(value), [math.isnan(v) for v in value if isinstance(v, float)])

    assert outcome(launcher.loads) == outcome(json.loads)


def test_what_json_cannot_write_is_json_s_own_error() -> None:
    for value in ({"a": object()}, {1j: 1}):
        with pytest.raises(TypeError) as ours:
            launcher.dumps(value)
        with pytest.raises(TypeError) as theirs:
            json.dumps(value)
        assert str(ours.value) == str(theirs.value)
