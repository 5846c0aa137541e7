"""The fence a tool call is judged by, read with one git call where that says all (issue 29).

Scoring's `pipeline.committed_fence` asks git for the branch, for HEAD, for the manifest's
tree entries and for its bytes: four processes on every tool call. The hook asks one `git
ls-tree HEAD` for the manifest, its pin and the job files beside them (`manifest.jobs`),
takes their bytes from the working tree when they hash to the committed blobs
(`TreeReader.committed_bytes`, inspection/trees.py: not git.py's whole `Repository`), and asks
for the branch only when job files exist, since only then can the branch choose the fence.
What this cannot settle (no commit yet, an error of any kind) goes to committed_fence, which
decides, and words the error, as scoring does.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..inspection.trees import TreeReader
    from ..manifest.load import Manifest
    from .heads import HeadListing


def read_fence(
    root: str,
    git_dir: str,
    manifest: str | None,
    cwd: str,
    environ: Mapping[str, str],
    heads: HeadListing | None = None,
) -> tuple[Manifest, str | None]:
    """(the manifest, its repo-relative path) exactly as `pipeline.committed_fence` finds it, in
    the repository `locate` found (root, git_dir). `heads` is the sidecar's ls-tree of HEAD (heads.py)."""
    from ..inspection.gitprocess import GitProcess
    from ..manifest.locate import manifest_location, read_manifest

    # The refusals scoring makes before any git call (GIT_DIR elsewhere, GIT_OBJECT_DIRECTORY, ...).
    GitProcess(root, environ, discovered=(root, git_dir, False))
    path, rel = manifest_location(manifest, cwd, root, environ)
    if rel is None and manifest is not None:  # outside the repository: git has nothing to say (nor asks scoring)
        return read_manifest(None, path, None, None, None, environ).manifest, None
    from ..inspection.trees import TreeReader

    reader = TreeReader(root, environ, discovered=(root, git_dir, False))
    try:
        return _from_head(reader, manifest, cwd, environ, heads)
    except Exception:  # committed_fence reads it again and raises its own error (fail closed)
        from ..inspection.git import Repository
        from ..pipeline import Options, committed_fence

        repo = Repository(root, environ, discovered=(root, git_dir, False))
        try:
            return committed_fence(repo, Options(repo=root, manifest=manifest, cwd=cwd), environ)
        finally:
            repo.close()
    finally:
        reader.close()


def _from_head(
    repo: TreeReader, manifest: str | None, cwd: str, environ: Mapping[str, str], heads: HeadListing | None
) -> tuple[Manifest, str | None]:
    from ..manifest import jobs
    from ..manifest.locate import from_environment, manifest_location, read_manifest
    from ..manifest.pin import PIN_SUFFIX

    root = repo.work_tree
    path, rel = manifest_location(manifest, cwd, root, environ)
    if rel is None:  # $SCORE_DIFF_MANIFEST outside the repository: committed_fence refuses it in its words
        raise LookupError(path)
    job_dir = jobs.JOBS_DIR + "/"
    paths = [rel, rel + PIN_SUFFIX, *([job_dir] if manifest is None else [])]
    entries = heads.tree_entries(repo, "HEAD", paths) if heads is not None else repo.tree_entries("HEAD", paths)
    job = None
    if manifest is None and any(name.startswith(job_dir) for name in entries):  # only then can the branch choose
        job = jobs.job_from_branch(repo.branch())
        mode, kind, _ = entries.get(jobs.manifest_rel(job), ("", "", "")) if job else ("", "", "")
        if kind == "blob" and mode != "120000":  # what Repository.read_file calls a file (no symlink)
            rel = jobs.manifest_rel(job or "")
            path = os.path.join(root, rel)
        else:
            job = None
    own = {name: entry for name, entry in entries.items() if name in (rel, rel + PIN_SUFFIX)}
    by_env = job is None and from_environment(manifest, environ)
    found = read_manifest(repo, path, rel, None, None, environ, head="HEAD", chosen_by_env=by_env, entries=own)
    if job is not None:
        jobs.check_job_id(job, found.manifest.job_id, found.manifest.source or job)
    return found.manifest, rel
