"""scorer/pytest_config.py: which files Python's `site` or an entry-point scan loads unasked.
importlib.metadata matches metadata directories ignoring case, so the fence does too.

scorer/testrun/pytest_configfile.py: which configuration file pytest takes, side by side with the installed
pytest's own `configfile:` report, over a table of trees."""

from __future__ import annotations

import importlib.metadata
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.pytest_config import loads_implicitly
from scorer.testrun.pytest_configfile import ConfigUnknown, configuration_file, path_arguments
from tests.testing import pytest_config_reference


@pytest.mark.parametrize(
    ("path", "loads"),
    [
        ("src/sitecustomize.py", True),
        ("src/usercustomize.py", True),
        ("src/sitecustomize/__init__.py", True),
        ("src/SiteCustomize.py", True),  # macOS and Windows import it as sitecustomize
        ("src/extra.pth", True),
        ("src/calc-1.0.dist-info/entry_points.txt", True),
        ("src/calc-1.0.DIST-INFO/entry_points.txt", True),
        ("src/calc.Egg-Info/entry_points.txt", True),
        ("src/calc.py", False),
        ("docs/dist-info.md", False),
        ("tests/test_site.py", False),
        # Python 3.10 does not freeze `site`: one on PYTHONPATH replaces it in every Python
        ("site.py", True),
        ("src/site.py", True),
        ("src/calc/site.py", True),  # as sitecustomize: any directory may be put on the path
        ("src/site/__init__.py", True),
        ("src/site.pyc", True),
        ("src/site.cpython-310-x86_64-linux-gnu.so", True),
        ("src/Site.py", True),
        ("site/index.html", False),  # mkdocs' output: a namespace portion, the stdlib's site wins
        ("site/__init__.txt", False),
        ("src/sites.py", False),
        ("src/website.py", False),
        ("src/site_config.py", False),
        ("docs/site.md", False),
    ],
)
def test_files_loaded_unasked(path: str, loads: bool) -> None:
    assert loads_implicitly(path) is loads


def test_importlib_metadata_finds_an_upper_case_dist_info_as_the_fence_assumes(tmp_path: Path) -> None:
    """The authority side by side: the real metadata scan sees `X.DIST-INFO`'s entry points."""
    info = tmp_path / "calc_tools-1.0.DIST-INFO"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: calc-tools\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\ncalc = calc_plugin\n")
    found = list(importlib.metadata.distributions(path=[str(tmp_path)]))
    assert [d.metadata["Name"] for d in found] == ["calc-tools"]
    assert [e.name for e in found[0].entry_points if e.group == "pytest11"] == ["calc"]
    assert loads_implicitly(f"{info.name}/entry_points.txt")


