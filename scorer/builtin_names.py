"""The built-in names a manifest may turn off, each by its exact name: detector ids and the
cheat checks' names (`disabled_detectors`) and sensitive categories (`sensitive_exempt`).

Plain data, below both manifest/ and checks/: loading a manifest checks the names without
building the detector and sensitive tables (tens of ms on every commit and tool call).
tests/test_builtin_names.py holds these sets to the tables they name.
"""

from __future__ import annotations

DETECTOR_IDS: frozenset[str] = frozenset(
    {
        "anthropic-key",
        "aws-access-key-id",
        "aws-secret-access-key",
        "azure-storage-key",
        "chmod-777",
        "connection-string-password",
        "curl-pipe-shell",
        "datadog-key",
        "github-fine-grained-pat",
        "github-token",
        "gitlab-token",
        "google-api-key",
        "google-oauth-client-secret",
        "heroku-api-key",
        "jwt",
        "npm-token",
        "openai-key",
        "private-key-block",
        "pypi-token",
        "secret-assignment",
        "sendgrid-api-key",
        "shell-exec-remote",
        "shell-profile-write",
        "slack-app-token",
        "slack-token",
        "slack-webhook",
        "ssh-config-write",
        "stripe-live-key",
        "stripe-webhook-secret",
        "twilio-api-key",
        "twilio-auth-token",
        "url-password",
    }
)

# The checks of source written to fool the tests (scorer/checks/cheats.py), by code; call-stack-read
# is the warning.
CHEAT_IDS: frozenset[str] = frozenset(
    {"test-runner-detected", "constant-equality", "special-cased-input", "call-stack-read"}
)

SENSITIVE_CATEGORIES: frozenset[str] = frozenset(
    {
        "auth",
        "billing",
        "build",
        "ci",
        "dev-environment",
        "env",
        "gate-config",
        "infra",
        "k8s",
        "lockfile",
        "migration",
        "package-manager",
        "payments",
        "permissions",
        "rbac",
        "schema",
        "security",
        "sql",
    }
)
