"""The built-in blast-radius table and `classify`: what must and must not be flagged."""

from __future__ import annotations

import collections
import random
from pathlib import Path

import pytest

from scorer.checks.sensitive import CATEGORIES, MANIFEST_CATEGORY, SENSITIVE, _index, classify, clean_path
from tests.testing import sensitive_reference

FLAGGED = [
    # gate-config
    ("job_manifest.json", "gate-config"),
    ("jobs/42/job_manifest.json", "gate-config"),
    (".pre-commit-config.yaml", "gate-config"),
    (".pre-commit-hooks.yaml", "gate-config"),
    (".gitattributes", "gate-config"),
    ("src/.gitignore", "gate-config"),
    (".gitignore", "gate-config"),
    ("job_manifest.json.sha256", "gate-config"),
    ("pins/manifest.SHA256", "gate-config"),
    (".gitmodules", "gate-config"),
    (".github/CODEOWNERS", "gate-config"),
    # env
    (".env", "env"),
    (".env.production", "env"),
    ("services/api/.env.local", "env"),
    (".env.example", "env"),
    (".envrc", "env"),
    # package-manager
    (".npmrc", "package-manager"),
    ("web/.yarnrc.yml", "package-manager"),
    (".pnpmfile.cjs", "package-manager"),
    # dev-environment
    (".devcontainer/devcontainer.json", "dev-environment"),
    (".devcontainer.json", "dev-environment"),
    (".mcp.json", "dev-environment"),
    (".ENV", "env"),
    # migration
    ("migrations/0042_add_users_index.sql", "migration"),
    ("app/users/migrations/0001_initial.py", "migration"),
    ("migration/V1__init.sql", "migration"),
    ("alembic/versions/abc123_add.py", "migration"),
    ("db/migrate/20240101_create_users.rb", "migration"),
    ("Migrations/2024/Init.cs", "migration"),
    ("alembic.ini", "migration"),
    ("migrations/README.md", "migration"),  # path patterns apply to documentation too
    ("services/api/migrations", "migration"),  # a symlink or submodule named like the directory
    # schema
    ("prisma/schema.prisma", "schema"),
    ("prisma/schema/users.prisma", "schema"),
    ("db/schema.sql", "schema"),
    ("api/schema.graphql", "schema"),
    ("schemas/job_manifest.schema.json", "schema"),
    # sql
    ("queries/report.sql", "sql"),
    ("seed.SQL", "sql"),
    ("scripts/cleanup/drop_old.sql", "sql"),
    # ci
    (".github/workflows/ci.yml", "ci"),
    (".github/actions/setup/action.yml", "ci"),
    (".gitlab-ci.yml", "ci"),
    ("Jenkinsfile", "ci"),
    ("ci/Jenkinsfile", "ci"),
    (".circleci/config.yml", "ci"),
    ("azure-pipelines.yml", "ci"),
    (".buildkite/pipeline.yml", "ci"),
    (".travis.yml", "ci"),
    ("bitbucket-pipelines.yml", "ci"),
    (".GitHub/Workflows/release.yaml", "ci"),
    # build
    ("Dockerfile", "build"),
    ("docker/Dockerfile.prod", "build"),
    ("images/api.dockerfile", "build"),
    ("docker-compose.yml", "build"),
    ("docker-compose.override.yaml", "build"),
    ("compose.yaml", "build"),
    ("Makefile", "build"),
    ("src/makefile", "build"),
    ("GNUmakefile", "build"),
    ("build/rules.mk", "build"),
    (".dockerignore", "build"),
    # lockfile
    ("package-lock.json", "lockfile"),
    ("web/yarn.lock", "lockfile"),
    ("pnpm-lock.yaml", "lockfile"),
    ("poetry.lock", "lockfile"),
    ("uv.lock", "lockfile"),
    ("Pipfile.lock", "lockfile"),
    ("Cargo.lock", "lockfile"),
    ("go.sum", "lockfile"),
    ("Gemfile.lock", "lockfile"),
    ("composer.lock", "lockfile"),
    ("npm-shrinkwrap.json", "lockfile"),
    # infra
    ("terraform/main.tf", "infra"),
    ("deploy/terraform/modules/vpc/variables.yaml", "infra"),
    ("modules/vpc/main.tf", "infra"),
    ("infra/stack.ts", "infra"),
    ("infrastructure/network.py", "infra"),
    ("envs/prod.tfvars", "infra"),
    ("stack.tf.json", "infra"),
    ("live/terragrunt.hcl", "infra"),
    # k8s
    ("k8s/deployment.yaml", "k8s"),
    ("deploy/kubernetes/service.yaml", "k8s"),
    ("ops/helm/values.yaml", "k8s"),
    ("charts/api/templates/deployment.yaml", "k8s"),
    ("deploy/api/Chart.yaml", "k8s"),
    ("overlays/prod/kustomization.yaml", "k8s"),
    # auth
    ("auth.py", "auth"),
    ("src/auth/session.ts", "auth"),
    ("src/Auth/Session.ts", "auth"),
    ("app/user_auth.py", "auth"),
    ("src/auth.service.ts", "auth"),
    ("src/AuthService.java", "auth"),
    ("src/OAuth2Client.java", "auth"),
    ("lib/oauth_client.py", "auth"),
    ("api/authorization/policy.go", "auth"),
    ("src/auth/README.txt", "auth"),
    ("tests/test_auth.py", "auth"),
    # billing
    ("billing/invoice.py", "billing"),
    ("src/billing.rs", "billing"),
    ("services/billing-api/main.go", "billing"),
    ("src/BillingService.cs", "billing"),
    # payments
    ("payment.go", "payments"),
    ("src/payments/stripe.ts", "payments"),
    ("app/components/PaymentForm.tsx", "payments"),
    ("lib/payment_gateway.rb", "payments"),
    # permissions
    ("permissions.py", "permissions"),
    ("src/permissions/check.ts", "permissions"),
    ("app/user-permission.js", "permissions"),
    ("core/Permission.java", "permissions"),
    # rbac
    ("rbac.py", "rbac"),
    ("src/rbac/roles.ts", "rbac"),
    ("config/rbac_rules.yaml", "rbac"),
    # security
    ("security.py", "security"),
    ("src/security/csrf.ts", "security"),
    ("config/security-headers.json", "security"),
    ("SecurityConfig.java", "security"),
]

