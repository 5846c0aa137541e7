"""`score-diff jobs`: the jobs approved side by side in .score-diff/jobs/, their branches and pins."""

from __future__ import annotations

import argparse
import hashlib
import json
from typing import Any

from ..context import Context
from .shared import add_job_branch, add_repo, repository

HELP = "list the jobs in .score-diff/jobs/ at a commit, with their branches and pins"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_repo(p)
    p.add_argument(
        "--base",
        default="HEAD",
        metavar="REF",
        help="list the jobs as committed at REF, where --base mode reads them (default HEAD)",
    )
    add_job_branch(p)
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..manifest.jobs import JOBS_DIR, job_from_branch

    job_from_branch(None, args.job_branch)  # a pattern without one '*' is a usage error here too
    repo = repository(args, ctx)
    try:
        rev = repo.resolve(args.base)
        names = sorted(n for n in repo.names_under(rev, JOBS_DIR) if n.endswith(".json"))
        rows = [_row(repo, rev, path, args.job_branch) for path in names]
    finally:
        repo.close()
    if args.format == "json":
        from ..report.escape import json_safe

        ctx.stdout.write(json_safe(json.dumps(rows, indent=2, ensure_ascii=False)) + "\n")
    else:
        ctx.stdout.write(_text(rows, args.base, rev, JOBS_DIR))
    return 0


def _row(repo: Any, rev: str, path: str, pattern: str) -> dict[str, Any]:
    from ..errors import ManifestError
    from ..manifest.jobs import check_job_id
    from ..manifest.load import parse_manifest
    from ..manifest.pin import PIN_SUFFIX, parse_pin

    job = path.rsplit("/", 1)[-1].removesuffix(".json")
    raw = repo.read_file(rev, path) or b""
    branch = pattern.replace("*", job)
    row: dict[str, Any] = {
        "job": job,
        "manifest": path,
        "job_id": None,
        "valid": True,
        "problem": None,
        "branch": branch,
        "branch_refs": repo.refs_named([f"refs/heads/{branch}", f"refs/remotes/*/{branch}"]),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "pin": "not pinned",
    }
    try:
        manifest = parse_manifest(raw, path)
        row["job_id"] = manifest.job_id
        check_job_id(job, manifest.job_id, path)
    except ManifestError as exc:
        row["valid"], row["problem"] = False, str(exc)
    pin = repo.read_file(rev, path + PIN_SUFFIX)
    if pin is not None:
        try:
            row["pin"] = (
                "pinned"
                if parse_pin(pin.decode("utf-8", "replace"), path + PIN_SUFFIX) == row["sha256"]
                else "PIN MISMATCH"
            )
        except ManifestError:
            row["pin"] = "PIN UNREADABLE"
    return row


def _text(rows: list[dict[str, Any]], base: str, rev: str, where: str) -> str:
    from ..report.escape import one_line

    if not rows:
        return f"no jobs in {where}/ at {base} ({rev[:12]})\n"
    out = [f"jobs in {where}/ at {base} ({rev[:12]}):"]
    for r in rows:
        refs = (
            ", ".join(ref.removeprefix("refs/heads/").removeprefix("refs/remotes/") for ref in r["branch_refs"])
            or "no branch yet"
        )
        state = "ok" if r["valid"] else f"INVALID: {r['problem']}"
        out.append(f"  {r['job']}  branch {r['branch']} ({refs})  {r['pin']}  sha256 {r['sha256'][:12]}  {state}")
    return "\n".join(one_line(line) for line in out) + "\n"