@pytest.mark.parametrize(
    ("name", "replaced", "fires"),
    [
        ("site.py", True, True),
        ("site/__init__.py", True, True),
        ("site/index.html", False, False),
        ("sites.py", False, False),
        ("website.py", False, False),
        # calc.site, not site, while this directory is the entry; the fence fires anyway, as for a
        # deep sitecustomize, because calc/ itself may be put on PYTHONPATH
        ("calc/site.py", False, True),
    ],
)
def test_a_site_module_on_the_path_replaces_site_as_the_fence_assumes(
    tmp_path: Path, name: str, replaced: bool, fires: bool
) -> None:
    """The authority side by side: a Python without a frozen `site` (3.10, or 3.11+ with
    `-X frozen_modules=off`) started with the directory on PYTHONPATH."""
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("print('REPLACED')\n")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(tmp_path)}
    argv = [sys.executable, "-X", "frozen_modules=off", "-c", "pass"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert ("REPLACED" in done.stdout) is replaced, done.stdout + done.stderr
    assert loads_implicitly(name) is fires
    assert fires or not replaced  # never a replacement the fence misses


# -- which configuration file pytest takes, side by side with pytest ------------------------------
TOOL_PYTEST = '[tool.pytest]\nminversion = "8.0"\n'
INI_OPTIONS = "[tool.pytest.ini_options]\naddopts = '-q'\n"
NO_PYTEST = "[project]\nname = 'calc'\n"
# (name, {path: text} under the checkout "repo/" ("../x" lies above it), pytest's arguments)
TREES = [
    ("nothing", {}, ["tests"]),
    ("pytest.toml first", {"pytest.toml": "[pytest]\n", ".pytest.toml": "", "pytest.ini": "[pytest]\n"}, []),
    (".pytest.toml before pytest.ini", {".pytest.toml": "[pytest]\n", "pytest.ini": "[pytest]\n"}, []),
    ("empty pytest.ini still counts", {"pytest.ini": "", "tox.ini": "[pytest]\n"}, []),
    (".pytest.ini", {".pytest.ini": "[pytest]\n", "pyproject.toml": TOOL_PYTEST}, []),
    ("pyproject [tool.pytest]", {"pyproject.toml": TOOL_PYTEST, "tox.ini": "[pytest]\n"}, []),
    ("pyproject ini_options", {"pyproject.toml": INI_OPTIONS, "setup.cfg": "[tool:pytest]\n"}, []),
    ("pyproject without a table yields", {"pyproject.toml": NO_PYTEST, "tox.ini": "[pytest]\n"}, []),
    ("pyproject without a table, alone", {"pyproject.toml": NO_PYTEST}, ["tests"]),
    ("pyproject empty [tool.pytest] yields", {"pyproject.toml": "[tool.pytest]\n", "setup.cfg": "[tool:pytest]\n"}, []),
    ("tox.ini without [pytest] yields", {"tox.ini": "[tox]\n", "setup.cfg": "[tool:pytest]\n"}, []),
    ("tox.ini [pytest]", {"tox.ini": "[tox]\n[pytest]\naddopts = -q\n"}, []),
    ("setup.cfg [tool:pytest]", {"setup.cfg": "[metadata]\n[tool:pytest]\n"}, []),
    ("subdirectory wins over root", {"pytest.ini": "[pytest]\n", "tests/tox.ini": "[pytest]\n"}, ["tests"]),
    ("subdirectory of a file argument", {"tests/pytest.ini": "", "pytest.ini": ""}, ["tests/test_it.py::test_x"]),
    ("not below the arguments", {"other/pytest.ini": "", "setup.cfg": "[tool:pytest]\n"}, ["tests"]),
    ("common ancestor of two arguments", {"tests/pytest.ini": "", "tox.ini": "[pytest]\n"}, ["tests", "more"]),
    ("fallback to each argument", {"tests/pytest.ini": ""}, ["tests", "more"]),
    ("option values are not paths", {"tests/pytest.ini": "", "tox.ini": "[pytest]\n"}, ["-k", "tests", "more"]),
    ("pyproject without table near, ini above", {"tests/pyproject.toml": NO_PYTEST, "pytest.ini": ""}, ["tests"]),
    ("-c names the file", {"ci/custom.ini": "[pytest]\n", "pytest.ini": ""}, ["-c", "ci/custom.ini", "tests"]),
    ("--config-file=", {"ci/custom.toml": "[pytest]\n", "pytest.ini": ""}, ["--config-file=ci/custom.toml"]),
    ("rootdir above the checkout", {"../pytest.ini": "[pytest]\n"}, ["tests"]),
    ("pyproject in, ini above", {"pyproject.toml": NO_PYTEST, "../tox.ini": "[pytest]\n"}, []),
]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "box" / "repo"
    for folder in ("tests", "more", "other", "ci"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "tests" / "test_it.py").write_text("def test_x():\n    pass\n")
    (root / "more" / "test_more.py").write_text("def test_y():\n    pass\n")
    for path, text in files.items():
        (root / path).resolve().parent.mkdir(parents=True, exist_ok=True)
        (root / path).resolve().write_text(text)
    return root


def _pytest_says(root: Path, args: list[str]) -> str:
    """The `configfile:` pytest's header reports (relative to `root`), "" when it names none (`-v`
    outweighs an `addopts = -q`, which would hide the header)."""
    argv = [sys.executable, "-m", "pytest", "--co", "-v", "-p", "no:cacheprovider", "-p", "no:randomly", *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    out = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env, check=False).stdout
    rootdir = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("rootdir: "))
    named = [
        line.split(": ", 1)[1].split(" (WARNING")[0] for line in out.splitlines() if line.startswith("configfile: ")
    ]
    return os.path.relpath(Path(rootdir, named[0]), root).replace(os.sep, "/") if named else ""


