"""Time score-diff against the git floor and the naive reference scorer.

    python benchmarks/run.py --size large [--runs 5]
    python benchmarks/run.py --size all
    python benchmarks/run.py --size large --profile

Per size, one warm-up round then --runs timed rounds, each round running every
command once in a fixed order (git floor, naive, score-diff, their
literal-allowlist variants, Python start-up), so that load from other work on
the machine spreads over all of them.  Wall time is time.perf_counter from fork
to reap (os.wait4); medians are reported.

Peak memory comes from the warm-up round, run under `/usr/bin/time -f %M`: the
largest resident set of any single process in the command's tree.  It is not
taken from the timed runs because Linux carries the forking parent's peak RSS
into the child's ru_maxrss at exec, so every child of this ~25 MB harness would
report at least 25 MB.  Without /usr/bin/time the report says so and shows
those inflated numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import generate

NAIVE = Path(__file__).with_name("naive_score.py")
# score-diff imports no third-party package on the commit path (jsonschema and pathspec are gone)
RUNTIME_IMPORTS = "pass"
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


class Sample(NamedTuple):
    """One timed execution: wall seconds, peak RSS in KiB, and CPU seconds (user + sys of the
    command and the children it waited for: what the machine's load does not inflate as much)."""

    seconds: float
    max_rss_kb: int
    cpu: float = 0.0


class Failed(Exception):
    """A benchmarked command did not do what it must (crash, FAIL, wrong output)."""


class Finished(NamedTuple):
    returncode: int
    stdout: bytes
    stderr: bytes
    sample: Sample


def execute(argv: Sequence[str], env: dict[str, str], stdout: int = subprocess.PIPE, memory: bool = False) -> Finished:
    """Run argv to completion; time it from fork to reap and take its tree's peak RSS.

    With memory=True (and GNU time present) the command runs under /usr/bin/time,
    whose own few MB are the only thing the child inherits; the time is then
    not comparable and must not be recorded.
    """
    with tempfile.TemporaryFile() as errors, tempfile.NamedTemporaryFile("r") as rss:
        if memory and GNU_TIME:
            argv = [GNU_TIME, "-f", "%M", "-o", rss.name, *argv]
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=stdout, stderr=errors)
        out = b""
        if proc.stdout is not None:  # read before reaping, or a full pipe blocks the child
            out = proc.stdout.read()
            proc.stdout.close()
        # os.wait4 instead of proc.wait(): RUSAGE_CHILDREN of this process only ever
        # grows, while wait4 reports the peak of exactly this child and its children.
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        peak = usage.ru_maxrss
        if memory and GNU_TIME:  # the last line; a line before it reports a non-zero exit
            peak = int(rss.read().split()[-1])
        cpu = usage.ru_utime + usage.ru_stime  # wait4 counts the children the command reaped too
        return Finished(proc.returncode, out, errors.read(), Sample(elapsed, peak, cpu))


def must_succeed(name: str, done: Finished, expect_last_line: str | None = None) -> Sample:
    lines = done.stdout.decode(errors="replace").strip().splitlines()
    last = lines[-1] if lines else ""
    if done.returncode != 0 or (expect_last_line is not None and expect_last_line not in last):
        raise Failed(
            f"{name} exited {done.returncode} (expected 0, last line containing {expect_last_line!r})\n"
            f"--- stdout (tail) ---\n{chr(10).join(lines[-20:])}\n"
            f"--- stderr ---\n{done.stderr.decode(errors='replace')[-4000:]}"
        )
    return done.sample


# --- the commands --------------------------------------------------------------


class Tools(NamedTuple):
    git: str
    score_diff: str
    python: str  # the interpreter score-diff runs on, for the start-up floor
    baseline: str | None = None  # another build's score-diff script, timed in the same rounds


