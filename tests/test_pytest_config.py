"""scorer/pytest_config.py: which files Python's `site` or an entry-point scan loads unasked.
importlib.metadata matches metadata directories ignoring case, so the fence does too."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from scorer.pytest_config import loads_implicitly


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
