"""Generated shell commands for the bash-oracle test (tests/guard/test_shell_oracle.py).

Each command is a real writer aimed at a path, placed in a construct bash reads in its own
way (lists, pipelines, subshells, heredocs, here-strings, runners, cd). The corpus is
deterministic: every writer at every path plainly, then a fixed-seed sample of the rest.
"""

from __future__ import annotations

import random

# {p} is the path written; each writes only there (or reads allowed/a.py).
WRITERS = (
    "tee {p} < /dev/null",
    "echo x > {p}",
    "echo x >> {p}",
    "printf x | tee -a {p}",
    "cp allowed/a.py {p}",
    "cp -t allowed other/b.py",
    "sed -i s/o/0/ {p}",
    "touch {p}",
    "rm -f {p}",
    "mv allowed/a.py {p}",
    "truncate -s 0 {p}",
    "sort -o {p} allowed/a.py",
    "find allowed -name a.py -fprint {p}",
    "ln -sf a.py {p}",
    "install -m 644 allowed/a.py {p}",
    "dd if=allowed/a.py of={p} status=none",
    "git checkout -- {p}",
    "sed -n 'w {p}' allowed/a.py",
    "xargs -n 1 rm -f < list",
    "python3 -c \"open('{p}', 'w').write('x')\"",
)
PATHS = (
    "other/b.py",
    "README.txt",
    "allowed/a.py",
    "allowed/new.py",
    "b.py",
    "a.py",
    "../outside.txt",
    "allowed/../other/b.py",
    "../other/b.py",
)
# {c} is the writer.
CONTEXTS = (
    "{c}",
    "cd allowed && {c}",
    "cd allowed; {c}",
    "true || cd allowed; {c}",
    "false && cd allowed; {c}",
    "(cd allowed); {c}",
    "cd allowed | true; {c}",
    "if true; then cd allowed; fi; {c}",
    "cd allowed && cd .. && {c}",
    "cd other; cd -; {c}",
    "{{ {c}; }}",
    'bash -c "{c}"',
    'sh -c "{c}"',
    'bash -c -e "{c}"',
    'echo "{c}" | bash',
    "bash <<'EOF'\n{c}\nEOF",
    'bash <<< "{c}"',
    "cat <<'EOF' | sh\n{c}\nEOF",
    "env {c}",
    "env -C allowed {c}",
    "env X=1 -- {c}",
    "timeout 5 {c}",
    "nice -n 1 {c}",
    "command {c}",
    'eval "{c}"',
    "true && {c}",
    "{c} || true",
    'cd allowed && bash -c "cd ..; {c}"',
    "pushd allowed > /dev/null && {c}",
    "for i in 1; do {c}; done",
)


def corpus(size: int = 300, seed: int = 19) -> list[str]:
    """`size` distinct commands: every writer and path plainly, then a seeded sample of contexts."""
    plain = [w.format(p=p) for w in WRITERS for p in PATHS]
    plain = list(dict.fromkeys(plain))
    rest = [ctx.format(c=w.format(p=p)) for ctx in CONTEXTS[1:] for w in WRITERS for p in PATHS]
    rest = [c for c in dict.fromkeys(rest) if c not in plain]
    rng = random.Random(seed)
    return plain + rng.sample(rest, max(0, size - len(plain)))