def find_tools() -> Tools:
    """Resolve binaries once, past wrappers such as pyenv shims that add ~50 ms a call."""
    git = shutil.which("git")
    scripts = Path(sysconfig.get_path("scripts"))
    score_diff = scripts / "score-diff"
    if not score_diff.exists():
        score_diff = Path(shutil.which("score-diff") or "score-diff")
    if git is None or not score_diff.exists():
        raise SystemExit("need git and the score-diff console script (pip install -e .)")
    shebang = score_diff.read_bytes().split(b"\n", 1)[0]
    python = shebang[2:].decode().strip() if shebang.startswith(b"#!/") else sys.executable
    if not os.path.exists(python):
        python = sys.executable
    return Tools(git, str(score_diff), python)


def git_floor(tools: Tools, repo: Path, env: dict[str, str], memory: bool) -> Sample:
    """The git work a correct scorer cannot avoid, run back to back.

    Reading the untracked files happens in this process (no interpreter start-up
    is charged to the floor); it is inside the wall time, not in the peak RSS.
    """
    git = [tools.git, "-C", str(repo)]
    started, reading = time.perf_counter(), time.process_time()
    numstat = execute([*git, "diff", "HEAD", "--numstat", "-z", "-M"], env, memory=memory)
    patch = execute([*git, "diff", "HEAD", "-U0", "-M"], env, subprocess.DEVNULL, memory)
    others = execute([*git, "ls-files", "-o", "-z", "--exclude-per-directory=.gitignore"], env, memory=memory)
    root = os.fsencode(repo)
    for path in others.stdout.split(b"\0"):
        if path:
            with open(os.path.join(root, path), "rb") as f:
                f.read()
    elapsed = time.perf_counter() - started
    cpu = sum(d.sample.cpu for d in (numstat, patch, others)) + time.process_time() - reading
    for name, done in (("numstat", numstat), ("diff -U0", patch), ("ls-files", others)):
        must_succeed(f"git floor ({name})", done)
    peak = max(d.sample.max_rss_kb for d in (numstat, patch, others))
    return Sample(elapsed, peak, cpu)


class Command(NamedTuple):
    name: str
    run: Callable[[bool], Sample]  # the argument: measure memory instead of time


COLD = "score-diff, cold cache"
# What score-diff keeps across scorings in the repository's git directory (checks/results_cache.py):
# the cold row empties it before each of its runs, and leaves it filled for the warm row after it.
KEPT = (".git", "score-diff", "cache", "checks")


def clear_kept(repo: Path) -> None:
    shutil.rmtree(repo.joinpath(*KEPT), ignore_errors=True)


def commands(
    tools: Tools, generated: generate.Generated, env: dict[str, str], literal: bool, cold: bool = False
) -> list[Command]:
    repo = str(generated.repo)

    def naive(manifest: Path) -> Callable[[bool], Sample]:
        argv = [sys.executable, str(NAIVE), str(manifest), repo]
        return lambda memory: must_succeed("naive", execute(argv, env, memory=memory), "PASS")

    def score_diff(manifest: Path, cold: bool = False) -> Callable[[bool], Sample]:
        argv = [tools.score_diff, "--skip-test", "--manifest", str(manifest), "--repo", repo]

        def run(memory: bool) -> Sample:
            if cold:  # before the clock starts (execute times from fork)
                clear_kept(generated.repo)
            return must_succeed("score-diff", execute(argv, env, memory=memory), "PASS")

        return run

    def python(code: str) -> Callable[[bool], Sample]:
        argv = [tools.python, "-c", code]
        return lambda memory: must_succeed("python", execute(argv, env, memory=memory))

    chosen = [
        Command("git floor", lambda memory: git_floor(tools, generated.repo, env, memory)),
        Command("naive", naive(generated.manifest)),
        Command("score-diff", score_diff(generated.manifest)),
        *([Command(COLD, score_diff(generated.manifest, cold=True))] if cold else []),
    ]
    if tools.baseline is not None:  # before/after in one run: the same rounds, the same load
        argv = [tools.baseline, "--skip-test", "--manifest", str(generated.manifest), "--repo", repo]
        chosen.append(
            Command(
                "baseline score-diff",
                lambda memory: must_succeed("baseline", execute(argv, env, memory=memory), "PASS"),
            )
        )
    if literal:
        chosen += [
            Command("naive, literal allowlist", naive(generated.literal_manifest)),
            Command("score-diff, literal allowlist", score_diff(generated.literal_manifest)),
        ]
    return [
        *chosen,
        Command("Python start-up", python("pass")),
        Command("Python start-up + import", python(RUNTIME_IMPORTS)),
    ]


