"""`score-diff serve`: the guard as a sidecar on 127.0.0.1; POST a hook payload to /score?agent=NAME."""

from __future__ import annotations

import argparse

from ..context import Context

HELP = "the guard as a loopback HTTP sidecar: POST /score?agent=NAME"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..guard.serve import DEFAULT_PORT, LOOPBACK

    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port on {LOOPBACK} (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument("--bind", default=LOOPBACK, help=f"only {LOOPBACK} (or localhost) is accepted")
    p.add_argument(
        "--manifest",
        help="job manifest (default: $SCORE_DIFF_MANIFEST, then job_manifest.json at each repository's root)",
    )
    p.add_argument("--shadow", action="store_true", help="allow everything; log what would have been blocked or asked")
    p.add_argument("--log-db", metavar="PATH", help="decision log (default: <git dir>/score-diff/decisions.sqlite3)")
    p.add_argument("--no-log", action="store_true", help="do not log decisions")


def make_server(args: argparse.Namespace, ctx: Context) -> object:
    from ..guard.run import Options
    from ..guard.serve import GuardServer, check_bind

    check_bind(args.bind)
    opts = Options(
        agent="claude", manifest=args.manifest, cwd=ctx.cwd, shadow=args.shadow, log=not args.no_log, log_db=args.log_db
    )
    return GuardServer(args.port, ctx.environ, opts)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..guard.serve import LOOPBACK, GuardServer

    try:
        server = make_server(args, ctx)
    except (ValueError, OSError) as exc:
        ctx.stdout.write(f"score-diff serve: {exc}\n")
        return 2
    assert isinstance(server, GuardServer)
    ctx.stdout.write(f"score-diff serve: listening on http://{LOOPBACK}:{server.server_address[1]}/score?agent=NAME\n")
    ctx.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
