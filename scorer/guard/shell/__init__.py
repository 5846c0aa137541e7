"""What a shell command would write, read from a real bash parse the way bash and each program read it.

    base.py          the contract: `Args`, `Stdin`, `Unknown`, and `ShellWalk`, what a program handler may use
    walker.py        the bash half: the tree-sitter walk (`CommandWalker`) and `analyse`
    programs.py      the one table of programs: a program is one row, name -> handler
    runners.py       shells, env, sudo, xargs and the other programs that run a command, and cd
    interpreters.py  python, node, perl, awk and kin given code inline or on stdin
    writers.py       coreutils' writers, sed, find, apply_patch
    gitcmd.py        git's command line
    fetchers.py      patch, tar, unzip, curl, wget: writes named by their input or a server
    options.py       the GNU getopt_long grammars the handlers read options with

Imports run one way: walker -> programs -> handler modules -> options -> base.
"""

from .walker import ShellFacts, analyse

__all__ = ["ShellFacts", "analyse"]
