"""The manifest validator (scorer/manifest/schema.py) against jsonschema, the reference, side by side.

Every manifest the project ships or shows, the loader's own table of bad manifests, and a few
thousand generated ones (valid and not) are validated by both; they must report the same
errors, in the same order, with the same messages, so the user's message is jsonschema's.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from scorer.manifest.load import SCHEMA_NAME, schema_message, schema_text
from scorer.manifest.schema import SchemaNotUnderstood, Validator
from scorer.setup.detect import starter_manifest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(schema_text(SCHEMA_NAME))
REFERENCE = jsonschema.Draft202012Validator(SCHEMA)
OURS = Validator(SCHEMA)
MINIMAL = {"job_id": "j", "allowed_paths": ["a.py"], "required_test": ["true"]}
FENCE = re.compile(r"^( *)(`{3,})json[^\n]*\n(.*?)^\1\2 *$", re.M | re.S)


def reference_errors(data: Any) -> list[tuple[tuple[Any, ...], str, str]]:
    return [(tuple(e.absolute_path), str(e.validator), e.message) for e in REFERENCE.iter_errors(data)]


def our_errors(data: Any) -> list[tuple[tuple[Any, ...], str, str]]:
    return [(e.path, e.keyword, e.message) for e in OURS.errors(data)]


def agree(data: Any) -> None:
    assert our_errors(data) == reference_errors(data), data
    known = list(SCHEMA["properties"])
    ours = sorted(OURS.errors(data), key=lambda e: list(e.path))
    theirs = sorted(REFERENCE.iter_errors(data), key=lambda e: list(e.absolute_path))
    assert [schema_message(e, known) for e in ours] == [_their_message(e, known) for e in theirs]


def _their_message(error: Any, known: list[str]) -> str:
    from scorer.manifest.schema import SchemaError

    return schema_message(
        SchemaError(tuple(error.absolute_path), str(error.validator), error.message, error.instance, error.schema),
        known,
    )


def shown_manifests() -> list[Any]:
    """The example manifest, every JSON block of the docs made whole, and the starter `init` writes."""
    found: list[Any] = [json.loads((ROOT / "job_manifest.example.json").read_text(encoding="utf-8"))]
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for indent, _, body in FENCE.findall(doc.read_text(encoding="utf-8")):
            body = "\n".join(line.removeprefix(indent) for line in body.split("\n"))
            try:
                data = json.loads(body)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and set(data) <= set(SCHEMA["properties"]):
                found.append(data if "job_id" in data else {**MINIMAL, **data})
    files = ["src/app.py", "tests/test_app.py", ".github/workflows/ci.yml", "pyproject.toml"]
    found.append(starter_manifest(files, lambda _p: None, "starter", "job_manifest.json")[0])
    return found


def test_the_shipped_schema_uses_only_understood_keywords() -> None:
    Validator(SCHEMA)  # raises SchemaNotUnderstood otherwise


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "uniqueItems": True},
        {"properties": {"a": {"format": "date"}}},
        {"additionalProperties": {"type": "string"}},
        {"items": {"$ref": "https://example.com/other.json"}},
        {"enum": [1, True]},
    ],
)
def test_a_keyword_it_does_not_implement_is_refused_not_skipped(schema: dict[str, Any]) -> None:
    with pytest.raises(SchemaNotUnderstood):
        Validator(schema)


def test_every_shown_manifest_agrees() -> None:
    shown = shown_manifests()
    assert len(shown) >= 4
    for data in shown:
        assert our_errors(data) == [] == reference_errors(data), data


EDGES: list[dict[str, Any]] = [
    {"max_files_changed": 1.0},  # an integer to JSON Schema
    {"max_files_changed": True},  # not an integer
    {"max_files_changed": 2**80},
    {"max_files_changed": -(2**80)},
    {"test_timeout_s": 86400.0000001},
    {"test_timeout_s": 0},
    {"test_timeout_s": False},
    {"test_env": ["FOO\n"]},  # `$` matches before a final newline for re.search, as jsonschema reads it
    {"test_env": ["\nFOO"]},
    {"job_id": "x" * 201},
    {"job_id": "\U0001f600" * 200},  # 200 code points, 400 UTF-16 units
    {"mode": "Enforce"},
    {"mode": None},
    {"mode": 0},
    {"allowed_paths": []},
    {"allowed_paths": None},
    {"required_test": [None, 1, {}]},
    {"scratch_roots": ["relative/dir", "/abs", "~/x", "C:\\x", "c:/y", "~user"]},
    {"allowed_fingerprints": ["sha256:" + "a" * 15, "sha256:" + "a" * 65, "sha256:" + "A" * 16]},
    {"token_scope": "whole-file", "always_run_test": 1},
    {"$schema": 3, "description": None},
]


@pytest.mark.parametrize("fields", EDGES, ids=[repr(e)[:40] for e in EDGES])
def test_edges_agree(fields: dict[str, Any]) -> None:
    agree({**MINIMAL, **fields})


@pytest.mark.parametrize("data", [None, [], "x", 1, 1.5, True, {}, {"job_id": "j"}, {"": 1, "a/b": 2}])
def test_not_a_manifest_agrees(data: Any) -> None:
    agree(data)


POOL: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    7,
    1.0,
    1.5,
    -0.5,
    86401,
    "",
    "x",
    "src/**",
    "FOO",
    "NOT-A-NAME",
    "enforce",
    "shadow",
    "whole-file",
    "/tmp/job",
    "sha256:" + "0" * 16,
    [],
    [""],
    ["x"],
    ["a", 1],
    [None],
    [["x"]],
    {},
    {"a": 1},
]


def generated(rng: random.Random) -> dict[str, Any]:
    """A manifest of random keys (known, misspelt, missing) and values of every JSON type."""
    keys = list(SCHEMA["properties"])
    data: dict[str, Any] = {k: v for k, v in MINIMAL.items() if rng.random() < 0.9}
    for key in rng.sample(keys, rng.randint(0, 6)):
        data[key] = rng.choice(POOL) if rng.random() < 0.6 else MINIMAL.get(key, rng.choice(POOL))
    if rng.random() < 0.15:
        data[rng.choice(keys)[:-1]] = 1  # a misspelt key
    return data


def test_generated_manifests_agree() -> None:
    rng = random.Random(20)
    valid = invalid = 0
    for _ in range(3000):
        data = generated(rng)
        agree(data)
        valid, invalid = (valid + 1, invalid) if not reference_errors(data) else (valid, invalid + 1)
    assert valid > 200 and invalid > 1000, (valid, invalid)  # both sides of the line were tried
