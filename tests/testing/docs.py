"""Reading the project's documents as a reader sees them: the fenced blocks of README.md, docs/*.md
and benchmarks/README.md, the manifests they show, a console block's commands and output (shared by
tests/project/test_docs*.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scorer.manifest.load import schema_text

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks/README.md"]
README = ROOT / "README.md"

# A fenced block opens with three or more backticks or tildes (CommonMark), and closes with the same.
FENCE = re.compile(r"^( *)(`{3,}|~{3,})([\w-]*)[^\n]*\n(.*?)^\1\2 *$", re.M | re.S)
SHELL_LANGS = {"", "sh", "shell", "bash", "console", "text"}
SCHEMA = json.loads(schema_text("job_manifest.schema.json"))
MINIMAL = {"job_id": "docs", "allowed_paths": ["a.py"], "required_test": ["true"]}


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, with the fence's indentation removed."""
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group(1))
        body = "".join(
            line[indent:] if line[:indent].strip(" ") == "" and line.strip() else line.lstrip(" ")
            for line in m.group(4).splitlines(keepends=True)
        )
        out.append((m.group(3), body))
    return out


MANIFEST_KEYS = ("job_id", "allowed_paths", "required_test")


def manifest_label(data: object) -> str | None:
    """`manifest <job_id>` for a manifest, `manifest {keys}` for a part of one; None for other JSON."""
    if not isinstance(data, dict):
        return None
    keys = set(data)
    # A block with a manifest's own keys is a manifest whatever else it holds: a misspelt key must
    # be validated (and fail), not make the block "some other JSON".
    if keys & set(MANIFEST_KEYS):
        return f"manifest {data.get('job_id')}"
    return "manifest {" + ", ".join(sorted(keys)) + "}" if keys and keys <= set(SCHEMA["properties"]) else None


def json_manifests(paths: list[Path] = DOCS) -> list[tuple[str, dict]]:
    """JSON blocks that are manifests (they have a manifest's own keys) or parts of one (every key a
    manifest key)."""
    found: list[tuple[str, dict]] = []
    for path in paths:
        for lang, body in blocks(read(path)):
            data = json.loads(body) if lang == "json" else None
            if isinstance(data, dict) and manifest_label(data):
                found.append((str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name, data))
    return found


def block(path: Path, lang: str, contains: str) -> str:
    [body] = [b for lg, b in blocks(read(path)) if lg == lang and contains in b]
    return body


def console(path: Path, first_command: str) -> tuple[list[str], str]:
    """The `$` commands of the console block that starts with `first_command`, and its output."""
    body = block(path, "console", f"$ {first_command}")
    lines = body.splitlines()
    commands = [line[2:] for line in lines if line.startswith("$ ")]
    output = "\n".join(line for line in lines if not line.startswith("$ "))
    return commands, output


def shape(line: str) -> str:
    """A line with its times, commit ids and durations blanked: what stays the same run to run."""
    line = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "<time>", line)
    line = re.sub(r"\b[0-9a-f]{12}\b", "<commit>", line)
    return re.sub(r"\d+\.\d+s\b", "<s>", line)
