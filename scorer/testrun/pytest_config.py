"""The files that decide how pytest collects and reports tests, read the way pytest reads them.

pytest's configuration is code and data the test run obeys: a conftest.py can rewrite a
failed report as passed, an `addopts` can deselect a test, a `-p` can load a plugin. These
files are part of the fence (the `test-config-changed` check) and the base's versions are
the ones the spec pass runs (docs/required-test.md).

- `conftest.py`, `pytest.ini` and `.pytest.ini`, in any directory: the whole file.
- `pyproject.toml`, `tox.ini`, `setup.cfg`, in any directory: only their pytest section
  (`[tool.pytest.ini_options]` / `[tool.pytest]`, `[pytest]`, `[tool:pytest]`); the rest of
  these files configures other tools. pytest takes the first of them that *has* such a
  section, so adding a section where there was none counts as a change.
- `__init__.py` in a directory that holds a protected test: it decides the test modules'
  package names and runs when they are imported.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Callable, Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the dependency pyproject names for 3.10
    import tomli as tomllib

WHOLE_FILES = ("conftest.py", "pytest.ini", ".pytest.ini")
SECTION_FILES = ("pyproject.toml", "tox.ini", "setup.cfg")
_COMMENT = ("#", ";")  # iniconfig's COMMENTCHARS


def is_whole_file(path: str) -> bool:
    return posixpath.basename(path) in WHOLE_FILES


def has_sections(path: str) -> bool:
    return posixpath.basename(path) in SECTION_FILES


def package_markers(tests: Iterable[str]) -> set[str]:
    """The `__init__.py` beside each of `tests` (whether or not it exists)."""
    return {posixpath.join(posixpath.dirname(t), "__init__.py") for t in tests if not t.endswith("/__init__.py")}


def pytest_section(path: str, data: bytes | None) -> object:
    """What pytest reads from `path`'s pytest section, comparable with ==; None when there is none.
    A file pytest could not parse is compared by its bytes (pytest would stop on it anyway)."""
    if data is None:
        return None
    if posixpath.basename(path) == "pyproject.toml":
        try:
            parsed = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return ("unparsable", data)
        tool = parsed.get("tool")
        return tool.get("pytest") if isinstance(tool, dict) else None
    return _ini_sections(data.decode("utf-8", "replace")) or None


def _ini_sections(text: str) -> dict[str, tuple[str, ...]]:
    """{section name: its raw lines} for every section whose name mentions pytest, split into
    sections as iniconfig (pytest's own ini reader) does: a header is a line that starts with `[`
    and, comments cut off, ends with `]`. Raw lines, so any edit of those sections counts."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("["):
            header = line
            for c in _COMMENT:
                header = header.split(c)[0].rstrip()
            if header.endswith("]"):
                name = header[1:-1]
                current = found.setdefault(name, []) if "pytest" in name.lower() else None
                continue
        if current is not None:
            current.append(line.rstrip())
    return {name: tuple(lines) for name, lines in found.items()}


def config_changed(path: str, old: bytes | None, new: bytes | None) -> bool:
    """Whether pytest would read a different configuration from `path` (old/new None: absent)."""
    if old == new:
        return False
    if has_sections(path):
        return pytest_section(path, old) != pytest_section(path, new)
    return True


def fenced_paths(
    files: Iterable[str], protected_test: Callable[[str], bool], granted: Callable[[str], bool]
) -> set[str]:
    """Among `files` (both sides' listings), those whose every change matters: protected tests,
    conftest.py / pytest.ini anywhere, and `__init__.py` beside a protected test; a manifest grant
    (`allowed_test_config`) takes a configuration file out, never a protected test that
    configures nothing."""
    files = set(files)
    markers = package_markers(f for f in files if protected_test(f) and f.endswith(".py"))
    config = {f for f in files if is_whole_file(f) or f in markers}
    granted_config = {f for f in config if granted(f)}
    return {f for f in files if protected_test(f) or f in config} - granted_config