class Measured(NamedTuple):
    """Per command: wall seconds of each timed run, peak RSS in KiB, CPU seconds of each timed run."""

    seconds: dict[str, list[float]]
    peak_kb: dict[str, int]
    cpu: dict[str, list[float]]


def bench_size(
    tools: Tools, generated: generate.Generated, env: dict[str, str], runs: int, literal: bool, cold: bool = False
) -> Measured:
    """A warm-up round that measures memory, then `runs` timed rounds, round-robin."""
    chosen = commands(tools, generated, env, literal, cold)
    warm = {c.name: c.run(True) for c in chosen}
    seconds: dict[str, list[float]] = {c.name: [] for c in chosen}
    cpu: dict[str, list[float]] = {c.name: [] for c in chosen}
    timed_peak = dict.fromkeys(seconds, 0)
    for round_ in range(runs):
        for command in chosen:
            sample = command.run(False)
            seconds[command.name].append(sample.seconds)
            cpu[command.name].append(sample.cpu)
            timed_peak[command.name] = max(timed_peak[command.name], sample.max_rss_kb)
        print(f"  round {round_ + 1}/{runs} done", file=sys.stderr)
    peaks = {name: s.max_rss_kb for name, s in warm.items()} if GNU_TIME else timed_peak
    return Measured(seconds, peaks, cpu)


def envelope_cost(tools: Tools, generated: generate.Generated, env: dict[str, str], runs: int) -> str:
    """The required test's envelope (launcher, namespace, Landlock, observer) per test run: the same
    score-diff run with a trivial required test, with the envelope and with test_envelope off,
    interleaved in one run so that both see the same load. The test's own time is the report's
    test.duration_s (start to reap, launcher included), apart from the checkouts around it."""
    base = json.loads(generated.manifest.read_text(encoding="utf-8"))
    base["required_test"] = [tools.python, "-c", "pass"]
    with tempfile.TemporaryDirectory(prefix="score-diff-bench-envelope-") as tmp:
        argvs, report = {}, Path(tmp, "report.json")
        for policy in ("auto", "off"):
            path = Path(tmp, f"{policy}.json")
            path.write_text(json.dumps({**base, "test_envelope": policy}), encoding="utf-8")
            argvs[policy] = [tools.score_diff, "--manifest", str(path), "--repo", str(generated.repo)]
            argvs[policy] += ["--format", "json", "--output", str(report), "--format", "text"]
        wall: dict[str, list[float]] = {"auto": [], "off": []}
        test: dict[str, list[float]] = {"auto": [], "off": []}
        for round_ in range(runs + 1):  # the first round warms up
            for policy, argv in argvs.items():
                sample = must_succeed(f"score-diff, test_envelope {policy}", execute(argv, env), "RESULT: PASS")
                if round_:
                    wall[policy].append(sample.seconds * 1000)
                    test[policy].append(json.loads(report.read_text(encoding="utf-8"))["test"]["duration_s"] * 1000)
    med = {k: {p: statistics.median(v[p]) for p in v} for k, v in (("wall", wall), ("test", test))}
    return (
        f"### The required test's envelope ({generated.info['size']['name']}, `python -c pass` as the test, "
        f"{runs} interleaved runs each; medians)\n\n"
        f"| | in its envelope | `test_envelope: off` | the envelope's cost |\n| --- | ---: | ---: | ---: |\n"
        + "\n".join(
            f"| {label} | {med[k]['auto']:.0f} ms | {med[k]['off']:.0f} ms | {med[k]['auto'] - med[k]['off']:.0f} ms |"
            for k, label in (("test", "the test run (report's duration_s)"), ("wall", "the whole score-diff run"))
        )
    )


