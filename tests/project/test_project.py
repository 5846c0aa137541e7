"""Tests about the project itself: docs, schemas, hooks and the installed wheel agree."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml

from scorer import __version__
from scorer.codes import CODES
from scorer.manifest.load import load_manifest, schema_text
from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CODES_DOC = (ROOT / "docs/codes.md").read_text(encoding="utf-8")
MANIFEST_DOC = (ROOT / "docs/manifest.md").read_text(encoding="utf-8")


def test_example_manifest_validates_against_the_schema():
    schema = json.loads((ROOT / "schemas/job_manifest.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(json.loads((ROOT / "job_manifest.example.json").read_text()))
    assert load_manifest(ROOT / "job_manifest.example.json").job_id == "fix-discount-2026-09-17"


def test_example_manifest_shows_every_field():
    schema = json.loads((ROOT / "schemas/job_manifest.schema.json").read_text())
    example = json.loads((ROOT / "job_manifest.example.json").read_text())
    assert set(schema["properties"]) == set(example)


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_violation_code_has_a_section_with_a_stable_anchor(code):
    """docs/codes.md#code-CODE is SARIF's helpUri; the README's table links every code there."""
    assert f'<a id="code-{code}"></a>\n### `{code}`\n' in CODES_DOC, "give the code a section in docs/codes.md"
    assert f"[`{code}`](docs/codes.md#code-{code})" in README, "link the code from the README's table of checks"


def test_codes_doc_documents_no_code_the_program_lacks():
    assert set(re.findall(r'<a id="code-([a-z-]+)"></a>', CODES_DOC)) == set(CODES)


def test_every_hook_id_is_documented():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["score-diff", "score-diff-commit-msg"]
    for hook in hooks:
        assert f"id: {hook['id']}" in README
        assert hook["language"] == "python" and hook["always_run"] is True


def test_every_manifest_key_is_documented():
    schema = json.loads((ROOT / "schemas/job_manifest.schema.json").read_text())
    for key in schema["properties"]:
        if key != "$schema":
            assert f"| `{key}` |" in MANIFEST_DOC, key


def test_readme_commands_are_the_ones_ci_runs():
    assert "pip install . && score-diff demo" in README
    command = "python -m pip install -e '.[test]' && python -m pytest"
    assert command in README
    assert command.replace("python -m pip install", "python -m pip install -q") in (ROOT / ".ci/run").read_text()


def test_json_report_validates_against_its_schema(committed: GitRepo):
    committed.write("allowed/a.py", "one\ntwo\nthree\nfour\n")
    committed.write("stray.txt", "eval(x)\n")
    out = committed.score()
    schema = json.loads(schema_text("report.schema.json"))
    jsonschema.Draft202012Validator(schema).validate(out.report)
    assert out.report["result"] == "FAIL"


def test_schemas_are_package_data_and_the_example_points_at_them():
    for name in ("job_manifest.schema.json", "report.schema.json"):
        assert json.loads(schema_text(name))["$schema"].startswith("https://json-schema.org/")
    example = json.loads((ROOT / "job_manifest.example.json").read_text(encoding="utf-8"))
    assert (ROOT / example["$schema"]).resolve() == (ROOT / "schemas/job_manifest.schema.json").resolve()


@pytest.mark.slow
def test_installed_wheel_finds_its_schemas_and_scores(tmp_path, committed: GitRepo):
    """Built and installed the way users get it, run from outside the source tree."""
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = dist.glob("score_diff-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "scorer/schemas/job_manifest.schema.json" in names
    assert "scorer/schemas/report.schema.json" in names
    assert not any(name.startswith("schemas/") for name in names)
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    committed.write("allowed/a.py", "changed\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "scorer",
            "--repo",
            str(committed.root),
            "--manifest",
            str(committed.manifest_path),
            "--skip-test",
            "--format",
            "json",
        ],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["result"] == "PASS"
    assert report["score_diff_version"] == __version__
    import_path = subprocess.run(
        [sys.executable, "-c", "import scorer; print(scorer.__file__)"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
    ).stdout
    assert import_path.startswith(str(site))


def test_version_is_reported():
    out = subprocess.run([sys.executable, "-m", "scorer", "--version"], capture_output=True, text=True)
    assert re.fullmatch(rf"score-diff {re.escape(__version__)}\n", out.stdout)


def test_demo_walkthrough_behaves_as_the_readme_says(capsys):
    """`score-diff demo`: empty tree FAIL, decoy FAIL, fix PASS, hook blocks the decoy and allows the fix."""
    from scorer import main as cli

    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "FAIL [empty-diff]" in out
    assert "FAIL [forbidden-path] src/legacy_pricing.py" in out
    assert "FAIL [forbidden-token] src/legacy_pricing.py:9" in out
    assert out.count("RESULT: PASS\n") == 2  # the fix, by hand and in the hook
    assert "FAIL [test-failed]" in out  # the module that phones home, refused inside the jail
    assert re.search(r"the demo's listener on 127\.0\.0\.1:\d+ heard nothing", out)
    assert "(commit blocked: as expected)" in out and "(commit allowed: as expected)" in out
    assert out.rstrip().endswith("demo finished: every step behaved as expected")


def test_demo_without_a_network_namespace_skips_the_phone_home_step_and_still_finishes(capsys, monkeypatch):
    """Where the kernel gives no network namespace (Ubuntu 24.04's AppArmor default), the phone-home
    step would reach the demo's listener: the demo says why it skips it, never lets it connect."""
    from scorer import main as cli
    from scorer.testrun import envelope

    monkeypatch.setattr(envelope, "UNAVAILABLE", ("namespaces",))
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "(skipped: this machine gives the test no network namespace (" in out
    assert "heard nothing" not in out and "accepted a connection" not in out
    assert out.count("RESULT: PASS\n") == 2
    assert out.rstrip().endswith("demo finished: every step behaved as expected")
