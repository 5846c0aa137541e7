"""Time score-diff guard as a command hook and through the sidecar, beside the floors.

    python benchmarks/guard.py [--size medium] [--calls 200] [--tracked] [--baseline DIR]

On the generated repository of --size: `python -c pass` (interpreter start-up), one
`git rev-parse` (the one git call the guard needs to find the repository), the guard as a
command hook on a Write payload (a new process per call, as Claude Code and Codex run it:
the `score-diff` console script beside this interpreter, what `score-diff guard install` writes),
and the same payload POSTed to `score-diff serve` (its own process, on a loopback port) on a
fresh connection per request: by one client, and by ten clients at once (each of the ten
requests of a burst is one sample), and each sidecar's CPU time a request over the run (the
server process and the git processes it reaped, its log rows included). Each round runs
every row once, in an order of its own (a row timed first reads some 0.3 ms slower, whichever
build it is), so load from other work spreads over all of them; p50 and p95 are reported,
and for the rows that are a process of their own the p50 of its CPU time (user + system,
from the kernel's accounting of the reaped child): on a machine shared with other work the
wall time measures the queue for a core as much as the program, the CPU time much less so.
The decision log is written on every call, as in real use. `--tracked` commits the manifest
in the repository and reads it from HEAD (git calls more per decision) instead of passing
--manifest with a file outside it.
`--baseline DIR` adds the command hook of another source checkout (the previous main) as a row;
`--baseline FILE` (an installed console script, e.g. /work/venvs/main-base/bin/score-diff) does
the same with that build, and times its sidecar beside this one. Two Bash payloads are timed
too: a known command (`git status`, answered as it is) and an unknown one (`pytest -q`,
answered by a rewrite into the job's jail where scorer.jail is installed, else asked), and,
with the jail installed, the jail's own cost: `score-diff jail ... -- bash -c true` beside
`bash -c true`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SIZES, ensure

CLIENTS = 10


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def post(port: int, payload: bytes) -> float:
    """One request on a fresh connection; its wall time. The answer must be an allow."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/score?agent=claude", body=payload, headers={"Content-Type": "application/json"})
    body = conn.getresponse().read()
    conn.close()
    took = time.perf_counter() - started
    if body != b"{}":
        raise SystemExit(f"the sidecar did not allow the benchmark write: {body!r}")
    return took


def burst(port: int, payload: bytes) -> list[float]:
    """CLIENTS requests at once, each from its own thread and connection."""
    times: list[float] = []
    gate = threading.Barrier(CLIENTS)

    def client() -> None:
        gate.wait()
        times.append(post(port, payload))

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def start_sidecar(argv: list[str], cwd: str) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([*argv, "--port", "0"], cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "score-diff serve: listening on http://127.0.0.1:PORT/score?agent=NAME"
    if "listening on" not in line:
        proc.kill()
        raise SystemExit(f"score-diff serve did not start: {line!r}")
    return proc, int(line.split("127.0.0.1:")[1].split("/")[0])


def installed_command() -> list[str]:
    """What `score-diff guard install` has an agent run: the `score-diff` console script of this
    interpreter's environment, as users install it (its wrapper imports re; `python -m scorer`
    would add runpy's imports instead). `-m scorer` only where no console script is installed."""
    script = Path(sys.executable).parent / ("score-diff.exe" if os.name == "nt" else "score-diff")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "scorer"]


