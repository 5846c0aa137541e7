"""Import-and-validate cost of the manifest validators, each in a fresh interpreter, interleaved.

    python benchmarks/validators.py [--runs 30]

Each candidate imports its validator and validates job_manifest.example.json once, as a
hook does on every call: jsonschema (the reference), code that fastjsonschema generates
from the shipped schema (`compile_to_code`, written to a temporary module), jsonschema-rs,
and score-diff's own walker (scorer/manifest/schema.py). `python -c pass` is the floor.
A candidate whose package is not installed is skipped.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schemas" / "job_manifest.schema.json"
EXAMPLE = ROOT / "job_manifest.example.json"
READ = f"import json; s = json.loads(open({str(SCHEMA)!r}).read()); d = json.loads(open({str(EXAMPLE)!r}).read())"
CANDIDATES = {
    "python -c pass": "pass",
    "jsonschema": f"{READ}\nimport jsonschema\nassert not list(jsonschema.Draft202012Validator(s).iter_errors(d))",
    "fastjsonschema (generated)": f"{READ}\nimport generated_manifest\ngenerated_manifest.validate(d)",
    "jsonschema-rs": f"{READ}\nimport jsonschema_rs\nassert jsonschema_rs.Draft202012Validator(s).is_valid(d)",
    "score-diff walker": f"{READ}\nfrom scorer.manifest.schema import Validator\nassert not [*Validator(s).errors(d)]",
}


def generate(into: Path) -> bool:
    """Write fastjsonschema's code for the schema as a module; False if fastjsonschema is absent."""
    try:
        import fastjsonschema  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return False
    code = fastjsonschema.compile_to_code(__import__("json").loads(SCHEMA.read_text()))
    entry = code.split("def ", 1)[1].split("(", 1)[0]  # the generated module's entry point
    (into / "generated_manifest.py").write_text(f"{code}\nvalidate = {entry}\n")
    return True


def runnable(code: str, path: str) -> bool:
    return subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": path}, capture_output=True).returncode == 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args(argv)
    scratch = Path(tempfile.mkdtemp())
    generate(scratch)
    path = f"{scratch}:{ROOT}"
    chosen = {name: code for name, code in CANDIDATES.items() if runnable(code, path)}
    times: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.runs):
        for name, code in chosen.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": path}, check=True)
            times[name].append(time.perf_counter() - started)
    print(f"{args.runs} interleaved runs each, Python {sys.version.split()[0]}")
    print(f"{'':28} {'median ms':>10} {'min ms':>8}")
    for name, values in times.items():
        print(f"{name:28} {statistics.median(values) * 1000:10.1f} {min(values) * 1000:8.1f}")
    for name in CANDIDATES.keys() - chosen.keys():
        print(f"{name:28} (not installed: skipped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
