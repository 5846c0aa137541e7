"""Load and validate a job manifest: JSON, checked against schemas/job_manifest.schema.json
(by scorer/manifest/schema.py, which gives jsonschema's answers in a millisecond)."""

from __future__ import annotations

import os

from .. import digest, jsontext
from ..errors import ManifestError
from ..memo import memoised
from ..records import NamedTuple
from . import globs
from .schema import SchemaError, Validator

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

SCHEMA_NAME = "job_manifest.schema.json"
DEFAULT_TEST_TIMEOUT_S = 600.0
PATH_KEYS = ("allowed_paths", "forbidden_globs", "sensitive_globs", "protected_tests", "allowed_test_config")


class Manifest(NamedTuple):
    """A validated manifest. Absent limits are None; path entries are normalised."""

    job_id: str
    allowed_paths: tuple[str, ...]
    required_test: tuple[str, ...]
    forbidden_globs: tuple[str, ...] = ()
    max_files_changed: int | None = None
    max_hunk_lines: int | None = None
    max_changed_lines: int | None = None
    max_file_bytes: int | None = None
    test_timeout_s: float = DEFAULT_TEST_TIMEOUT_S
    test_env: tuple[str, ...] = ()
    test_report: str | None = None
    min_tests: int = 1
    forbidden_substrings: tuple[str, ...] = ()
    forbidden_patterns: tuple[str, ...] = ()
    token_scope: str = "added-lines"  # noqa: S105 - or "whole-file": the whole new content of each changed file
    allow_binary: bool = False
    allow_symlinks: bool = False
    allow_submodules: bool = False
    description: str = ""
    mode: str = "enforce"
    sensitive_globs: tuple[str, ...] = ()
    sensitive_exempt: tuple[str, ...] = ()
    disabled_detectors: tuple[str, ...] = ()
    allowed_fingerprints: tuple[str, ...] = ()
    scratch_roots: tuple[str, ...] = ()  # absolute directories outside the repository the guard lets a job write
    guard_allowed_tools: tuple[str, ...] = ()  # tool names the guard allows although it cannot see what they write
    always_run_test: bool = False  # run the required test even when other checks failed
    protected_tests: tuple[str, ...] = ()  # globs of tests the job may add to but not weaken
    allowed_test_config: tuple[str, ...] = ()  # globs of pytest configuration files the job may change
    test_network: bool = False  # the required test's envelope (docs/required-test.md#the-envelope)
    test_write_roots: tuple[str, ...] = ()
    test_read_roots: tuple[str, ...] = ()
    test_programs: tuple[str, ...] | None = None  # None: any program
    test_envelope: str = "auto"
    sha256: str = ""
    source: str = ""
    warnings: tuple[str, ...] = ()


def schema_text(name: str) -> str:
    """A shipped JSON Schema: package data in a wheel, the top-level schemas/ in a source checkout.

    The schemas live once, in schemas/ at the repository root, where editors and other tools
    can point at them; the wheel packs them as scorer/schemas/ (pyproject.toml, force-include).
    Read as plain files where the package is a directory (importlib.resources costs the guard's
    every tool call about 5 ms of imports), through importlib.resources where it is not (a zip).
    """
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # os.path: no pathlib on the hook's path
    for plain in (os.path.join(here, "schemas", name), os.path.join(os.path.dirname(here), "schemas", name)):
        if os.path.isfile(plain):
            with open(plain, encoding="utf-8") as f:
                return f.read()
    from importlib import resources

    return (resources.files("scorer") / "schemas" / name).read_text(encoding="utf-8")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A reviewer reads the first "allowed_paths"; json.loads would keep the last.
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ManifestError(f"key {key!r} appears twice")
        seen[key] = value
    return seen


def _no_constants(name: str) -> Any:
    # json.loads accepts NaN and Infinity, which are not JSON; NaN passes every numeric bound.
    raise ManifestError(f"{name} is not valid JSON")


def schema_message(error: SchemaError, known: list[str]) -> str:
    """One schema error as the user reads it: the key's path, and for an unknown key the closest known one."""
    where = "/".join(str(p) for p in error.path) or "(top level)"
    if error.keyword == "additionalProperties":
        import difflib  # only for an unknown key

        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        hints = []
        for key in extra:
            close = difflib.get_close_matches(key, known, n=1)
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return f"unknown key {', '.join(hints)}: a misspelt key would silently disable a limit"
    return f"{where}: {error.message}"


def schema_problems(errors: Iterable[SchemaError], known: list[str]) -> str | None:
    """The first five errors, in path order (as jsonschema's errors were sorted), or None."""
    ordered = sorted(errors, key=lambda e: list(e.path))
    return "; ".join(schema_message(e, known) for e in ordered[:5]) or None


def _validate_schema(data: Any) -> None:
    validator = Validator(jsontext.loads(schema_text(SCHEMA_NAME)))
    problems = schema_problems(validator.errors(data), list(validator.schema["properties"]))
    if problems:
        raise ManifestError(problems)


def _root_only_warnings(raw: list[str]) -> tuple[str, ...]:
    """One warning for every forbidden entry that matches only at the root, read as written: the
    same entry spelt `./setup.py` names the root file exactly, and is not warned about."""
    entries = [e for e in raw if globs.root_only_warning(e.replace("\\", "/"))]
    if not entries:
        return ()
    listed = ", ".join(repr(e) for e in entries)
    anywhere = ", ".join(repr(f"**/{e}") for e in entries)
    exactly = ", ".join(repr(f"./{e}") for e in entries)
    one = len(entries) == 1
    return (
        f"forbidden_globs {'entry' if one else 'entries'} {listed} {'matches' if one else 'match'} only at "
        f"the repository root; write {anywhere} to forbid {'it' if one else 'them'} at any depth, or "
        f"{exactly} to name the root {'file' if one else 'files'} exactly (no warning)",
    )


