"""Which file pytest takes as its configuration, read the way pytest chooses it, so the spec pass can
hold pytest's own answer (`config.inipath`, reported by score-diff's plugin) against the fence's
prediction (scorer/testrun/configfile.py, docs/required-test.md).

pytest's order is CONFIG_LOADERS_BY_NAME in _pytest/config/findpaths.py (pytest 9) and "Finding the
rootdir" in https://docs.pytest.org/en/stable/reference/customize.html: in each directory from the
path arguments' common ancestor upward, the first of `CONFIG_ORDER` that configures pytest; failing
all, the first pyproject.toml met, even one without a pytest table; `-c FILE` overrides the search.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Callable, Iterable, Sequence

from ..pytest_config import ini_sections

CONFIG_ORDER = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
# pytest's options that take a value (its argparse parser, before any plugin is loaded: the file is
# chosen before `-p` plugins add theirs, so an unknown option's value is a path argument there too)
_SHORT_VALUED = frozenset("kmrWcpo")
_LONG_VALUED = frozenset(
    (
        "--maxfail",
        "--pdbcls",
        "--capture",
        "--lfnf",
        "--last-failed-no-failures",
        "--durations",
        "--durations-min",
        "--verbosity",
        "--report-chars",
        "--tb",
        "--show-capture",
        "--color",
        "--code-highlight",
        "--pastebin",
        "--junitxml",
        "--junit-xml",
        "--junitprefix",
        "--junit-prefix",
        "--pythonwarnings",
        "--max-warnings",
        "--ignore",
        "--ignore-glob",
        "--deselect",
        "--confcutdir",
        "--import-mode",
        "--doctest-report",
        "--doctest-glob",
        "--config-file",
        "--rootdir",
        "--basetemp",
        "--override-ini",
        "--assert",
        "--log-level",
        "--log-format",
        "--log-date-format",
        "--log-cli-level",
        "--log-cli-format",
        "--log-cli-date-format",
        "--log-file",
        "--log-file-mode",
        "--log-file-level",
        "--log-file-format",
        "--log-file-date-format",
        "--log-auto-indent",
        "--log-disable",
    )
)


class ConfigUnknown(ValueError):
    """pytest's choice cannot be read here: a candidate it would stop on, or a path outside the tree."""


def configures(name: str, data: bytes) -> bool:
    """Whether pytest takes a file called `name` holding `data` as its configuration (findpaths'
    loaders); ConfigUnknown where pytest would stop with a usage error instead."""
    if name in ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"):
        return True  # "always the source of configuration, even if empty"
    if name == "pyproject.toml":
        table = _toml(data).get("tool", {})
        tool = table.get("pytest", {}) if isinstance(table, dict) else {}
        if not isinstance(tool, dict):
            raise ConfigUnknown(name)
        return bool({k for k in tool if k != "ini_options"}) or tool.get("ini_options") is not None
    sections = set(ini_sections(data.decode("utf-8", "replace")))
    if name == "setup.cfg" and "pytest" in sections and "tool:pytest" not in sections:
        raise ConfigUnknown(name)  # pytest fails on a plain [pytest] in setup.cfg
    return ("tool:pytest" if name == "setup.cfg" else "pytest") in sections


def _toml(data: bytes) -> dict[str, object]:
    # Imported here: only a pyproject.toml is read as TOML, and tomllib (with its regular expressions
    # and datetime) would otherwise be imported by every scoring that runs the required test.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the dependency pyproject names for 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigUnknown("pyproject.toml") from exc


def path_arguments(args: Iterable[str]) -> tuple[list[str], str | None]:
    """(the path arguments, the `-c` file or None) among pytest's own `args`, read as its parser
    reads them: `-kEXPR`, `-k EXPR`, `--opt=value`, `--opt value`, clustered flags, `--`."""
    paths: list[str] = []
    config: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            paths += rest
            break
        name, value = _option(arg)
        if name is None:
            paths.append(arg)
        elif name and value is None:
            value = rest.pop(0) if rest else ""
        if name in ("-c", "--config-file") and value is not None:
            config = value
    return paths, config


def _option(arg: str) -> tuple[str | None, str | None]:
    """(option that takes a value, its attached value or None) for `arg`; ("", None) for a flag;
    (None, None) for a path argument."""
    if not arg.startswith("-") or arg == "-":
        return None, None
    if arg.startswith("--"):
        name, eq, value = arg.partition("=")
        return (name, value if eq else None) if name in _LONG_VALUED else ("", None)
    for i, char in enumerate(arg[1:], start=1):
        if char in _SHORT_VALUED:
            return f"-{char}", arg[i + 1 :].removeprefix("=") or None
    return "", None


def configuration_file(args: Iterable[str], read: Callable[[str], bytes | None], is_dir: Callable[[str], bool]) -> str:
    """The repository-relative file pytest takes as its configuration when run at the root with
    `args`, reading each candidate file with `read` (None: no such file); "" for none inside the
    tree (pytest would then look above it). ConfigUnknown where that cannot be told from the tree."""
    paths, config = path_arguments(args)
    if config is not None:
        return _inside(config)
    dirs = sorted({d for d in (_directory(p, read, is_dir) for p in paths) if d is not None})
    ancestor = _common(dirs)
    found = _located([ancestor], read)
    if found is None and len(dirs) > 1:  # pytest's fallback, when no setup.py roots the run
        found = "" if _has_setup_py(ancestor, read) else _located(dirs, read)
    return found or ""


def _inside(path: str) -> str:
    norm = posixpath.normpath(path)
    if posixpath.isabs(norm) or norm == ".." or norm.startswith("../"):
        raise ConfigUnknown(path)
    return "" if norm == "." else norm


def _directory(arg: str, read: Callable[[str], bytes | None], is_dir: Callable[[str], bool]) -> str | None:
    """The directory of an existing path argument (its part before `::`); None if there is none."""
    path = _inside(arg.split("::")[0])
    if is_dir(path):
        return path
    return posixpath.dirname(path) if read(path) is not None else None


def _common(dirs: Sequence[str]) -> str:
    """The deepest directory holding all of `dirs` (the root when none)."""
    if not dirs:
        return ""
    parts = [d.split("/") if d else [] for d in dirs]
    common = []
    for names in zip(*parts, strict=False):
        if len(set(names)) != 1:
            break
        common.append(names[0])
    return "/".join(common)


def _located(starts: Sequence[str], read: Callable[[str], bytes | None]) -> str | None:
    """findpaths.locate_config within the tree: None when nothing, not even a pyproject.toml."""
    pyproject: str | None = None
    for start in starts:
        for base in _upward(start):
            for name in CONFIG_ORDER:
                path = posixpath.join(base, name)
                data = read(path)
                if data is None:
                    continue
                pyproject = pyproject or (path if name == "pyproject.toml" else None)
                if configures(name, data):
                    return path
    return pyproject


def _has_setup_py(start: str, read: Callable[[str], bytes | None]) -> bool:
    return any(read(posixpath.join(base, "setup.py")) is not None for base in _upward(start))


def _upward(start: str) -> list[str]:
    found = [start]
    while found[-1]:
        found.append(posixpath.dirname(found[-1]))
    return found
