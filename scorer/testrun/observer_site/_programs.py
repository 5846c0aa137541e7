"""The observer's programs: which program a start runs, whether test_programs lists it, and
whether a Python it starts will load the observer. Loaded by sitecustomize.py; standard library only.

A listed name is the program that name finds on the test's PATH when the test starts: a file of
the same name the test made elsewhere is another program. A Python child must carry the observer:
a start that would leave it out (-I, -E, -S, -X frozen_modules=off, an environment without
score-diff's PYTHONPATH entry first, its configuration, or PYTHONNOUSERSITE) is refused; an
environment `subprocess` has not yet copied (a dict, or the inherited one) is mended instead.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from _score_diff_observer_paths import text

_CONFIG_ENV = "SCORE_DIFF_OBSERVER"
_KEYS = (_CONFIG_ENV, "PYTHONPATH", "PYTHONNOUSERSITE")
_PYTHON = re.compile(r"python[0-9.]*[dt]?")
_DROPS = "IES"  # -I, -E, -S: no PYTHONPATH, or no site, so no sitecustomize
_WITH_ARG = "WX"
_ENDS = "cm"


def dropping_flag(argv: list[str]) -> str | None:
    """The first option in a Python command line that keeps the observer out, else None."""
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or arg == "-" or not arg.startswith("-"):
            return None
        if arg.startswith("--"):
            i += 2 if arg == "--check-hash-based-pycs" else 1
            continue
        for j, flag in enumerate(arg[1:], start=1):
            if flag in _DROPS:
                return f"-{flag}"
            if flag in _ENDS:
                return None
            if flag in _WITH_ARG:
                value = arg[j + 1 :] or (argv[i + 1] if i + 1 < len(argv) else "")
                if flag == "X" and value.replace(" ", "").startswith("frozen_modules=off"):
                    return "-X frozen_modules=off"  # then site.py itself is read from PYTHONPATH
                i += 0 if arg[j + 1 :] else 1
                break
        i += 1
    return None


def which(name: str, path: str) -> str | None:
    for directory in path.split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return None


class Programs:
    def __init__(self, listed: list[str] | None, raw: str, site_dir: str, refused: type[Exception]) -> None:
        self.listed = None if listed is None else tuple(listed)
        self.raw, self.site_dir, self.refused = raw, site_dir, refused
        self.launch_path = os.environ.get("PATH", os.defpath)
        self.env = {key: os.environ.get(key) for key in _KEYS}  # the C environment, as putenv left it
        self.interpreter = os.path.realpath(sys.executable) if sys.executable else None
        self.allowed: set[str] | None = None

    def event(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "os.putenv" and len(args) >= 2:
            self.env[_key(args[0])] = _value(args[1])
        elif event == "os.unsetenv" and args:
            self.env[_key(args[0])] = None
        elif event == "subprocess.Popen" and len(args) >= 4:
            self.start(args[0], args[1], args[2], args[3], mend=True)
        elif event == "os.exec" and len(args) >= 3:
            # os.execvp tries each PATH entry in turn: one that holds no file runs nothing
            if type(args[0]) is int or os.path.exists(text(args[0])):
                self.start(args[0], args[1], None, args[2], mend=False)
        elif event == "os.posix_spawn" and len(args) >= 3:
            self.start(args[0], args[1], None, args[2], mend=False)
        elif event == "os.spawn" and len(args) >= 4:
            self.start(args[1], args[2], None, args[3], mend=False)
        elif event == "os.system":
            self.start("/bin/sh", ["sh", "-c"], None, None, mend=False)  # what system(3) runs

    def start(self, program: Any, argv: Any, cwd: Any, env: Any, mend: bool) -> None:
        name = text(program)
        real = self.resolve(name, cwd, env)
        if self.listed is not None and (real is None or real not in self.allowed_paths()):
            raise self.refused(f"started the program {name} (not on test_programs)")
        if real == self.interpreter or _PYTHON.fullmatch(os.path.basename(real or name)):
            self.python(name, argv, env, mend)

    def resolve(self, name: str, cwd: Any, env: Any) -> str | None:
        if os.sep in name:
            base = os.getcwd() if cwd is None else text(cwd)
            return os.path.realpath(os.path.join(base, name))
        path = _get(env, "PATH") if type(env) is dict else os.environ.get("PATH")
        return which(name, path if path is not None else os.defpath)

    def allowed_paths(self) -> set[str]:
        if self.allowed is None:
            found = {self.interpreter} if self.interpreter else set()
            for name in self.listed or ():
                where = os.path.realpath(name) if os.path.isabs(name) else which(name, self.launch_path)
                if where is not None:
                    found.add(where)
            self.allowed = {p for p in found if p}
        return self.allowed

    def python(self, name: str, argv: Any, env: Any, mend: bool) -> None:
        if type(argv) not in (list, tuple):
            raise self.refused(f"started the Python {name} with a command line the observer cannot read")
        flag = dropping_flag([text(a) for a in argv])
        if flag is None and _get(os.environ if env is None else env, "PYTHON_FROZEN_MODULES") == "off":
            flag = "PYTHON_FROZEN_MODULES=off"  # Python 3.13's variable for -X frozen_modules=off
        if flag is not None:
            raise self.refused(f"started the Python {name} with {flag}, which would not load the observer")
        if env is None:
            self.mend_inherited()
        elif mend and type(env) is dict:
            env.update(self.wanted(_get(env, "PYTHONPATH")))
        elif self.missing(env):
            raise self.refused(f"started the Python {name} without the observer ({self.missing(env)})")

    def wanted(self, pythonpath: str | None) -> dict[str, str]:
        rest = [p for p in (pythonpath or "").split(os.pathsep) if p and p != self.site_dir]
        wanted = {_CONFIG_ENV: self.raw, "PYTHONPATH": os.pathsep.join([self.site_dir, *rest])}
        if self.env.get("PYTHONNOUSERSITE") is not None or os.environ.get("PYTHONNOUSERSITE"):
            wanted["PYTHONNOUSERSITE"] = "1"
        return wanted

    def missing(self, env: Any) -> str | None:
        if type(env) is not dict and type(env) is not type(os.environ):
            return "an environment the observer cannot read"
        if _get(env, _CONFIG_ENV) != self.raw:
            return "its configuration was changed or removed"
        if (_get(env, "PYTHONPATH") or "").split(os.pathsep)[0] != self.site_dir:
            return "score-diff's directory is no longer first on PYTHONPATH"
        if self.env.get("PYTHONNOUSERSITE") and not _get(env, "PYTHONNOUSERSITE"):
            return "PYTHONNOUSERSITE was removed"
        return None

    def mend_inherited(self) -> None:
        """The environment a child inherits is the C one: put back what putenv/unsetenv took away."""
        for key, value in self.wanted(os.environ.get("PYTHONPATH")).items():
            if self.env.get(key) != value or os.environ.get(key) != value:
                os.environ[key] = value  # putenv: its own audit event is not judged (the hook is busy)
                self.env[key] = value


def _get(env: Any, key: str) -> str | None:
    for k in (key, key.encode()):
        try:
            value = env[k]
        except (KeyError, TypeError):
            continue
        return _value(value)
    return None


def _key(value: Any) -> str:
    return text(value)


def _value(value: Any) -> str | None:
    return None if value is None else text(value)
