"""`score-diff update REF OLD NEW`: the server hook run once per ref; non-zero rejects that ref alone.

git runs `hooks/update` with the ref name, the old and the new object id (githooks(5)); unlike
pre-receive, a rejection here refuses only this ref, and the push's other refs go through.
"""

from __future__ import annotations

import argparse

from ..context import Context
from . import pre_receive

HELP = "server hook (update): score one pushed agent ref given as REF OLD NEW; non-zero rejects it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    pre_receive.add_arguments(p)
    p.add_argument("ref", metavar="REF", help="the full ref name git passes first")
    p.add_argument("old", metavar="OLD", help="the ref's old object id (all zeros: a new ref)")
    p.add_argument("new", metavar="NEW", help="the ref's new object id (all zeros: a deletion)")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..server import parse_update

    return pre_receive.enforce([parse_update(args.old, args.new, args.ref)], args, ctx)
