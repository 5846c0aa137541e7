"""The environment the required test runs in: an allowlist, plus settings that close doors.

The test runs code the job wrote, in an environment the job's own session sets. What
can be closed here is closed; the rest (an absolute PATH entry the job controls, the
interpreter's own site-packages, HOME) is documented in docs/required-test.md, with CI,
whose environment the job does not set, as the backstop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

# Variables the required test inherits; anything else (PYTHONPATH, LD_PRELOAD, GIT_*,
# tool-specific switches an agent could export) must be named in the manifest's test_env.
BASE_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
    "CI",
    "SYSTEMROOT",
    "COMSPEC",
    "PATHEXT",
    "WINDIR",
)
# Set for every run unless the manifest names the variable in test_env (then the
# caller's value, or none, passes instead).
HARDENED = {
    "PYTHONNOUSERSITE": "1",  # a usercustomize.py or .pth file under HOME would run inside every Python
    "PYTHONDONTWRITEBYTECODE": "1",  # the run leaves no __pycache__ behind in the tree it tested
}


# Never passed, even when test_env names them: the job's session sets their values, and each
# steers what the test collects, loads or reports (docs/required-test.md#the-environment).
NEVER_PASSED = frozenset(
    {
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        "PYTHONPATH",  # the checkout's own paths are set instead (session)
        "PYTHONHOME",
        "PYTHONSTARTUP",
        "PYTHONINSPECT",
        "PYTHONSAFEPATH",
        "PYTHONUSERBASE",
        "PYTHONBREAKPOINT",
        "PYTHONEXECUTABLE",
        "PYTHONWARNINGS",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "DYLD_INSERT_LIBRARIES",
        "DYLD_LIBRARY_PATH",
        "NODE_OPTIONS",
        "GOFLAGS",
    }
)


def test_environment(environ: Mapping[str, str], extra: Sequence[str]) -> dict[str, str]:
    """The allowlisted environment, hardened, without the pre-commit hook's private virtualenv."""
    env = {k: environ[k] for k in (*BASE_ENV, *extra) if k in environ and k not in NEVER_PASSED}
    env.update({k: v for k, v in HARDENED.items() if k not in extra})
    if "PATH" in env:
        env["PATH"] = _search_path(env["PATH"], environ)
    return env


def secrets_given(env: Mapping[str, str]) -> frozenset[str]:
    """The secret values among the variables the test is given beyond the base ones (test_env):
    redaction masks them, and their hex and base64 forms, in every field of the report."""
    from ..secrets.secret_values import environment_secrets

    return environment_secrets({k: v for k, v in env.items() if k not in BASE_ENV and k not in HARDENED})


def _search_path(path: str, environ: Mapping[str, str]) -> str:
    # A relative or empty entry resolves against the repository root, where the test runs
    # and where the job writes (ignored files included): a `python3` there would come first.
    keep = [p for p in path.split(os.pathsep) if p and os.path.isabs(p)]
    venv = environ.get("VIRTUAL_ENV")
    if environ.get("PRE_COMMIT") == "1" and venv and os.path.basename(venv.rstrip(os.sep)).startswith("py_env-"):
        # Inside a `language: python` hook, PATH starts with the environment pre-commit built
        # for score-diff (named py_env-<version>); the project's test must run with the
        # project's interpreter, not ours. A `language: system` hook run from the user's own
        # activated virtualenv keeps it: that is the project's interpreter.
        keep = [p for p in keep if not _inside(p, venv)]
    return os.pathsep.join(keep)


def _inside(entry: str, directory: str) -> bool:
    entry, directory = os.path.normpath(entry), os.path.normpath(directory)
    return entry == directory or entry.startswith(directory + os.sep)


def program_inside(argv0: str, env: Mapping[str, str], root: str) -> str | None:
    """The repo-relative path of the program PATH finds for a bare `argv0`, when it lives in the
    repository (an in-repo virtualenv's bin/, usually ignored): the job can rewrite it unseen."""
    if os.sep in argv0 or (os.altsep and os.altsep in argv0):
        return None  # a path: relative ones are files of the change itself, scored like any other
    import shutil  # only when a test runs: a scoring reads the environment for its secrets (issue 29)

    found = shutil.which(argv0, path=env.get("PATH", ""))
    if found is None:
        return None
    real_root, where = os.path.realpath(root), os.path.abspath(found)
    if os.path.commonpath([real_root, os.path.realpath(os.path.dirname(where))]) != real_root:
        return None
    return os.path.relpath(
        os.path.join(os.path.realpath(os.path.dirname(where)), os.path.basename(where)), real_root
    ).replace(os.sep, "/")
