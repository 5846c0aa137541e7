"""Time score-diff guard as a command hook and the sidecar round trip, beside the floors.

    python benchmarks/guard.py [--size medium] [--calls 200]

On the generated repository of --size: `python -c pass` (interpreter start-up), one
`git rev-parse` (the one git call the guard makes), the guard as a command hook on a
Write payload (a new process per call, as Claude Code and Codex run it), and the same
payload POSTed to `score-diff serve` on a loopback port (one kept-alive connection).
Calls are interleaved so load from other work spreads over all of them; p50 and p95
are reported. The decision log is written on every call, as in real use.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SIZES, ensure


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", choices=sorted(SIZES), default="medium")
    p.add_argument("--calls", type=int, default=200)
    args = p.parse_args(argv)
    import compileall

    import scorer

    # Bytecode as an installed package has it, even under PYTHONDONTWRITEBYTECODE.
    compileall.compile_dir(str(Path(scorer.__file__).parent), quiet=1)
    gen = ensure(SIZES[args.size])
    repo = str(gen.repo)
    target = sorted(gen.info["touched_paths"])[0]
    payload = json.dumps(
        {
            "session_id": "bench",
            "prompt_id": "p",
            "cwd": repo,
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": f"{repo}/{target}", "content": "x = 1\n" * 40},
        }
    ).encode()
    log_db = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    guard = [
        sys.executable,
        "-m",
        "scorer",
        "guard",
        "--agent",
        "claude",
        "--manifest",
        str(gen.manifest),
        "--log-db",
        log_db,
    ]
    commands = {
        "python -c pass": ([sys.executable, "-c", "pass"], b""),
        "git rev-parse": (["git", "-C", repo, "rev-parse", "--show-toplevel", "--absolute-git-dir"], b""),
        "guard (command hook)": (guard, payload),
    }
    check = subprocess.run(guard, input=payload, capture_output=True, cwd=repo)
    if check.returncode != 0:
        raise SystemExit(f"the guard did not allow the benchmark write: {check.stdout!r} {check.stderr!r}")
    from scorer.guard.run import Options
    from scorer.guard.serve import LOOPBACK, GuardServer

    server = GuardServer(0, dict(os.environ), Options("claude", str(gen.manifest), repo, log_db=log_db))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    conn = http.client.HTTPConnection(LOOPBACK, server.server_address[1], timeout=10)
    times: dict[str, list[float]] = {name: [] for name in [*commands, "sidecar round trip"]}
    for _ in range(args.calls):
        for name, (argv_, data) in commands.items():
            started = time.perf_counter()
            subprocess.run(
                argv_, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=repo, check=False
            )
            times[name].append(time.perf_counter() - started)
        started = time.perf_counter()
        conn.request("POST", "/score?agent=claude", body=payload)
        body = conn.getresponse().read()
        times["sidecar round trip"].append(time.perf_counter() - started)
        assert body == b"{}", body
    server.shutdown()
    print(
        f"{args.size} repository ({gen.info.get('files', '?')} files), {args.calls} calls each, Python "
        f"{sys.version.split()[0]}"
    )
    print(f"{'':24} {'p50 ms':>8} {'p95 ms':>8}")
    for name, values in times.items():
        print(f"{name:24} {pct(values, 0.5):8.1f} {pct(values, 0.95):8.1f}")
    floor = pct(times["python -c pass"], 0.5) + pct(times["git rev-parse"], 0.5)
    print(f"target for the command hook: 2 x (start-up + one git call) = {2 * floor:.1f} ms p50")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
