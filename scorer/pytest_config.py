"""The files that decide how pytest collects and reports tests, read the way pytest reads them.

pytest's configuration is code and data the test run obeys: a conftest.py can rewrite a
failed report as passed, an `addopts` can deselect a test, a `-p` can load a plugin. These
files are part of the fence (the `test-config-changed` check) and the base's versions are
the ones the spec pass runs (docs/required-test.md).

- `pytest.toml`, `.pytest.toml` (pytest 9 reads them first), `conftest.py`, `pytest.ini` and
  `.pytest.ini`, in any directory: the whole file. pytest's own list, in its order of precedence, is
  `CONFIG_LOADERS_BY_NAME` in _pytest/config/findpaths.py (https://docs.pytest.org/customize.html).
- `pyproject.toml`, `tox.ini`, `setup.cfg`, in any directory: only their pytest section
  (`[tool.pytest.ini_options]` / `[tool.pytest]`, `[pytest]`, `[tool:pytest]`); the rest of
  these files configures other tools. pytest takes the first of them that *has* such a
  section, so adding a section where there was none counts as a change.
- `__init__.py` in a directory that holds a protected test: it decides the test modules'
  package names and runs when they are imported.
- what an interpreter or runner loads without being asked (`loads_implicitly`): `sitecustomize` and
  `usercustomize` (`site` imports them from any directory on sys.path, PYTHONPATH included), `*.pth`
  files, and `*.dist-info` / `*.egg-info` metadata, whose entry_points.txt can name a `pytest11`
  plugin pytest autoloads (https://docs.pytest.org/en/stable/how-to/writing_plugins.html); and
  `site` itself, which Python 3.10 does not freeze: a `site.py` (or `site/__init__.py`, a sourceless
  `site.pyc`, an extension `site.*.so`) in a directory on PYTHONPATH replaces it in every Python the
  test starts (3.11 and later import the frozen one first unless `-X frozen_modules=off`).
"""

from __future__ import annotations

import ast
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Mapping

WHOLE_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "conftest.py")
SECTION_FILES = ("pyproject.toml", "tox.ini", "setup.cfg")
_COMMENT = ("#", ";")  # iniconfig's COMMENTCHARS
_PLUGIN_OPTION = re.compile(r"(?:^|\s)-p\s*=?\s*([A-Za-z_][\w.]*)(?![\w.:])")  # `-p name`, `-pname`; not `-p no:name`


def is_whole_file(path: str) -> bool:
    return posixpath.basename(path) in WHOLE_FILES


_SITE_MODULES = ("sitecustomize", "usercustomize")
_METADATA_DIRS = (".dist-info", ".egg-info")
# What the path finder imports as the top-level `site`: importlib.machinery.all_suffixes() and a package.
_MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")
# What every path loads_implicitly accepts contains (site, sitecustomize, usercustomize, .pth, .dist-info,
# .egg-info): most paths have none of them, and four searches of the path rule each out (issue 29).
_IMPLICIT_WORDS = ("site", "customize", ".pth", "-info")


def loads_implicitly(path: str) -> bool:
    """Whether `path` is one that Python's `site` or an entry-point scan loads unasked, wherever it
    lies: a directory only becomes sys.path at run time (PYTHONPATH, pytest's rootdir insertion),
    so no place in the tree is safe. `sitecustomize.py`, a `sitecustomize/` package or a sourceless
    `sitecustomize.pyc` all import the same way. Matched ignoring case: importlib.metadata finds
    `X.DIST-INFO` as it finds `x.dist-info`, and macOS and Windows import `SiteCustomize.py`."""
    lower = path.lower()
    if not any(word in lower for word in _IMPLICIT_WORDS):
        return False
    parts = lower.split("/")
    if parts[-1].endswith(".pth") or _is_site(parts):
        return True
    return any(p.split(".")[0] in _SITE_MODULES or p.endswith(_METADATA_DIRS) for p in parts)


def _is_site(parts: list[str]) -> bool:
    """`site.py`, `site.pyc`, `site.cpython-310-x86_64-linux-gnu.so` or `site/__init__.py`, at any depth
    (any directory may be on PYTHONPATH). A `site/` without `__init__` (mkdocs' output) is only a
    namespace portion, and the standard library's regular `site` wins over it."""
    name = parts[-1]
    if name.split(".")[0] == "__init__" and len(parts) > 1:
        parent = parts[-2]
        return parent == "site" and name.endswith(_MODULE_SUFFIXES)
    return name.split(".")[0] == "site" and "." in name and name.endswith(_MODULE_SUFFIXES)


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
        # Imported here: only a change to pyproject.toml is parsed, and tomllib (with typing) is
        # milliseconds of every scoring's start-up otherwise (issue 29).
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - the dependency pyproject names for 3.10
            import tomli as tomllib
        try:
            parsed = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return ("unparsable", data)
        tool = parsed.get("tool")
        return tool.get("pytest") if isinstance(tool, dict) else None
    return ini_sections(data.decode("utf-8", "replace")) or None


def ini_sections(text: str) -> dict[str, tuple[str, ...]]:
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


def plugin_files(configs: Mapping[str, bytes], files: Iterable[str]) -> set[str]:
    """Among `files`, the modules the configuration in `configs` ({path: bytes} of conftest.py,
    pytest.ini and the section files) loads as plugins: `-p NAME` in an addopts (or anywhere in a
    pytest section), and `pytest_plugins` in a conftest.py; a module is found as NAME's path from
    the repository root or from src/. Plugins installed as packages are not files of the change."""
    names: set[str] = set()
    for path, data in configs.items():
        if posixpath.basename(path) == "conftest.py":
            names |= _conftest_plugins(data)
        else:
            names |= set(_PLUGIN_OPTION.findall(_section_text(path, data)))
    wanted = {
        f"{prefix}{name.replace('.', '/')}{suffix}"
        for name in names
        for prefix in ("", "src/")
        for suffix in (".py", "/__init__.py")
    }
    return wanted & set(files)


def _section_text(path: str, data: bytes) -> str:
    """Every string of the file's pytest section (an unparsable file has none pytest would read)."""
    section = pytest_section(path, data)
    return " ".join(_strings(section)) if isinstance(section, dict) else ""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _conftest_plugins(data: bytes) -> set[str]:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets
        ):
            values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            found |= {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return found