def _predicted(root: Path, args: list[str]) -> str:
    def read(path: str) -> bytes | None:
        full = root / path
        return full.read_bytes() if full.is_file() else None

    return configuration_file(args, read, lambda path: (root / path).is_dir())


@pytest.mark.parametrize(("files", "args"), [t[1:] for t in TREES], ids=[t[0] for t in TREES])
def test_the_predicted_configuration_file_is_the_one_pytest_reports(
    tmp_path: Path, files: dict[str, str], args: list[str]
) -> None:
    root = _tree(tmp_path, files)
    said = _pytest_says(root, args)
    if said.startswith("../"):  # above the checkout: the fence predicts none there, so the two differ
        assert _predicted(root, args) != said
    else:
        assert _predicted(root, args) == said


@pytest.mark.parametrize(
    ("files", "args"),
    [
        ({"pyproject.toml": "[tool.pytest\n"}, []),  # pytest stops on it: no prediction
        ({"setup.cfg": "[pytest]\n"}, []),  # a plain [pytest] in setup.cfg is an error in pytest
        ({}, ["/abs/tests"]),
        ({}, ["-c", "../outside.ini"]),
    ],
)
def test_what_cannot_be_told_from_the_tree_is_unknown(tmp_path: Path, files: dict[str, str], args: list[str]) -> None:
    with pytest.raises(ConfigUnknown):
        _predicted(_tree(tmp_path, files), args)


@pytest.mark.parametrize(
    ("args", "paths", "config"),
    [
        (["-q", "tests"], ["tests"], None),
        (["-ktests", "more"], ["more"], None),
        (["-qk", "tests", "more"], ["more"], None),
        (["-p", "no:x", "--tb=short", "--rootdir", "r", "a"], ["a"], None),
        (["--cov", "src", "a"], ["src", "a"], None),  # a plugin's option is unknown when pytest picks the file
        (["-cfile.ini", "--", "-k"], ["-k"], "file.ini"),
    ],
)
def test_path_arguments_read_as_pytest_reads_them(args: list[str], paths: list[str], config: str | None) -> None:
    assert path_arguments(args) == (paths, config)


_PATH_PIECES = ["site", "Site", "SITE", "sitecustomize", "UserCustomize", "customize", "user", ".pth", ".PTH", "pth"]
_PATH_PIECES += [".dist-info", ".EGG-INFO", "-info", "info", "__init__", ".py", ".pyc", ".so", ".pyd", ".pyw", ".txt"]
_PATH_PIECES += ["/", "/", ".", "x", "-", "_", "\u0130", "\u212a", "\u017f", "S\u0130TE", "s\u0131te"]


def test_loads_implicitly_answers_as_before_its_prefilter() -> None:
    """Held to the copy from before issue 29's four-search prefilter, on random paths made of the
    words it looks for, in every casing, beside dotted I, Kelvin sign and long s."""
    rng = random.Random(29)
    for _ in range(20000):
        path = "".join(rng.choice(_PATH_PIECES) for _ in range(rng.randrange(1, 9)))
        assert loads_implicitly(path) is pytest_config_reference.loads_implicitly(path), path
