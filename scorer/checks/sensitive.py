"""Blast-radius paths: the built-in table of sensitive paths and `classify`.

Long because the table is long: every category with its patterns and the reason it is sensitive.

Pure logic: paths in, a `SensitiveHit` (or None) out. Matching works on path
segments, case-insensitively, after `\\` is turned into `/`. Pattern forms in
`SensitiveRule.patterns` (see docs/blast-radius.md, "The built-in table"):

- `name/` or `a/b/`: directory segment(s) at any depth; the entry itself
  counts too, so a symlink or submodule named `migrations` matches.
- `/name/`: a directory at the repository root only (generic words that are
  also common names of code layers, such as `infra/` or `charts/`).
- `name` or `*.ext`: the file name (last segment) at any depth, as an
  fnmatch pattern.

`SensitiveRule.words` are name tokens: a directory segment or the file name
(less its extension) is split on `_`, `-`, `.` and lower-to-upper camelCase
boundaries, and any token equal to a word matches. Documentation files
(`.md`, `.markdown`, `.rst`, `.adoc`) are not code and never match by word.
"""

from __future__ import annotations

from ..manifest.globs import PathMatcher
from ..memo import memoised
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Sequence

MANIFEST_CATEGORY = "manifest"  # hits from the manifest's sensitive_globs
DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".adoc"})


class SensitiveRule(NamedTuple):
    """One built-in category of blast-radius paths."""

    category: str
    patterns: tuple[str, ...]
    reason: str
    words: tuple[str, ...] = ()


class SensitiveHit(NamedTuple):
    """Why a path is sensitive: the category, its reason, and what matched."""

    category: str
    reason: str
    pattern: str


GATE_CONFIG = "gate-config"

# Order matters only for which category a path reports when several match
# (`migrations/1.sql` is `migration`, not `sql`); exempting one category
# never un-flags a path that another category still matches.
SENSITIVE: tuple[SensitiveRule, ...] = (
    SensitiveRule(
        GATE_CONFIG,
        (
            "job_manifest.json",
            ".pre-commit-config.yaml",
            ".pre-commit-hooks.yaml",
            ".gitattributes",
            ".gitignore",
            ".gitmodules",
            "CODEOWNERS",
            "*.sha256",
            # The agents' own hook configuration: an agent must not switch its guard off.
            ".claude/",
            ".codex/",
            ".cursor/",
            ".gemini/",
            ".github/hooks/",
            ".github/copilot/",  # Copilot's repository settings: inline hooks and disableAllHooks
        ),
        "configures the gate itself: the job manifest, its pin, hooks (git's or the agents'), or what git sees",
    ),
    SensitiveRule(
        "env",
        (".env", ".env.*", ".envrc"),
        "environment files hold secrets and settings; .envrc is executed by direnv",
    ),
    SensitiveRule(
        "migration",
        ("migrations/", "migration/", "alembic/", "db/migrate/", "alembic.ini"),
        "database migrations change live data and are hard to undo",
    ),
    SensitiveRule(
        "schema",
        ("schema.prisma", "*.prisma", "schema.sql", "schema.graphql", "*.schema.json"),
        "schemas define data and API contracts other code depends on",
    ),
    SensitiveRule("sql", ("*.sql",), "raw SQL can change or destroy data"),
    SensitiveRule(
        "ci",
        (
            ".github/workflows/",
            ".github/actions/",
            ".circleci/",
            ".buildkite/",
            ".gitlab-ci.yml",
            "Jenkinsfile",
            "azure-pipelines.yml",
            ".travis.yml",
            "bitbucket-pipelines.yml",
        ),
        "CI runs with repository secrets and decides what ships",
    ),
    SensitiveRule(
        "build",
        (
            "Dockerfile",
            "Dockerfile.*",
            "*.dockerfile",
            ".dockerignore",
            "docker-compose*.yml",
            "docker-compose*.yaml",
            "compose.yaml",
            "compose.yml",
            "Makefile",
            "GNUmakefile",
            "*.mk",
            "Containerfile",
            "Containerfile.*",
            "*.containerfile",
        ),
        "build files decide what is built, run and shipped",
    ),
    SensitiveRule(
        "lockfile",
        (
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "bun.lock",
            "bun.lockb",
            "poetry.lock",
            "uv.lock",
            "Pipfile.lock",
            "Cargo.lock",
            "go.sum",
            "Gemfile.lock",
            "composer.lock",
        ),
        "lockfiles pin exactly which third-party code runs",
    ),
    SensitiveRule(
        "package-manager",
        (".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"),
        "package manager settings hold registry credentials and can run code (yarnPath, pnpmfile hooks)",
    ),
    SensitiveRule(
        "dev-environment",
        (".devcontainer/", ".devcontainer.json", ".mcp.json"),
        "runs commands on the machine of whoever opens the repository: dev container lifecycle commands, "
        "an agent's MCP servers",
    ),
    SensitiveRule(
        "infra",
        ("terraform/", "/infra/", "/infrastructure/", "*.tf", "*.tf.json", "*.tfvars", "terragrunt.hcl"),
        "infrastructure as code changes real cloud resources",
    ),
    SensitiveRule(
        "k8s",
        (
            "k8s/",
            "kubernetes/",
            "helm/",
            "/charts/",
            "Chart.yaml",
            "Chart.lock",
            "kustomization.yaml",
            "kustomization.yml",
        ),
        "cluster manifests change what runs in production",
    ),
    SensitiveRule(
        "auth",
        (),
        "authentication and authorization code guards every account",
        ("auth", "authn", "authz", "authentication", "authorization", "authorisation", "oauth", "oauth2"),
    ),
    SensitiveRule("billing", (), "billing code moves money", ("billing",)),
    SensitiveRule("payments", (), "payment code moves money", ("payment", "payments")),
    SensitiveRule("permissions", (), "permission code decides who may do what", ("permission", "permissions")),
    SensitiveRule("rbac", (), "role-based access control decides who may do what", ("rbac",)),
    SensitiveRule("security", (), "security code and policy protect everything else", ("security",)),
)