def tracked_copy(repo: str, manifest: Path) -> str:
    """A clone of the repository with the manifest committed at its root as job_manifest.json."""
    work = Path(tempfile.mkdtemp()) / "tracked"
    subprocess.run(["git", "clone", "-q", "--no-local", repo, str(work)], check=True)
    shutil.copy(manifest, work / "job_manifest.json")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    subprocess.run(["git", "-C", str(work), "add", "job_manifest.json"], check=True)
    subprocess.run(["git", "-C", str(work), "commit", "-qm", "fence", "--no-verify"], check=True, env=env)
    return str(work)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", choices=sorted(SIZES), default="medium")
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--tracked", action="store_true", help="the manifest committed at HEAD, not --manifest")
    p.add_argument(
        "--baseline", type=Path, metavar="DIR", help="another build's source checkout: its command hook is a row too"
    )
    args = p.parse_args(argv)
    import compileall

    import scorer

    # Bytecode as an installed package has it, even under PYTHONDONTWRITEBYTECODE.
    compileall.compile_dir(str(Path(scorer.__file__).parent), quiet=1)
    if args.baseline is not None and args.baseline.is_dir():
        compileall.compile_dir(str(args.baseline / "scorer"), quiet=1)
    gen = ensure(SIZES[args.size])
    repo = tracked_copy(str(gen.repo), gen.manifest) if args.tracked else str(gen.repo)
    target = sorted(gen.info["touched_paths"])[0]

    def hook_payload(tool: str, tool_input: dict[str, str]) -> bytes:
        return json.dumps(
            {
                "session_id": f"bench-{os.getpid()}",  # a session of its own: the fence is pinned to it
                "prompt_id": "p",
                "cwd": repo,
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": tool_input,
            }
        ).encode()

    payload = hook_payload("Write", {"file_path": f"{repo}/{target}", "content": "x = 1\n" * 40})
    known = hook_payload("Bash", {"command": "git status --short"})
    unknown = hook_payload("Bash", {"command": "pytest -q"})
    log_db = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    fence = [] if args.tracked else ["--manifest", str(gen.manifest)]
    guard = [*installed_command(), "guard", "--agent", "claude", *fence, "--log-db", log_db]
    commands = {
        "python -c pass": ([sys.executable, "-c", "pass"], b""),
        "git rev-parse": (["git", "-C", repo, "rev-parse", "--show-toplevel", "--absolute-git-dir"], b""),
        "guard (command hook)": (guard, payload),
    }
    commands["guard, Bash known (git status)"] = (guard, known)
    commands["guard, Bash unknown (pytest -q)"] = (guard, unknown)
    if args.baseline is not None and args.baseline.is_file():  # an installed console script
        before = [str(args.baseline), *guard[guard.index("guard") :]]
    elif args.baseline is not None:  # the same hook from another checkout, first on sys.path
        first = f"import sys; sys.path.insert(0, {str(args.baseline.resolve())!r}); from scorer.entry import main; "
        script = first + "sys.argv[0] = 'score-diff'; raise SystemExit(main())"
        before = [sys.executable, "-c", script, *guard[guard.index("guard") :]]
    if args.baseline is not None:
        commands["guard (command hook), baseline"] = (before, payload)
        commands["guard, Bash known, baseline"] = (before, known)
    import importlib.util

    if importlib.util.find_spec("scorer.jail") is not None:  # the jail's own cost, for a command that does nothing
        jail = [sys.executable, "-m", "scorer", "jail", "--write", repo, "--network", "off", "--"]
        commands["bash -c true"] = (["bash", "-c", "true"], b"")
        commands["score-diff jail -- bash -c true"] = ([*jail, "bash", "-c", "true"], b"")
    check = subprocess.run(guard, input=payload, capture_output=True, cwd=repo)
    if check.returncode != 0 or check.stdout.strip():
        raise SystemExit(f"the guard did not allow the benchmark write: {check.stdout!r} {check.stderr!r}")
    sidecars = {"": start_sidecar([sys.executable, "-m", "scorer", "serve", *fence, "--log-db", log_db], repo)}
    if args.baseline is not None and args.baseline.is_file():  # the previous build's sidecar, same run
        sidecars[", baseline"] = start_sidecar([str(args.baseline), "serve", *fence, "--log-db", log_db + "-b"], repo)
    one, many = "sidecar, 1 client", f"sidecar, {CLIENTS} concurrent clients"
    rows = [f"{name}{tag}" for tag in sidecars for name in (one, many)]
    times: dict[str, list[float]] = {name: [] for name in [*commands, *rows]}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    served: dict[str, float] = {}
    try:
        for _, port in sidecars.values():
            post(port, payload)  # the sidecar's own first call (imports) is not a sample
        served = {tag: sidecar_cpu(server.pid) for tag, (server, _) in sidecars.items()}
        order = random.Random(0)  # each round in its own order: a row timed first reads slower
        for _ in range(args.calls):
            rows_now, sidecars_now = list(commands.items()), list(sidecars.items())
            order.shuffle(rows_now)
            order.shuffle(sidecars_now)
            for name, (argv_, data) in rows_now:
                cpu_before = _children_cpu()
                started = time.perf_counter()
                subprocess.run(argv_, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=repo)
                times[name].append(time.perf_counter() - started)
                cpu[name].append(_children_cpu() - cpu_before)
            for tag, (_, port) in sidecars_now:
                times[one + tag].append(post(port, payload))
                times[many + tag].extend(burst(port, payload))
        time.sleep(0.5)  # the last rows logged, which are part of what a request costs
        served = {tag: sidecar_cpu(server.pid) - served[tag] for tag, (server, _) in sidecars.items()}
    finally:
        for server, _ in sidecars.values():
            server.terminate()
            server.wait()
    where = "the manifest committed at HEAD" if args.tracked else "--manifest outside the repository"
    print(
        f"{args.size} repository ({gen.info.get('files', '?')} files), {where}, {args.calls} rounds, Python "
        f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'':32} {'p50 ms':>8} {'p95 ms':>8} {'cpu p50':>8}")
    for name, values in times.items():
        used = f"{pct(cpu[name], 0.5):8.1f}" if name in cpu else f"{'-':>8}"
        print(f"{name:32} {pct(values, 0.5):8.1f} {pct(values, 0.95):8.1f} {used}")
    for what, table in (("wall", times), ("cpu", cpu)):
        floor = pct(table["python -c pass"], 0.5) + pct(table["git rev-parse"], 0.5)
        hook = pct(table["guard (command hook)"], 0.5)
        ratio = f"{hook / floor:.2f}x (target 2x: {2 * floor:.1f} ms)"
        print(f"command hook / (start-up + one git call), {what} p50 = {ratio}")
    if "guard (command hook), baseline" in times:
        for what, table in (("wall", times), ("cpu", cpu)):
            now, then = pct(table["guard (command hook)"], 0.5), pct(table["guard (command hook), baseline"], 0.5)
            print(f"command hook, {what} p50: {now:.1f} ms now, {then:.1f} ms baseline ({now / then:.2f}x)")
    if "guard, Bash known, baseline" in times:
        now, then = pct(times["guard, Bash known (git status)"], 0.5), pct(times["guard, Bash known, baseline"], 0.5)
        print(f"known Bash command: {now:.1f} ms now, {then:.1f} ms baseline ({now / then:.2f}x)")
    if "score-diff jail -- bash -c true" in times:
        cost = pct(times["score-diff jail -- bash -c true"], 0.5) - pct(times["bash -c true"], 0.5)
        print(f"the jail's cost for an unknown command: {cost:.1f} ms p50 on top of the command")
    single, ten = pct(times[one], 0.5), pct(times[many], 0.5)
    print(f"sidecar p50: {single:.1f} ms one client (target 5), {ten:.1f} ms ten (target 10)")
    if f"{one}, baseline" in times:
        then1, then10 = pct(times[f"{one}, baseline"], 0.5), pct(times[f"{many}, baseline"], 0.5)
        print(f"sidecar p50, baseline: {then1:.1f} ms one client, {then10:.1f} ms ten")
    for label, spent in served.items():
        each = spent / (args.calls * (1 + CLIENTS)) * 1000
        print(f"sidecar{label} CPU per request (its log row and git children included): {each:.2f} ms")
    return 0


def sidecar_cpu(pid: int) -> float:
    """User + system seconds of a running sidecar and of the git processes it has reaped (Linux's
    /proc; 0 elsewhere): the server's cost a request, which the load of other work hardly moves."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(t) for t in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime


def _children_cpu() -> float:
    """User + system seconds of every child reaped so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