NOT_FLAGGED = [
    "src/author.ts",
    "authoring/guide.md",
    "src/getAuthor.ts",
    "src/authors/list.py",
    "src/auth0_widget.js",  # a vendor name, not the word "auth"
    "oauth_client_docs.md",  # documentation is not code
    "docs/auth.md",
    "docs/security/threat-model.md",
    "SECURITY.md",
    "migrations_guide.md",
    "docs/migrations.md",
    "src/migrator.py",
    "docs/makefile-tips.md",
    "src/make.py",
    "src/envelope.py",
    "environment.py",
    "src/env.py",
    "config/env/settings.py",
    "infrastructure_notes.md",
    "src/infra/repository.py",  # generic layer names only count at the root
    "src/Infrastructure/Persistence/Db.cs",
    "src/components/charts/BarChart.tsx",
    "docs/dockerfile-guide.md",
    "docker-compose-notes.md",
    "package.json",
    "requirements.txt",
    "pyproject.toml",
    "src/schema_utils.py",
    "schemas/README.md",
    "src/sqlite_store.py",
    "tests/fixtures/lock.json",
    "README.md",
    "src/app.py",
    "github/workflows.md",
    ".github/ISSUE_TEMPLATE/bug.md",
    "src/securityish.py",
    "payroll/run.py",
    "src/permissive.py",
]


@pytest.mark.parametrize(("path", "category"), FLAGGED)
def test_flagged(path: str, category: str) -> None:
    hit = classify(path)
    assert hit is not None, path
    assert hit.category == category
    assert hit.reason


@pytest.mark.parametrize("path", NOT_FLAGGED)
def test_not_flagged(path: str) -> None:
    assert classify(path) is None


def test_every_category_has_three_flagged_cases() -> None:
    counts = collections.Counter(category for _, category in FLAGGED)
    assert {c for c in CATEGORIES if counts[c] < 3} == set()


@pytest.mark.parametrize(
    ("path", "category"),
    [
        ("src\\auth\\session.ts", "auth"),
        ("migrations\\0042.sql", "migration"),
        (".github\\workflows\\ci.yml", "ci"),
        ("deploy\\Dockerfile", "build"),
        (".\\k8s\\svc.yaml", "k8s"),
        ("./infra/main.ts", "infra"),
        ("/charts/x/values.yaml", "k8s"),
        ("Makefile.", "build"),  # Windows strips trailing dots and spaces
        ("migrations. /0001.py", "migration"),
        (".env ", "env"),
    ],
)
def test_windows_separators_and_prefixes(path: str, category: str) -> None:
    hit = classify(path)
    assert hit is not None and hit.category == category


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\\b\\c.py", "a/b/c.py"),
        ("./a/b", "a/b"),
        ("/a//b/./c", "a/b/c"),
        (".", ""),
    ],
)
def test_normalize_path(raw: str, expected: str) -> None:
    assert clean_path(raw) == expected


def test_first_matching_category_reports() -> None:
    hit = classify("migrations/0042.sql")
    assert hit is not None and (hit.category, hit.pattern) == ("migration", "migrations/")


@pytest.mark.parametrize(
    ("path", "exempt", "category"),
    [
        ("Makefile", {"build"}, None),
        ("src/auth/session.ts", {"auth"}, None),
        ("src/auth/session.ts", {"build"}, "auth"),
        ("migrations/0042.sql", {"migration"}, "sql"),  # another category still holds it
        ("migrations/0042.sql", {"migration", "sql"}, None),
        ("db/schema.sql", {"schema"}, "sql"),
        (".env", {"env"}, None),
        (".gitignore", {"gate-config"}, None),
    ],
)
def test_exempt(path: str, exempt: set[str], category: str | None) -> None:
    hit = classify(path, exempt=frozenset(exempt))
    assert (hit.category if hit else None) == category


