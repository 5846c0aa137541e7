"""The cheat checks' first pass (and runner_reach's "no shape") kept across scorings
(checks/results_cache.py): the same verdicts cold, warm and without a cache; a forged, corrupt,
foreign or stale entry never trusted; nothing kept that the module's text could be read from."""

from __future__ import annotations

import ast
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer.checks import pyast, results_cache, runner_reach
from scorer.testrun import cache_store
from tests.testing.repo import GitRepo, Outcome

MODULE = """import sys


def requote(uri):
    return uri.replace(" ", "%20")


class Token:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Token) and other.value == self.value
"""
OTHER = "def add(a, b):\n    return a + b\n"
PAIR = ("http://example.com/a b", "http://example.com/a%20b")
TESTS = f"from pkg.mod import requote\n\n\ndef test_requote():\n    assert requote({PAIR[0]!r}) == {PAIR[1]!r}\n"
SPECIAL = f"    if uri == {PAIR[0]!r}:\n        return {PAIR[1]!r}\n"
CASES = {  # what the change writes in pkg/mod.py, and the codes it must get
    "quiet": (MODULE.replace("%20", "%2520"), set()),
    "runner": (
        MODULE.replace("    return uri", '    if "pytest" in sys.modules:\n        return uri\n    return uri'),
        {"test-runner-detected"},
    ),
    "equality": (
        MODULE.replace("isinstance(other, Token) and other.value == self.value", "True"),
        {"constant-equality"},
    ),
    "special": (MODULE.replace("    return uri", SPECIAL + "    return uri"), {"special-cased-input"}),
    "frame-warning": (MODULE + "\n\ndef caller():\n    return sys._getframe(1).f_code.co_name\n", set()),
    "runner-reached": (MODULE + "\nimport _pytest\n", {"test-runner-reached"}),
}


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/mod.py", MODULE)
    repo.write("pkg/other.py", OTHER)
    repo.write("tests/test_mod.py", TESTS)
    repo.commit("base")
    repo.manifest(allowed_paths=["pkg/**", "tests/**"], protected_tests=["tests/**"])
    repo.write("pkg/other.py", OTHER + "\n\ndef sub(a, b):\n    return a - b\n")  # a clean module beside it
    return repo


def _cache(repo: GitRepo) -> Path:
    return repo.root / ".git" / "score-diff" / "cache" / results_cache.KIND


def _entry(repo: GitRepo, check: str) -> Path:
    """The one entry of `check`: every module it keeps, by name."""
    found = [p for p in _cache(repo).glob("*.json") if json.loads(p.read_text())["key"]["check"] == check]
    assert len(found) == 1, found
    return found[0]


Named = list[tuple[bytes, str, str]]


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> Named:
    """(source, spans, name) of each module the entries were asked about."""
    seen: Named = []
    real = results_cache._name

    def recording(source: bytes, spans: str) -> str:
        seen.append((source, spans, name := real(source, spans)))
        return name

    monkeypatch.setattr(results_cache, "_name", recording)
    return seen


def _name(names: Named, check: str, marker: str) -> str:
    """The name `check`'s entry keeps the module holding `marker` by (runner_reach reads it whole)."""
    found = {n for source, spans, n in names if marker.encode() in source and (spans == "every") == (check != "cheats")}
    assert len(found) == 1, found
    return found.pop()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each module was parsed, by its text."""
    count: Counter[str] = Counter()
    real = ast.parse

    def counting(source: Any, *args: Any, **kwargs: Any) -> ast.AST:
        if kwargs.get("mode", "exec") == "exec":
            count[source if isinstance(source, str) else bytes(source).decode()] += 1
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pyast.ast, "parse", counting)
    return count


def _score(repo: GitRepo) -> Outcome:
    """A scoring as a new process makes it: runner_reach's memory of this process let go."""
    runner_reach._SHAPES.clear()
    return repo.score()


def _verdict(repo: GitRepo) -> tuple[int, list[Any], list[str]]:
    out = _score(repo)
    return out.exit_code, out.report["violations"], out.report["warnings"]


@pytest.mark.parametrize("content, codes", CASES.values(), ids=CASES.keys())
def test_cold_warm_and_no_cache_judge_alike(project: GitRepo, content: str, codes: set[str]) -> None:
    project.write("pkg/mod.py", content)
    cold = _verdict(project)
    assert {v["code"] for v in cold[1]} == codes and cold[0] == (1 if codes else 0), cold
    assert _verdict(project) == cold  # warm
    shutil.rmtree(_cache(project))
    _cache(project).write_text("")  # a file where the store's directory goes: nothing can be kept
    assert _verdict(project) == cold
    assert _cache(project).read_text() == ""


def test_a_warm_cache_parses_no_clean_module_again(project: GitRepo, parsed: Counter[str]) -> None:
    project.write("pkg/mod.py", CASES["runner"][0])
    _score(project)
    parsed.clear()
    assert _score(project).codes == {"test-runner-detected"}
    assert [s for s in parsed if "def sub" in s] == [] and [s for s in parsed if "sys.modules" in s], parsed


def test_a_new_code_version_misses(project: GitRepo, parsed: Counter[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _score(project)
    monkeypatch.setitem(results_cache._versions, "", "0" * 64)
    parsed.clear()
    assert _score(project).codes == set()
    assert [s for s in parsed if "def sub" in s], parsed


def test_the_version_is_a_digest_of_the_checks_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = Path(results_cache.__file__).parent
    for name in results_cache._CODE:
        shutil.copy(here / name, tmp_path / name)
    monkeypatch.setattr(results_cache, "__file__", str(tmp_path / "results_cache.py"))
    now = results_cache._digest_code()
    assert now is not None
    with (tmp_path / "cheats.py").open("ab") as fh:
        fh.write(b"\n# a new detector\n")
    assert results_cache._digest_code() not in (None, now)
    (tmp_path / "special_cases.py").unlink()  # no source to digest: keep nothing
    assert results_cache._digest_code() is None
    monkeypatch.setitem(results_cache._versions, "", None)
    assert results_cache.Results(lambda kind: pytest.fail("a store without a version"), "cheats").get("") is None


def test_turning_a_detector_back_on_finds_what_a_warm_cache_saw(project: GitRepo) -> None:
    project.manifest(allowed_paths=["pkg/**"], protected_tests=["tests/**"], disabled_detectors=["constant-equality"])
    project.write("pkg/mod.py", CASES["equality"][0])
    assert _score(project).codes == set()
    project.manifest(allowed_paths=["pkg/**"], protected_tests=["tests/**"])
    assert _score(project).codes == {"constant-equality"}


def test_a_base_test_added_later_finds_the_special_case_a_warm_cache_saw(project: GitRepo) -> None:
    project.git("rm", "-q", "tests/test_mod.py")
    project.commit("no tests yet")
    project.write("pkg/mod.py", CASES["special"][0])
    assert _score(project).codes == set()  # no base test names the pair: a branch is code
    project.write("tests/test_mod.py", TESTS)
    project.commit("the test", "tests/test_mod.py")  # pkg/mod.py's bytes and changed lines stay the same
    assert _score(project).codes == {"special-cased-input"}


def _forged(path: Path, name: str, value: Any = ()) -> None:
    """The entry with module `name`'s findings removed (or made `value`), its digest made to hold."""
    doc = json.loads(path.read_text())
    assert name in doc["value"], doc["value"]
    doc["value"][name] = list(value) if isinstance(value, tuple) else value
    doc["sha256"] = cache_store.digest({k: doc[k] for k in ("format", "key", "value")})
    path.write_text(json.dumps(doc))


def _stale_digest(repo: GitRepo, path: Path, name: str) -> None:
    doc = json.loads(path.read_text())
    assert doc["value"][name]
    doc["value"][name] = []
    path.write_text(json.dumps(doc))


def _group_writable(repo: GitRepo, path: Path, name: str) -> None:
    _forged(path, name)
    path.chmod(0o660)


def _directory_writable(repo: GitRepo, path: Path, name: str) -> None:
    _forged(path, name)
    path.parent.chmod(0o777)


def _foreign(repo: GitRepo, path: Path, name: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    _forged(path, name)
    os.chown(path, 4242, 4242)


def _another_version(repo: GitRepo, path: Path, name: str) -> None:
    """Whole and ours, but stored by another version of the checks: another key."""
    doc = json.loads(path.read_text())
    doc["key"]["version"] = "0" * 64
    path.write_text(json.dumps(doc))
    _forged(path, name)


@pytest.mark.parametrize("forge", [_stale_digest, _group_writable, _directory_writable, _foreign, _another_version])
def test_a_forged_entry_is_not_trusted(
    project: GitRepo, names: Named, forge: Callable[[GitRepo, Path, str], None]
) -> None:
    project.write("pkg/mod.py", CASES["runner"][0])
    assert _score(project).codes == {"test-runner-detected"}
    forge(project, _entry(project, "cheats"), _name(names, "cheats", "sys.modules"))
    out = _score(project)
    assert (out.exit_code, out.codes) == (1, {"test-runner-detected"}), out.text


def test_a_whole_forged_entry_of_ours_is_what_the_forgeries_above_lack(project: GitRepo, names: Named) -> None:
    """The control: the same forgery, whole and ours, hides the module, as a skipped hook would
    (the cache is as trustworthy as .git/ itself; CI starts with none). So each fault above is
    what made its entry ignored."""
    project.write("pkg/mod.py", CASES["runner"][0])
    _score(project)
    _forged(_entry(project, "cheats"), _name(names, "cheats", "sys.modules"))
    assert _score(project).codes == set()


def _truncated(path: Path, name: str) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _garbage(path: Path, name: str) -> None:
    path.write_bytes(b"\xff\x00 not json")


def _not_a_mapping(path: Path, name: str) -> None:
    doc = json.loads(path.read_text())
    doc["value"] = list(doc["value"].values())
    doc["sha256"] = cache_store.digest({k: doc[k] for k in ("format", "key", "value")})
    path.write_text(json.dumps(doc))


def _not_a_list(path: Path, name: str) -> None:
    _forged(path, name, {"code": "constant-equality"})


def _misshapen(path: Path, name: str) -> None:
    _forged(path, name, [{"code": "special-cased-input", "own": ["0" * 64], "group": 5}])


def _unreadable(path: Path, name: str) -> None:
    path.chmod(0)


def _directory(path: Path, name: str) -> None:
    path.unlink()
    path.mkdir()


def _symlink(path: Path, name: str) -> None:
    path.rename(path.with_name("elsewhere"))
    path.symlink_to(path.with_name("elsewhere"))


FAULTS = [_truncated, _garbage, _not_a_mapping, _not_a_list, _misshapen, _unreadable, _directory, _symlink]


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("check", ["cheats", "runner-reach"])
def test_a_broken_entry_is_judged_again_without_an_error(
    project: GitRepo, parsed: Counter[str], names: Named, fault: Callable[[Path, str], None], check: str
) -> None:
    project.write("pkg/mod.py", CASES["runner"][0])
    first = _verdict(project)
    fault(_entry(project, check), _name(names, check, "def sub"))
    parsed.clear()
    assert _verdict(project) == first
    assert [s for s in parsed if "def sub" in s] or (os.geteuid() == 0 and fault is _unreadable), parsed
    parsed.clear()
    assert _verdict(project) == first  # and written whole again
    assert not [s for s in parsed if "def sub" in s] or fault is _directory, parsed


def test_nothing_kept_holds_the_modules_literals(project: GitRepo) -> None:
    secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    table = f"\n\nPRICES = {{{secret!r}: 'http://example.com/p?q=1', 'http://example.com/a b': 'x y z w'}}\n"
    project.write("pkg/mod.py", CASES["special"][0] + table)
    _score(project)
    _score(project)
    kept = b"".join(p.read_bytes() for p in _cache(project).iterdir())
    assert kept and all(text.encode() not in kept for text in (secret, *PAIR, "http://example.com/p?q=1"))