# --- report --------------------------------------------------------------------

FLOOR, IMPORT = "git floor", "Python start-up + import"


def _table(header: Sequence[str], rows: list[list[str]]) -> str:
    align = ["---"] + ["---:"] * (len(header) - 1)
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _shape(info: dict[str, Any]) -> str:
    return (
        f"{info['size']['name']} ({info['size']['files']:,} files, "
        f"{info['status_entries']:,} changed, {info['changed_lines']:,} lines)"
    )


def _timing_rows(generated: generate.Generated, ms: dict[str, float]) -> list[list[str]]:
    design = ms[IMPORT] + ms[FLOOR]
    literal = f"literal, {len(generated.info['touched_paths']):,} paths"
    rows: list[list[str]] = []
    for label, suffix in (("`**`", ""), ("`**`, cold cache", ", cold cache"), (literal, ", literal allowlist")):
        if "score-diff" + suffix in ms:
            sd, naive = ms["score-diff" + suffix], ms["naive" + suffix.replace(", cold cache", "")]
            rows.append(
                [
                    _shape(generated.info) if not rows else "",
                    label,
                    f"{ms[FLOOR]:.0f}",
                    f"{design:.0f}",
                    f"{naive:.0f}",
                    f"{sd:.0f}",
                    f"{sd / ms[FLOOR]:.2f}x",
                    f"{sd / design:.2f}x",
                    f"{sd / naive:.2f}x",
                ]
            )
    return rows


def report(results: dict[str, tuple[generate.Generated, Measured]]) -> str:
    """Markdown: medians and ratios, the start-up line, peak memory, every command."""
    timing, memory, detail, startup = [], [], [], []
    for size, (generated, measured) in results.items():
        ms = {name: statistics.median(s) * 1000 for name, s in measured.seconds.items()}
        timing += _timing_rows(generated, ms)
        programs = [n for n in measured.peak_kb if "Python" not in n]
        memory.append([size, *(f"{measured.peak_kb[n] / 1024:.0f}" for n in programs)])
        for name, seconds in measured.seconds.items():
            detail.append(
                [
                    size,
                    name,
                    str(len(seconds)),
                    f"{ms[name]:.1f}",
                    f"{min(seconds) * 1000:.1f}",
                    f"{max(seconds) * 1000:.1f}",
                    f"{statistics.median(measured.cpu[name]) * 1000:.1f}" if measured.cpu.get(name) else "?",
                    f"{measured.peak_kb[name] / 1024:.1f}",
                ]
            )
        startup.append(f"{size}: {ms[IMPORT]:.0f} ms (bare start-up {ms['Python start-up']:.0f} ms)")
    source = "/usr/bin/time -f %M, warm-up round" if GNU_TIME else "os.wait4, INFLATED by the harness RSS"
    return "\n\n".join(
        [
            "### Median wall time (ms) and ratios",
            _table(
                [
                    "size",
                    "allowed_paths",
                    FLOOR,
                    "design floor",
                    "naive",
                    "score-diff",
                    "score-diff / floor",
                    "score-diff / design floor",
                    "score-diff / naive",
                ],
                timing,
            ),
            f"{IMPORT} (`{RUNTIME_IMPORTS}`), median: " + "; ".join(startup),
            "Targets (not asserted): score-diff / floor <= 1.2x on medium and large; "
            "score-diff / design floor <= 1.15x on small; peak RSS < 120 MB on large.",
            f"### Peak memory (MB; largest single process of each command's tree; {source})",
            _table(["size", *programs], memory),
            "### Every command",
            _table(
                ["size", "command", "runs", "median ms", "min ms", "max ms", "median CPU ms", "peak RSS MB"], detail
            ),
            "CPU: user + sys of the command and every child it waited for (os.wait4); the git floor's "
            "includes the harness's own reading of the untracked files. Load average at the end: "
            + ", ".join(f"{x:.2f}" for x in os.getloadavg()),
        ]
    )