CATEGORIES: frozenset[str] = frozenset(rule.category for rule in SENSITIVE)

# Name tokens end at `-`, `_`, `.` and whitespace (str.isspace, as re's `\s` reads it), and between an
# ASCII lower-case letter or digit and an ASCII capital: the split of `[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])`,
# done without re, which a Write would otherwise compile (issue 29; held to the pattern in
# tests/checks/test_sensitive_str_matchers.py).
_SEPARATORS = frozenset("-_.")
_BEFORE_CAPITAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_CAPITALS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _split_tokens(stem: str) -> list[str]:
    """The non-empty pieces of `stem` between separators and camelCase boundaries."""
    pieces, start, previous = [], 0, ""
    for i, c in enumerate(stem):
        if c in _SEPARATORS or c.isspace():
            pieces.append(stem[start:i])
            start = i + 1
        elif c in _CAPITALS and previous in _BEFORE_CAPITAL:
            pieces.append(stem[start:i])
            start = i
        previous = c
    pieces.append(stem[start:])
    return [p for p in pieces if p]


def _glob_prefilter(globs: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(starts, ends): a name that matches one of `globs` starts with one of `starts` or ends with
    one of `ends`. A `*`-only glob gives its text before the first `*`, or if that is empty its text
    after the last; a glob with `?` or `[` gives "", which every name starts with."""
    starts, ends = [], []
    for glob in globs:
        if "?" in glob or "[" in glob:
            starts.append("")
        elif not glob.startswith("*"):
            starts.append(glob.split("*", 1)[0])
        else:
            ends.append(glob.rsplit("*", 1)[1])
    return tuple(starts), tuple(ends)


def glob_matches(name: str, pattern: str) -> bool:
    """`fnmatch.fnmatchcase(name, pattern)`. A pattern with only `*` (every one in the table) is read
    with str tests, so a Write loads neither fnmatch nor re (issue 29); `?` and `[` go to fnmatch."""
    if "?" in pattern or "[" in pattern:
        from fnmatch import fnmatchcase  # a class or `?`: fnmatch's own reading

        return fnmatchcase(name, pattern)
    first, *middle_last = pattern.split("*")
    if not middle_last:
        return name == pattern
    *middle, last = middle_last
    if len(name) < len(first) + len(last) or not (name.startswith(first) and name.endswith(last)):
        return False
    at, end = len(first), len(name) - len(last)
    for part in middle:  # each `*` takes as little as it can: the earliest place of the next part
        found = name.find(part, at, end)
        if found < 0:
            return False
        at = found + len(part)
    return True


def clean_path(path: str) -> str:
    """Repo-relative, `/`-separated, without leading `./` or `/` or empty segments. Unlike
    `globs.normalise_path` it keeps `..`: a path a person wrote is compared as written."""
    parts = path.replace("\\", "/").split("/")
    return "/".join(p for p in parts if p not in ("", "."))


def _name_tokens(name: str, *, is_file: bool) -> set[str]:
    """Lower-case word tokens of one path segment (a file loses its extension)."""
    stem = name.lstrip(".")
    if is_file and "." in stem:
        stem = stem.rsplit(".", 1)[0]
    return {t.lower() for t in _split_tokens(stem)}


def _is_doc(name: str) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in DOC_SUFFIXES


def _match_pattern(pattern: str, segments: Sequence[str]) -> bool:
    """Whether lower-cased `segments` match one table pattern (see module doc)."""
    pat = pattern.lower()
    if pat.startswith("/"):
        return segments[0] == pat.strip("/")
    if pat.endswith("/"):
        want = pat.rstrip("/").split("/")
        n = len(want)
        return any(list(segments[i : i + n]) == want for i in range(len(segments) - n + 1))
    return glob_matches(segments[-1], pat)


def _match_words(words: Sequence[str], segments: Sequence[str]) -> str | None:
    """The first word found as a token of any segment; None for doc files."""
    *dirs, name = segments
    if not words or _is_doc(name):
        return None
    tokens = set().union(*(_name_tokens(s, is_file=False) for s in dirs), _name_tokens(name, is_file=True))
    return next((w for w in words if w in tokens), None)


def _match_rule(rule: SensitiveRule, segments: Sequence[str], cased: Sequence[str]) -> str | None:
    """The pattern (or word) of `rule` that matches, or None."""
    for pattern in rule.patterns:
        if _match_pattern(pattern, segments):
            return pattern
    # Words are tokenised from the original case so camelCase boundaries survive.
    word = _match_words(rule.words, cased)
    return f"{word} (name token)" if word else None


class _Index:
    """The table compiled for lookups by segment, so a 5,000-path change costs milliseconds.

    For each rule it answers the same question `_match_rule` does; `classify` takes the
    first rule (in table order) that any lookup names, then asks `_match_rule` for the
    exact pattern to report.
    """

    def __init__(self) -> None:
        self.root_dirs: dict[str, set[int]] = {}
        self.dirs: dict[str, set[int]] = {}
        self.multi_dirs: list[tuple[list[str], int]] = []
        self.names: dict[str, set[int]] = {}
        self.name_globs: list[tuple[str, int]] = []
        self.words: dict[str, set[int]] = {}
        for i, rule in enumerate(SENSITIVE):
            for pattern in (p.lower() for p in rule.patterns):
                self._add(pattern, i)
            for word in rule.words:
                self.words.setdefault(word, set()).add(i)
        # What a name must start or end with to match any glob, so one C call rules most names out.
        self.glob_starts, self.glob_ends = _glob_prefilter([p for p, _ in self.name_globs])

    def _add(self, pat: str, i: int) -> None:
        if pat.startswith("/"):
            self.root_dirs.setdefault(pat.strip("/"), set()).add(i)
        elif pat.endswith("/"):
            want = pat.rstrip("/").split("/")
            if len(want) == 1:
                self.dirs.setdefault(want[0], set()).add(i)
            else:
                self.multi_dirs.append((want, i))
        elif any(c in pat for c in "*?["):
            self.name_globs.append((pat, i))
        else:
            self.names.setdefault(pat, set()).add(i)

    def candidates(self, segments: Sequence[str], cased: Sequence[str]) -> set[int]:
        found = set(self._directory(tuple(cased[:-1])))
        found |= self.root_dirs.get(segments[0], set())  # a root entry named like a directory
        found |= self.dirs.get(segments[-1], set())  # an entry named like a sensitive directory
        found |= self._sequences(segments)
        name = segments[-1]
        found |= self.names.get(name, set())
        found |= self.globs(name)
        if not _is_doc(cased[-1]):
            for token in _name_tokens(cased[-1], is_file=True) & self.words.keys():
                found |= self.words[token]
        return found

    def globs(self, name: str) -> set[int]:
        """The rules whose file-name globs match `name` (lower-cased)."""
        if not (name.startswith(self.glob_starts) or name.endswith(self.glob_ends)):
            return set()
        return {i for pat, i in self.name_globs if glob_matches(name, pat)}

    def _sequences(self, segments: Sequence[str]) -> set[int]:
        present = set(segments)
        found = set()
        for want, i in self.multi_dirs:
            n = len(want)
            if want[0] in present and any(list(segments[k : k + n]) == want for k in range(len(segments) - n + 1)):
                found.add(i)
        return found

    @memoised(maxsize=8192)  # one index per process, paths share directories
    def _directory(self, dirs: tuple[str, ...]) -> frozenset[int]:
        """Rules the directory part of a path names (cached: 5,000 paths share few directories).

        A union over the segments, the first also looked up as a root: so the parent's answer
        (cached too, and shared by its siblings) plus the last segment's is the whole answer."""
        if not dirs:
            return frozenset()
        last = dirs[-1]
        found = set(self._directory(dirs[:-1]) if len(dirs) > 1 else self.root_dirs.get(last.lower(), ()))
        found |= self.dirs.get(last.lower(), set())
        if self.words:
            for token in _dir_tokens(last) & self.words.keys():
                found |= self.words[token]
        return frozenset(found)


@memoised(maxsize=4096)
def _dir_tokens(segment: str) -> frozenset[str]:
    return frozenset(_name_tokens(segment, is_file=False))


@memoised(maxsize=1)
def _index() -> _Index:
    return _Index()


@memoised(maxsize=256)
def _glob_matcher(glob: str) -> PathMatcher:
    """One manifest glob, lower-cased, with the same anchoring as allowed_paths."""
    return PathMatcher([glob.strip().lower().lstrip("/")])


def _match_globs(globs: Sequence[str], path: str) -> str | None:
    """The first manifest glob that matches `path` (lower-cased), or None."""
    return next((g for g in globs if g.strip() and _glob_matcher(g)(path)), None)


def classify(
    path: str,
    *,
    extra_globs: Sequence[str] = (),
    exempt: frozenset[str] = frozenset(),
    manifest_path: str | None = None,
) -> SensitiveHit | None:
    """Why `path` is a blast-radius path, or None if it is not one.

    Built-in categories named in `exempt` are skipped; `extra_globs` (category
    `manifest`) always apply. Raises ValueError for an unknown exempt name.
    """
    unknown = exempt - CATEGORIES
    if unknown:
        raise ValueError(f"unknown sensitive category: {', '.join(sorted(unknown))}")
    norm = clean_path(path)
    if not norm:
        return None
    # Windows drops trailing dots and spaces, so `Makefile.` there is `Makefile`.
    cased = [s.rstrip(". ") or s for s in norm.split("/")]
    segments = [s.lower() for s in cased]
    if GATE_CONFIG not in exempt and manifest_path and clean_path(manifest_path).lower() == norm.lower():
        return SensitiveHit(GATE_CONFIG, "the job manifest itself", manifest_path)
    for i in sorted(_index().candidates(segments, cased)):
        rule = SENSITIVE[i]
        if rule.category in exempt:
            continue
        pattern = _match_rule(rule, segments, cased)
        if pattern:
            return SensitiveHit(rule.category, rule.reason, pattern)
    glob = _match_globs(extra_globs, norm.lower())
    if glob:
        return SensitiveHit(MANIFEST_CATEGORY, "listed in the manifest's sensitive_globs", glob)
    return None
