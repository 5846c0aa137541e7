"""Secrets every detector must find, and lines that hold them, shared by the detector and end-to-end tests."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits


def body(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    """n characters that look random but are the same on every run."""
    rng = random.Random(seed * 1000 + n)
    return "".join(rng.choice(alphabet) for _ in range(n))


UUID = "-".join(body(n, HEX, seed=41) for n in (8, 4, 4, 4, 12))

# (detector id, a line that must fire it, the secret value that must never be shown)
SECRETS = {
    "aws-access-key-id": "AK" + "IA" + body(16, string.ascii_uppercase + string.digits),
    "aws-secret-access-key": body(40, ALNUM + "/+", seed=1),
    "github-token": "gh" + "p_" + body(36),
    "github-fine-grained-pat": "github" + "_pat_" + body(22) + "_" + body(59),
    "gitlab-token": "gl" + "pat-" + body(20, B64URL),
    "npm-token": "np" + "m_" + body(36, seed=2),
    "pypi-token": "py" + "pi-AgEIcHlwaS5vcmc" + body(60, B64URL),
    "anthropic-key": "sk" + "-ant-api03-" + body(93, B64URL) + "AA",
    "openai-key": "sk" + "-proj-" + body(120, B64URL, seed=3),
    "slack-token": "xo" + "xb-" + body(12, string.digits) + "-" + body(13, string.digits) + "-" + body(24),
    "slack-webhook": "https://hooks" + ".slack.com/services/T" + body(8) + "/B" + body(8) + "/" + body(24),
    "google-api-key": "AI" + "za" + body(35, B64URL),
    "stripe-live-key": "sk" + "_live_" + body(24, seed=4),
    "jwt": "ey" + "JhbGciOiJIUzI1NiJ9." + "eyJ" + body(30, B64URL) + "." + body(43, B64URL),
    "url-password": body(16, seed=5),
    "private-key-block": "-----BEGIN " + "RSA PRIVATE KEY-----",
    "connection-string-password": body(18, seed=30),
    "azure-storage-key": body(86, B64, seed=31) + "==",
    "slack-app-token": "xa"
    + "pp-1-A"
    + body(10, UPPER_DIGITS, seed=32)
    + "-"
    + body(13, string.digits)
    + "-"
    + body(64, HEX, seed=32),
    "google-oauth-client-secret": "GOC" + "SPX-" + body(28, B64URL, seed=33),
    "stripe-webhook-secret": "wh" + "sec_" + body(32, seed=34),
    "sendgrid-api-key": "S" + "G." + body(22, B64URL, seed=35) + "." + body(43, B64URL, seed=35),
    "twilio-api-key": "S" + "K" + body(32, HEX, seed=36),
    "twilio-auth-token": body(32, HEX, seed=37),
    "heroku-api-key": "HR" + "KU-" + body(60, B64URL, seed=38),
    "datadog-key": body(32, HEX, seed=39),
    "secret-assignment": body(32, ALNUM + "!#%&*+-=?@^_~", seed=40),
}


SECRET_LINES = [
    ("aws-access-key-id", f"aws_access_key_id = '{SECRETS['aws-access-key-id']}'"),
    ("aws-secret-access-key", f"aws_secret_access_key = {SECRETS['aws-secret-access-key']}"),
    ("aws-secret-access-key", f'"SecretAccessKey": "{SECRETS["aws-secret-access-key"]}",'),
    ("github-token", f"GITHUB_TOKEN={SECRETS['github-token']}"),
    ("github-token", "token: " + "gh" + "s_" + body(36, seed=6)),
    ("github-token", "name=job-" + "gh" + "u_" + body(36, seed=12) + "-suffix"),
    ("github-fine-grained-pat", f"Authorization: Bearer {SECRETS['github-fine-grained-pat']}"),
    ("gitlab-token", f"GITLAB_TOKEN={SECRETS['gitlab-token']}"),
    ("npm-token", f"//registry.npmjs.org/:_authToken={SECRETS['npm-token']}"),
    ("pypi-token", f"password = {SECRETS['pypi-token']}"),
    ("anthropic-key", f"ANTHROPIC_API_KEY={SECRETS['anthropic-key']}"),
    ("openai-key", f"OPENAI_API_KEY={SECRETS['openai-key']}"),
    ("openai-key", "key = 'sk" + "-" + body(48, seed=7) + "'"),
    ("slack-token", f"SLACK_BOT_TOKEN={SECRETS['slack-token']}"),
    ("slack-webhook", f"url: {SECRETS['slack-webhook']}"),
    ("google-api-key", f'const key = "{SECRETS["google-api-key"]}";'),
    ("stripe-live-key", f"STRIPE_KEY={SECRETS['stripe-live-key']}"),
    ("stripe-live-key", "rk" + "_live_" + body(30, seed=8)),
    ("jwt", f"headers = {{'Authorization': 'Bearer {SECRETS['jwt']}'}}"),
    ("url-password", f"DATABASE_URL=postgres://app:{SECRETS['url-password']}@db.internal:5432/app"),
    ("url-password", "git clone https://x-token:" + body(20, seed=9) + "@git.example.org/r.git"),
    ("private-key-block", SECRETS["private-key-block"]),
    ("private-key-block", "-----BEGIN " + "OPENSSH PRIVATE KEY-----"),
    ("private-key-block", 'key = "-----BEGIN ' + "PRIVATE KEY-----\\nMIIEv" + body(60, seed=10) + '"'),
    (
        "connection-string-password",
        f'cs = "Server=db.internal;Database=app;User Id=app;Password={SECRETS["connection-string-password"]};"',
    ),
    ("connection-string-password", f"Driver={{ODBC Driver 18}};Server=db;Uid=app; PWD={body(14, seed=42)};"),
    ("connection-string-password", f"jdbc:sqlserver://db:1433;user=app;password={body(16, seed=43)}"),
    (
        "azure-storage-key",
        "AZURE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        f"{SECRETS['azure-storage-key']};EndpointSuffix=core.windows.net",
    ),
    (
        "azure-storage-key",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey="
        + body(43, B64, seed=44)
        + "=",
    ),
    ("aws-secret-access-key", f'  secret_key = "{SECRETS["aws-secret-access-key"]}"'),  # Terraform provider block
    ("gitlab-token", "token: " + "gl" + "rt-" + body(20, B64URL, seed=45)),
    ("gitlab-token", "gl" + "ptt-" + body(40, HEX, seed=46)),
    ("gitlab-token", "DEPLOY=" + "gl" + "dt-" + body(20, B64URL, seed=47)),
    ("gitlab-token", "scim = '" + "gl" + "soat-" + body(20, B64URL, seed=48) + "'"),
    ("gitlab-token", "gl" + "agent-" + body(50, B64URL, seed=49)),
    ("gitlab-token", "gl" + "oas-" + body(64, B64URL, seed=50)),
    ("gitlab-token", "gl" + "cbt-64_" + body(20, B64URL, seed=51)),
    ("gitlab-token", "gl" + "ft-" + body(20, B64URL, seed=52)),
    ("gitlab-token", "gl" + "imt-" + body(25, B64URL, seed=53)),
    ("gitlab-token", "gl" + "ffct-" + body(20, B64URL, seed=54)),
    ("slack-app-token", f"SLACK_APP_TOKEN={SECRETS['slack-app-token']}"),
    ("google-oauth-client-secret", f'"client_secret": "{SECRETS["google-oauth-client-secret"]}",'),
    ("stripe-webhook-secret", f"STRIPE_WEBHOOK_SECRET={SECRETS['stripe-webhook-secret']}"),
    ("stripe-live-key", "stripe.api_key = '" + "rk" + "_live_51" + body(97, seed=55) + "'"),
    ("sendgrid-api-key", f"sg = SendGridAPIClient('{SECRETS['sendgrid-api-key']}')"),
    ("twilio-api-key", f"api_key_sid = '{SECRETS['twilio-api-key']}'"),
    ("twilio-auth-token", f"TWILIO_AUTH_TOKEN={SECRETS['twilio-auth-token']}"),
    ("twilio-auth-token", f'const twilioAuthToken = "{body(32, HEX, seed=56)}";'),
    ("twilio-auth-token", f"twilio_api_secret: {body(32, ALNUM, seed=57)}"),
    ("heroku-api-key", f"HEROKU_API_KEY={SECRETS['heroku-api-key']}"),
    ("heroku-api-key", f"HEROKU_API_KEY={UUID}"),
    ("heroku-api-key", f'heroku.api_key = "{UUID}"'),
    ("datadog-key", f"DD_API_KEY={SECRETS['datadog-key']}"),
    ("datadog-key", f"datadog_app_key: {body(40, HEX, seed=58)}"),
    ("datadog-key", f'"DATADOG_APPLICATION_KEY": "{body(40, HEX, seed=59)}"'),
    # The generic rule, once per file format it knows.
    ("secret-assignment", f'password = "{SECRETS["secret-assignment"]}"'),  # Python
    ("secret-assignment", f"SECRET_KEY: str = '{SECRETS['secret-assignment']}'"),  # annotated Python
    ("secret-assignment", f'settings = {{"client_secret": "{SECRETS["secret-assignment"]}"}}'),  # dict / JSON
    ("secret-assignment", f"const apiKey = `{SECRETS['secret-assignment']}`;"),  # JS template literal
    ("secret-assignment", f"  password: '{SECRETS['secret-assignment']}'"),  # YAML / TS object
    ("secret-assignment", f"  db_password: {SECRETS['secret-assignment']}"),  # YAML plain scalar
    ("secret-assignment", f"export API_TOKEN={SECRETS['secret-assignment']}"),  # .env / shell
    ("secret-assignment", f"client_secret = {SECRETS['secret-assignment']}"),  # INI
    ("secret-assignment", f'secret = "{SECRETS["secret-assignment"]}"  # TOML'),
    ("secret-assignment", f":password => '{SECRETS['secret-assignment']}',"),  # Ruby
    ("secret-assignment", f"spring.datasource.password={SECRETS['secret-assignment']}"),  # .properties
    ("secret-assignment", "PASSWORD=" + body(12, ALNUM, seed=60)),
]


def every_output(repo: Any, out_dir: Path, monkeypatch: Any) -> dict[str, str]:
    """Every report format of one shadow run of `repo` against main (so the test runs whatever the
    other checks say), the step summary, and the decision log as `log` and `export` show it."""
    from scorer.report import FORMATS
    from tests.testing.repo import run_cli

    out_dir.mkdir(exist_ok=True)
    summary, db = out_dir / "summary.md", out_dir / "log.sqlite3"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["--repo", str(repo.root), "--base", "main", "--manifest", str(repo.manifest_path), "--shadow"]
    for fmt in sorted(FORMATS):
        argv += ["--format", fmt, "--output", str(out_dir / f"report.{fmt}")]
    code, stdout = run_cli([*argv, "--log-db", str(db), "--format", "text"])
    assert code == 0, stdout
    outputs = {"stdout": stdout, **{fmt: (out_dir / f"report.{fmt}").read_text(encoding="utf-8") for fmt in FORMATS}}
    outputs["step-summary"] = summary.read_text(encoding="utf-8")
    for fmt in ("text", "json"):
        outputs[f"log-{fmt}"] = run_cli(["log", "--log-db", str(db), "--format", fmt])[1]
    assert run_cli(["export", "--log-db", str(db), "--out", str(out_dir / "export.jsonl")])[0] == 0
    outputs["export"] = (out_dir / "export.jsonl").read_text(encoding="utf-8")
    return outputs