def test_exempt_unknown_category_raises() -> None:
    with pytest.raises(ValueError, match="makefiles"):
        classify("Makefile", exempt=frozenset({"makefiles"}))
    with pytest.raises(ValueError, match=MANIFEST_CATEGORY):
        classify("Makefile", exempt=frozenset({MANIFEST_CATEGORY}))


@pytest.mark.parametrize(
    ("path", "globs", "pattern"),
    [
        ("setup.py", ["setup.py"], "setup.py"),
        ("pkg/setup.py", ["setup.py"], None),  # anchored at the root
        ("pkg/setup.py", ["**/setup.py"], "**/setup.py"),
        ("setup.py", ["**/setup.py"], "**/setup.py"),
        ("SETUP.PY", ["setup.py"], "setup.py"),  # case-insensitive like the table
        ("setup.py", ["Setup.Py"], "Setup.Py"),
        ("src\\conftest.py", ["src/conftest.py"], "src/conftest.py"),
        ("config/prod/app.ini", ["config/*"], "config/*"),  # a matched directory covers its contents
        ("secrets/a/b.txt", ["secrets/"], "secrets/"),
        ("secrets", ["secrets/"], None),  # a file, not the directory
        ("src/app.py", ["setup.py", "**/conftest.py"], None),
        ("tests/conftest.py", ["setup.py", "**/conftest.py"], "**/conftest.py"),
        ("src/app.py", ["", "  "], None),
    ],
)
def test_extra_globs(path: str, globs: list[str], pattern: str | None) -> None:
    hit = classify(path, extra_globs=globs)
    if pattern is None:
        assert hit is None
    else:
        assert hit is not None and (hit.category, hit.pattern) == (MANIFEST_CATEGORY, pattern)


def test_extra_globs_apply_when_builtin_exempt() -> None:
    hit = classify(
        ".github/workflows/deploy.yml", extra_globs=[".github/workflows/deploy.yml"], exempt=frozenset({"ci"})
    )
    assert hit is not None and hit.category == MANIFEST_CATEGORY
    assert (
        classify(
            ".github/workflows/other.yml",
            extra_globs=[".github/workflows/deploy.yml"],
            exempt=frozenset({"ci"}),
        )
        is None
    )


def test_builtin_wins_over_extra_glob() -> None:
    hit = classify("Makefile", extra_globs=["Makefile"])
    assert hit is not None and hit.category == "build"


@pytest.mark.parametrize(
    ("path", "manifest_path", "flagged"),
    [
        ("jobs/fix-login.json", "jobs/fix-login.json", True),
        ("jobs\\fix-login.json", "./jobs/fix-login.json", True),
        ("JOBS/Fix-Login.json", "jobs/fix-login.json", True),
        ("jobs/other.json", "jobs/fix-login.json", False),
        ("jobs/fix-login.json", None, False),
        ("jobs/fix-login.json.sha256", "jobs/fix-login.json", True),
    ],
)
def test_manifest_path(path: str, manifest_path: str | None, flagged: bool) -> None:
    hit = classify(path, manifest_path=manifest_path)
    assert (hit is not None and hit.category == "gate-config") is flagged


def test_categories_are_stable_ids() -> None:
    assert {
        "gate-config",
        "env",
        "migration",
        "schema",
        "sql",
        "ci",
        "build",
        "lockfile",
        "package-manager",
        "dev-environment",
        "infra",
        "k8s",
        "auth",
        "billing",
        "payments",
        "permissions",
        "rbac",
        "security",
    } == CATEGORIES
    assert len(CATEGORIES) == len(SENSITIVE)


def test_docs_list_every_category_and_pattern() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs/blast-radius.md").read_text(encoding="utf-8")
    missing = [
        item
        for rule in SENSITIVE
        for item in (f"`{rule.category}`", *(f"`{p}`" for p in (*rule.patterns, *rule.words)))
        if item not in doc
    ]
    assert missing == []


def test_a_directory_names_the_rules_it_named_before_parents_were_shared() -> None:
    """`_Index._directory` builds on its parent's cached answer (issue 29); held to the copy that
    looked at every segment (tests/testing/sensitive_reference.py) on random directories made of
    the table's own names and words, in every casing, joined and camel-cased."""
    index = _index()
    words = [*index.root_dirs, *index.dirs, *index.words, *(w for want, _ in index.multi_dirs for w in want)]
    words += ["src", "lib", "x", "", "."]
    rng = random.Random(29)

    def segment() -> str:
        parts = [rng.choice(words) for _ in range(rng.randrange(1, 3))]
        text = rng.choice(["", "_", "-", "."]).join(parts)
        return rng.choice([text, text.upper(), text.title(), text.capitalize()])

    for _ in range(5000):
        dirs = tuple(segment() for _ in range(rng.randrange(1, 6)))
        assert index._directory(dirs) == sensitive_reference.directory(dirs), dirs