def _output(argv: Sequence[str], cwd: str | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "?"


def machine(tools: Tools) -> str:
    """One paragraph: the machine, the versions, and which score-diff source was measured."""
    python_version = _output([tools.python, "-c", "import sys; print(sys.version.split()[0])"])
    source = _output([tools.python, "-c", "import os, scorer; print(os.path.dirname(scorer.__file__))"])
    commit = _output([tools.git, "log", "-1", "--format=%h"], cwd=source) if source != "?" else "?"
    dirty = _output([tools.git, "status", "--porcelain", "--", "."], cwd=source) if commit != "?" else ""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"Machine: {platform.system()} {platform.release()}, nproc {os.cpu_count()}, "
        f"Python {python_version}, {_output([tools.git, '--version'])}, load average at start {load}\n"
        f"score-diff: {tools.score_diff} ({_output([tools.score_diff, '--version'])}; "
        f"source {source} at commit {commit}{' with uncommitted changes' if dirty else ''})"
    )


# --- profile -------------------------------------------------------------------


def profile(generated: generate.Generated, env: dict[str, str], top: int = 15) -> None:
    """Run scorer.main.main in-process under cProfile once; print the top entries."""
    try:
        from scorer import main as cli
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from scorer import main as cli
    argv = ["--skip-test", "--manifest", str(generated.manifest), "--repo", str(generated.repo)]
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # the git children the scorer spawns see the pinned config
    profiler = cProfile.Profile()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            code = profiler.runcall(cli.main, argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if code != 0:
        raise SystemExit(f"score-diff returned {code} under the profiler; expected 0 (PASS)")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


# --- main ----------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=[*generate.SIZES, "all"], default="small")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=generate.DEFAULT_SEED)
    parser.add_argument("--cache-dir", type=Path, default=generate.DEFAULT_CACHE)
    parser.add_argument("--no-literal", action="store_true", help="skip the literal-allowlist variants")
    parser.add_argument("--profile", action="store_true", help="profile score-diff once instead of timing")
    parser.add_argument("--json", type=Path, help="also write every sample to this file")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SCRIPT",
        help="another build's score-diff console script, timed in the same rounds (before/after)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also time score-diff with the checks' kept results emptied before each run (the first scoring)",
    )
    parser.add_argument(
        "--envelope", action="store_true", help="also time the required test's envelope against test_envelope off"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    sizes = list(generate.SIZES) if args.size == "all" else [args.size]
    home = tempfile.mkdtemp(prefix="score-diff-bench-home-")
    try:
        env = generate.git_env(home)
        # As users run it: installed packages have their bytecode cached. A session that sets
        # PYTHONDONTWRITEBYTECODE would make score-diff recompile its own modules on every run
        # (its dependencies were byte-compiled by pip at install), which no user pays.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.profile:
            for size in sizes:
                profile(generate.ensure(generate.SIZES[size], args.seed, args.cache_dir), env)
            return 0
        return run_benchmark(args, sizes, env)
    except Failed as failure:
        print(f"BENCHMARK ABORTED: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_benchmark(args: argparse.Namespace, sizes: list[str], env: dict[str, str]) -> int:
    tools = find_tools()
    if args.baseline is not None:
        tools = tools._replace(baseline=str(args.baseline.resolve()))
    header = machine(tools)
    results = {}
    for size in sizes:
        generated = generate.ensure(generate.SIZES[size], args.seed, args.cache_dir)
        generate.check_unchanged(generated)
        print(f"{size}: {generated.repo}", file=sys.stderr)
        results[size] = (generated, bench_size(tools, generated, env, args.runs, not args.no_literal, args.cold))
        generate.check_unchanged(generated)  # a scorer that writes to the repo skews later runs
    print(header + "\n\n" + report(results))
    if args.envelope:
        for generated, _ in results.values():
            print("\n" + envelope_cost(tools, generated, env, args.runs))
    if args.json:
        raw = {size: measured._asdict() for size, (_, measured) in results.items()}
        args.json.write_text(json.dumps({"machine": header, "results": raw}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