def _clean_paths(data: dict[str, Any]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    cleaned: dict[str, tuple[str, ...]] = {}
    problems = []
    for key in PATH_KEYS:
        entries = []
        for i, raw in enumerate(data.get(key, [])):
            try:
                entry = globs.normalise_entry(raw)
                if globs.is_glob(entry):  # a literal path needs no compiling (5,000 of them: 0.5 s)
                    globs.compile_entry(entry)
                    if key == "forbidden_globs":  # also matched case-folded: `[Z-a]` becomes `[z-a]`
                        globs.compile_entry(globs.fold(entry))
                entries.append(entry)
            except globs.GlobError as exc:
                problems.append(f"{key}[{i}] {raw!r} {exc}")
        cleaned[key] = tuple(entries)
    return cleaned, problems


def _check_patterns(patterns: list[str]) -> list[str]:
    if not patterns:
        return []
    import re  # here: only a manifest with forbidden_patterns compiles one (issue 29)

    problems = []
    for i, pattern in enumerate(patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            problems.append(f"forbidden_patterns[{i}] {pattern!r} is not a valid regular expression ({exc})")
    return problems


def _check_names(data: dict[str, Any]) -> list[str]:
    """A built-in category or detector is turned off only by its exact name."""
    from ..builtin_names import CHEAT_IDS, DETECTOR_IDS, SENSITIVE_CATEGORIES

    detectors = DETECTOR_IDS | CHEAT_IDS
    problems = []
    for key, known in (("sensitive_exempt", SENSITIVE_CATEGORIES), ("disabled_detectors", detectors)):
        for i, name in enumerate(data.get(key, [])):
            if name not in known:
                import difflib  # only for a name that is not one

                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(sorted(known))}"
                problems.append(f"{key}[{i}] {name!r} is not a built-in name{hint}")
    return problems


def _check_report(data: dict[str, Any]) -> list[str]:
    report = data.get("test_report")
    if report is None or report.startswith("/"):
        return []
    parts = report.replace("\\", "/").split("/")
    if ".." in parts or ".git" in parts:
        return [f"test_report {report!r} must stay inside the repository and out of .git"]
    return []


def _check_envelope(data: dict[str, Any]) -> list[str]:
    problems = []
    if isinstance(data.get("test_network"), list):
        problems.append(
            "test_network: a list of hosts is not supported (score-diff starts no proxy); "
            "use false, or true to let the test reach every host"
        )
    for key in ("test_write_roots", "test_read_roots"):
        for i, root in enumerate(data.get(key, [])):
            if ".." in root.split("/") or root.rstrip("/") == "":
                problems.append(f"{key}[{i}] {root!r} must be an absolute path other than /, without '..'")
    return problems


def decode_text(raw: bytes) -> str:
    """`raw.decode("utf-8-sig")` (a leading byte order mark dropped, the rest strict UTF-8) without
    loading that codec's module on every tool call (issue 29); an error is the codec's own."""
    try:
        return raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8-sig")  # raises again, with utf-8-sig's name and positions


@memoised(maxsize=32)
def parse_manifest(raw: bytes, source: str) -> Manifest:
    """Validate manifest bytes; raise ManifestError naming the key and the problem.

    Pure in its arguments, so the answer for the same bytes is kept in this process's memory
    (the sidecar's, where the job cannot write); an error is never kept."""
    try:
        data = jsontext.loads(decode_text(raw), object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except (UnicodeDecodeError, jsontext.JSONDecodeError) as exc:
        raise ManifestError(f"{source}: not valid JSON ({exc})") from exc
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from exc
    try:
        _validate_schema(data)
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from exc
    paths, problems = _clean_paths(data)
    problems += _check_patterns(data.get("forbidden_patterns", []))
    problems += _check_names(data)
    problems += _check_report(data)
    problems += _check_envelope(data)
    if problems:
        raise ManifestError(f"{source}: " + "; ".join(problems))
    warnings = _root_only_warnings(data.get("forbidden_globs", []))
    simple: dict[str, Any] = {k: v for k, v in data.items() if k not in PATH_KEYS and k != "$schema"}
    for key in (
        "required_test",
        "test_env",
        "forbidden_substrings",
        "forbidden_patterns",
        "sensitive_exempt",
        "disabled_detectors",
        "allowed_fingerprints",
        "scratch_roots",
        "guard_allowed_tools",
        "test_write_roots",
        "test_read_roots",
        "test_programs",
    ):
        if key in simple:
            simple[key] = tuple(simple[key])
    if "test_timeout_s" in simple:
        simple["test_timeout_s"] = float(simple["test_timeout_s"])
    fields: dict[str, Any] = {**simple, **paths}
    return Manifest(
        **fields,
        sha256=digest.sha256(raw).hexdigest(),
        source=source,
        warnings=warnings,
    )


def load_manifest(path: str | os.PathLike[str]) -> Manifest:
    """Read and validate a manifest file from disk."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise ManifestError(f"cannot read manifest {path}: {exc.strerror or exc}") from exc
    return parse_manifest(raw, os.fspath(path))
