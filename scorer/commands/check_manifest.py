"""`score-diff check-manifest`: validate a manifest and print its digest, for review."""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_manifest, add_repo, manifest_file

HELP = "validate a manifest and print its sha256"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_manifest(p)
    add_repo(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..manifest.load import load_manifest
    from ..manifest.pin import pin_line

    path = manifest_file(args, ctx)
    manifest = load_manifest(path)
    for warning in manifest.warnings:
        ctx.stdout.write(f"warning: {warning}\n")
    ctx.stdout.write(f"manifest {path} is valid (job {manifest.job_id})\n")
    ctx.stdout.write(pin_line(path.read_bytes(), path.name))
    return 0
