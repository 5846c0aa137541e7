"""A manifest per job: `.score-diff/jobs/<job>.json`, side by side, the job named by the branch
(`agent-<job>`, the pattern configurable) or explicitly.

Each job is judged by its own approved file, so a looser manifest for job B landing on the base
branch never loosens job A. The single `job_manifest.json` keeps working where no job file exists.
"""

from __future__ import annotations

from ..errors import ManifestError, UsageError

JOBS_DIR = ".score-diff/jobs"
DEFAULT_JOB_BRANCH = "agent-*"
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # ASCII only, as [A-Za-z0-9]


def valid_name(job: str) -> bool:
    """1 to 200 of ASCII letters, digits, '.', '_', '-', starting with a letter or digit, not ending in '.'
    (str tests, not a pattern: its compile cost every tool call, issue 29)."""
    return 0 < len(job) <= 200 and job[0] in _ALNUM and not job.strip(_ALNUM + "._-") and not job.endswith(".")


def manifest_rel(job: str) -> str:
    """The repo-relative path of `job`'s manifest; a name that is not one is a usage error."""
    if not valid_name(job):
        raise UsageError(f"job name {job!r}: use letters, digits, '.', '_' and '-' (it names {JOBS_DIR}/<job>.json)")
    return f"{JOBS_DIR}/{job}.json"


def job_from_branch(branch: str | None, pattern: str = DEFAULT_JOB_BRANCH) -> str | None:
    """The job a branch names through `pattern` (one `*`: `agent-*` makes agent-fix job fix); None if it names none."""
    if pattern.count("*") != 1:
        raise UsageError(f"--job-branch {pattern!r} needs exactly one '*', where the job name goes")
    if branch is None:
        return None
    prefix, suffix = pattern.split("*")
    if not (branch.startswith(prefix) and branch.endswith(suffix)) or len(branch) <= len(prefix) + len(suffix):
        return None
    name = branch[len(prefix) : len(branch) - len(suffix)]
    return name if valid_name(name) else None


def is_fence_path(path: str) -> bool:
    """Any job's manifest or pin: a job's branch may not add or change one, its own or another's."""
    return path.lower().startswith(JOBS_DIR + "/") or path.lower() == JOBS_DIR


def check_job_id(job: str, job_id: str, source: str) -> None:
    """A job file must be that job's: a copy of B's under A's name would judge A by B's fence."""
    if job_id != job:
        raise ManifestError(
            f"{source} declares job_id {job_id!r}, but it is the manifest of job {job!r} "
            f"({JOBS_DIR}/<job>.json must declare job_id <job>)"
        )
