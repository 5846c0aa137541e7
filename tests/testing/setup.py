"""Set-up steps the tests share: the user's edit of init's starter manifest (pin refuses it unedited)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def edit_starter(root: Path, rel: str = "job_manifest.json", **fields: Any) -> dict[str, Any]:
    """Step 1 of the set-up: say what the job is (and change any other field); returns the manifest."""
    path = root / rel
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest.update({"description": "Fix the discount calculation.", **fields})
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest
