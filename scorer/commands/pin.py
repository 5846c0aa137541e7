"""`score-diff pin`: validate a manifest and write <manifest>.sha256 beside it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..context import Context
from ..errors import ManifestError
from .shared import add_manifest, add_repo, manifest_file

HELP = "validate a manifest and write <manifest>.sha256 beside it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_manifest(p)
    add_repo(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..manifest.load import load_manifest
    from ..manifest.pin import PIN_SUFFIX, pin_line
    from ..setup.detect import STARTER_REFUSED, is_starter

    path = manifest_file(args, ctx)
    manifest = load_manifest(path)
    if is_starter(manifest.description):  # pinned now, it would be edited, re-pinned and committed twice
        raise ManifestError(STARTER_REFUSED.format(rel=path.name))
    line = pin_line(path.read_bytes(), path.name)
    try:
        Path(str(path) + PIN_SUFFIX).write_text(line, encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"cannot write {path}{PIN_SUFFIX}: {exc.strerror or exc}") from exc
    ctx.stdout.write(f"wrote {path}{PIN_SUFFIX}: {line}")
    return 0
