"""The manifest loader: what loads, what is refused and why, and how entries are normalised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from scorer.errors import ManifestError
from scorer.manifest.load import DEFAULT_TEST_TIMEOUT_S, SCHEMA_NAME, load_manifest, parse_manifest, schema_text
from tests.testing.repo import PASSING_TEST, GitRepo, run_cli

ROOT = Path(__file__).resolve().parents[2]

# Exactly as written in the issue: it must load and work.
ISSUE_EXAMPLE = """{
  "job_id": "fix-discount-2026-09-17",
  "allowed_paths": ["src/pricing.py", "tests/test_pricing.py"],
  "forbidden_globs": ["**/.env", "**/*.pem", "**/secrets.*", "src/legacy_pricing.py"],
  "max_files_changed": 2,
  "max_hunk_lines": 40,
  "required_test": ["python", "-m", "pytest", "tests/test_pricing.py", "-q"],
  "forbidden_substrings": ["eval(", "exec(", "subprocess", "os.system", "pickle"]
}
"""

MINIMAL: dict[str, Any] = {"job_id": "j", "allowed_paths": ["src/a.py"], "required_test": ["true"]}


def parse(**fields: Any) -> Any:
    data = {**MINIMAL, **fields}
    return parse_manifest(json.dumps(data).encode(), "m.json")


def refused(raw: bytes | dict[str, Any]) -> str:
    """The ManifestError message for a manifest that must not load."""
    payload = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
    with pytest.raises(ManifestError) as info:
        parse_manifest(payload, "m.json")
    return str(info.value)


def test_issue_example_loads_exactly_as_written(tmp_path: Path) -> None:
    path = tmp_path / "job_manifest.json"
    path.write_text(ISSUE_EXAMPLE, encoding="utf-8")
    m = load_manifest(path)
    assert m.job_id == "fix-discount-2026-09-17"
    assert m.allowed_paths == ("src/pricing.py", "tests/test_pricing.py")
    assert m.forbidden_globs == ("**/.env", "**/*.pem", "**/secrets.*", "src/legacy_pricing.py")
    assert (m.max_files_changed, m.max_hunk_lines) == (2, 40)
    assert m.max_changed_lines is None and m.max_file_bytes is None
    assert m.required_test == ("python", "-m", "pytest", "tests/test_pricing.py", "-q")
    assert m.forbidden_substrings == ("eval(", "exec(", "subprocess", "os.system", "pickle")
    assert m.test_timeout_s == DEFAULT_TEST_TIMEOUT_S
    assert (m.allow_binary, m.allow_symlinks, m.allow_submodules) == (False, False, False)
    assert m.warnings == ()  # every forbidden glob there already says **/ or has a '/'


def test_example_manifest_validates_against_schema() -> None:
    raw = (ROOT / "job_manifest.example.json").read_bytes()
    schema = json.loads(schema_text(SCHEMA_NAME))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(json.loads(raw))
    m = load_manifest(ROOT / "job_manifest.example.json")
    assert m.job_id and m.allowed_paths and m.required_test


def test_example_manifest_shows_every_schema_field() -> None:
    schema = json.loads(schema_text(SCHEMA_NAME))
    example = json.loads((ROOT / "job_manifest.example.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]) - set(example) == set()


def test_every_schema_field_has_a_description() -> None:
    schema = json.loads(schema_text(SCHEMA_NAME))
    assert [k for k, v in schema["properties"].items() if not v.get("description")] == []


def test_unknown_key_is_named_with_a_suggestion() -> None:
    message = refused({**MINIMAL, "max_file_changed": 2})
    assert "'max_file_changed'" in message
    assert "did you mean 'max_files_changed'" in message


def test_several_unknown_keys_are_all_named() -> None:
    message = refused({**MINIMAL, "max_hunk_line": 1, "allowed_path": ["x"]})
    assert "'max_hunk_line'" in message and "'allowed_path'" in message


@pytest.mark.parametrize(
    ("fields", "key"),
    [
        ({"max_files_changed": "2"}, "max_files_changed"),
        ({"max_files_changed": 1.5}, "max_files_changed"),
        ({"max_files_changed": -1}, "max_files_changed"),
        ({"max_files_changed": True}, "max_files_changed"),  # a bool is not an integer here
        ({"max_hunk_lines": None}, "max_hunk_lines"),
        ({"max_changed_lines": "many"}, "max_changed_lines"),
        ({"max_file_bytes": [1]}, "max_file_bytes"),
        ({"allowed_paths": "src/a.py"}, "allowed_paths"),
        ({"allowed_paths": [1]}, "allowed_paths"),
        ({"allowed_paths": [""]}, "allowed_paths"),
        ({"forbidden_globs": "*.pem"}, "forbidden_globs"),
        ({"required_test": "pytest -q"}, "required_test"),
        ({"required_test": []}, "required_test"),
        ({"required_test": ["python", 3]}, "required_test"),
        ({"forbidden_substrings": [""]}, "forbidden_substrings"),  # "" would match every line
        ({"forbidden_substrings": "eval("}, "forbidden_substrings"),
        ({"forbidden_patterns": [""]}, "forbidden_patterns"),
        ({"allow_binary": "yes"}, "allow_binary"),
        ({"allow_symlinks": 1}, "allow_symlinks"),
        ({"allow_submodules": None}, "allow_submodules"),
        ({"test_timeout_s": 0}, "test_timeout_s"),
        ({"test_timeout_s": -5}, "test_timeout_s"),
        ({"test_timeout_s": "10"}, "test_timeout_s"),
        ({"test_env": ["NOT-A-NAME"]}, "test_env"),
        ({"test_env": "PYTHONPATH"}, "test_env"),
        ({"job_id": ""}, "job_id"),
        ({"job_id": 7}, "job_id"),
        ({"description": ["a"]}, "description"),
    ],
)
def test_wrong_types_name_the_key(fields: dict[str, Any], key: str) -> None:
    assert key in refused({**MINIMAL, **fields})


@pytest.mark.parametrize("missing", ["job_id", "allowed_paths", "required_test"])
def test_required_keys(missing: str) -> None:
    data = {k: v for k, v in MINIMAL.items() if k != missing}
    assert missing in refused(data)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b"[]", "is not of type 'object'"),
        (b"\xff\xfe{}", "not valid JSON"),
        (b'{"job_id": "j", "job_id": "k", "allowed_paths": ["a"], "required_test": ["t"]}', "'job_id' appears twice"),
        (
            b'{"job_id": "j", "allowed_paths": ["a"], "allowed_paths": ["b"], "required_test": ["t"]}',
            "'allowed_paths' appears twice",
        ),
        # NaN and Infinity are not JSON; NaN would slip past every numeric bound
        (b'{"job_id": "j", "allowed_paths": ["a"], "required_test": ["t"], "test_timeout_s": NaN}', "NaN"),
        (b'{"job_id": "j", "allowed_paths": ["a"], "required_test": ["t"], "max_hunk_lines": Infinity}', "Infinity"),
    ],
)
def test_refused_documents(raw: bytes, words: str) -> None:
    assert words in refused(raw)


def test_utf8_bom_is_accepted() -> None:
    assert parse_manifest(b"\xef\xbb\xbf" + json.dumps(MINIMAL).encode(), "m").job_id == "j"


@pytest.mark.parametrize(
    ("key", "entry", "words"),
    [
        ("allowed_paths", "/etc/passwd", "absolute path"),
        ("allowed_paths", "C:\\src\\a.py", "absolute path"),
        ("allowed_paths", "../outside.py", "'..' segment"),
        ("allowed_paths", "src/../../x", "'..' segment"),
        ("allowed_paths", "!src/a.py", "negation"),
        ("allowed_paths", "./", "names no path"),
        ("forbidden_globs", "/abs/*.pem", "absolute path"),
        ("forbidden_globs", "a/../b", "'..' segment"),
        ("forbidden_globs", "!keep.pem", "negation"),
        ("forbidden_globs", "[z-a].pem", "not a valid glob"),
        ("forbidden_globs", "a**/b", "not a whole segment"),
        ("forbidden_globs", "x.pem ", "ends with a space"),
        ("sensitive_globs", "/etc/*", "absolute path"),
    ],
)
def test_bad_path_entries_name_key_index_and_problem(key: str, entry: str, words: str) -> None:
    message = refused({**MINIMAL, key: ["ok.py", entry]})
    assert f"{key}[1]" in message
    assert words in message


def test_empty_allowed_paths_is_refused() -> None:
    assert "allowed_paths" in refused({**MINIMAL, "allowed_paths": []})


@pytest.mark.parametrize(
    ("pattern", "ok"),
    [
        (r"^\s*import\s+ctypes\b", True),
        (r"os\.(system|popen)\(", True),
        ("(unclosed", False),
        ("[z-a]", False),
        ("*eval", False),
    ],
)
def test_forbidden_patterns_must_compile(pattern: str, ok: bool) -> None:
    if ok:
        assert parse(forbidden_patterns=[pattern]).forbidden_patterns == (pattern,)
    else:
        message = refused({**MINIMAL, "forbidden_patterns": ["fine", pattern]})
        assert "forbidden_patterns[1]" in message and "not a valid regular expression" in message


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("./a", "a"),
        ("a//b", "a/b"),
        ("a\\b", "a/b"),
        ("src\\sub\\x.py", "src/sub/x.py"),
        ("./src/./x.py", "src/x.py"),
        ("build//", "build/"),
    ],
)
def test_entries_are_normalised(raw: str, clean: str) -> None:
    m = parse(allowed_paths=[raw], forbidden_globs=[raw])
    assert m.allowed_paths == (clean,)
    assert m.forbidden_globs == (clean,)


@pytest.mark.parametrize(
    ("forbidden", "warns"),
    [
        (["*.pem"], ["*.pem"]),
        (["**/*.pem"], []),
        (["secrets.*", "**/.env", "certs/*.key"], ["secrets.*"]),
    ],
)
def test_root_only_forbidden_glob_warns_but_loads(forbidden: list[str], warns: list[str]) -> None:
    m = parse(forbidden_globs=forbidden)
    assert len(m.warnings) == len(warns)
    for entry, warning in zip(warns, m.warnings, strict=True):
        assert f"'{entry}'" in warning and f"'**/{entry}'" in warning


def test_allowed_paths_never_warn() -> None:
    assert parse(allowed_paths=["setup.py", "*.py"]).warnings == ()


def test_optional_fields_load_with_their_types() -> None:
    m = parse(
        test_timeout_s=5,
        test_env=["PYTHONPATH"],
        forbidden_patterns=["x+"],
        allow_binary=True,
        max_changed_lines=10,
        max_file_bytes=100,
        description="d",
    )
    assert m.test_timeout_s == 5.0 and isinstance(m.test_timeout_s, float)
    assert m.test_env == ("PYTHONPATH",)
    assert m.allow_binary is True
    assert (m.max_changed_lines, m.max_file_bytes) == (10, 100)


def test_zero_limits_are_limits_not_absent() -> None:
    m = parse(max_files_changed=0, max_hunk_lines=0)
    assert (m.max_files_changed, m.max_hunk_lines) == (0, 0)


def test_sha256_binds_to_the_bytes() -> None:
    a = parse_manifest(json.dumps(MINIMAL).encode(), "m")
    b = parse_manifest(json.dumps(MINIMAL, indent=1).encode(), "m")
    assert a.sha256 != b.sha256 and len(a.sha256) == 64


def test_load_manifest_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="cannot read manifest"):
        load_manifest(tmp_path / "nope.json")


# --- through the CLI -----------------------------------------------------------------------


def test_invalid_manifest_via_cli_exits_2(committed: GitRepo) -> None:
    committed.write("allowed/a.py", "changed\n")
    committed.manifest(max_file_changed=2)
    out = committed.score()
    assert out.exit_code == 2
    assert out.codes == {"manifest-invalid"}
    assert out.report["result"] == "FAIL" and out.report["exit_code"] == 2
    assert "max_files_changed" in out.report["violations"][0]["message"]
    assert out.last_line == "RESULT: FAIL (could not score: manifest-invalid)"


def test_missing_manifest_via_cli_exits_2(committed: GitRepo) -> None:
    committed.write("allowed/a.py", "changed\n")
    out = committed.score(manifest=committed.scratch / "absent.json")
    assert out.exit_code == 2
    assert out.codes == {"manifest-invalid"}
    assert out.last_line == "RESULT: FAIL (could not score: manifest-invalid)"


def test_default_manifest_is_job_manifest_json_at_the_root(committed: GitRepo, monkeypatch) -> None:
    """No --manifest: $SCORE_DIFF_MANIFEST, then job_manifest.json at the root (absent here: exit 2)."""
    committed.write("allowed/a.py", "changed\n")
    code, text = run_cli(["--repo", str(committed.root), "--skip-test"])
    assert code == 2
    assert text.splitlines()[-1] == "RESULT: FAIL (could not score: manifest-invalid)"
    # $SCORE_DIFF_MANIFEST may name a manifest committed in the repository (docs/manifest.md)
    committed.write_manifest(committed.root / "jobs/fix.json", allowed_paths=["allowed/**", "jobs/**"])
    committed.commit("the job's manifest", "jobs/fix.json")
    monkeypatch.setenv("SCORE_DIFF_MANIFEST", str(committed.root / "jobs/fix.json"))
    code, text = run_cli(["--repo", str(committed.root), "--skip-test"])
    assert (code, text.splitlines()[-1]) == (0, "RESULT: PASS (with test skipped)")


def test_unreadable_required_test_type_is_not_a_pass(committed: GitRepo) -> None:
    committed.write("allowed/a.py", "changed\n")
    committed.manifest(required_test=[])
    out = committed.score()
    assert (out.exit_code, out.codes) == (2, {"manifest-invalid"})


def test_warning_for_root_only_glob_is_printed(committed: GitRepo) -> None:
    committed.write("allowed/a.py", "changed\n")
    committed.manifest(forbidden_globs=["*.pem"], required_test=PASSING_TEST)
    out = committed.score()
    assert out.exit_code == 0
    assert any("'**/*.pem'" in w for w in out.report["warnings"])
    assert "warning: forbidden_globs entry '*.pem'" in out.text
