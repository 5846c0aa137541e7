"""A labelled corpus for the secret detectors: generated true secrets and near-misses.

Every value is random characters of a provider's published shape, made at run time from a
seed; nothing here is a real credential. Near-misses are the look-alikes a gate must not
block: digests, object ids, UUIDs, base64 of text, integrity hashes, versions, environment
lookups, placeholders, vendors' published samples, a template key block, sequential fixtures.

    python benchmarks/secrets_corpus.py [--seed N]   # prints label<TAB>category<TAB>line
"""

from __future__ import annotations

import argparse
import base64
import random
import string
from collections.abc import Iterator
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits
PASSWORD = ALNUM + "!#%&*+-=?@^_~"


class Case(NamedTuple):
    secret: bool  # True: a detector must fire; False: none may
    category: str
    line: str


class _Draw:
    """n random characters of an alphabet, from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))


def _uuid(r: _Draw) -> str:
    return "-".join(r(n, HEX) for n in (8, 4, 4, 4, 12))


def _pem(r: _Draw, kind: str) -> str:
    lines = [r(64, B64) for _ in range(6)] + [r(20, B64) + "=="]
    return "\n".join([f"-----BEGIN {kind}PRIVATE KEY-----", *lines, f"-----END {kind}PRIVATE KEY-----"])


def true_secrets(rng: random.Random) -> Iterator[Case]:
    r = _Draw(rng)
    g = "gl"  # prefixes are split so this file does not carry a token shape
    prefixed = [
        f"GITLAB_TOKEN={g}pat-{r(20, B64URL)}", f"runner_token: {g}rt-{r(20, B64URL)}",
        f"DEPLOY_TOKEN={g}dt-{r(20, B64URL)}", f"trigger = '{g}ptt-{r(40, HEX)}'",
        f"SCIM={g}soat-{r(20, B64URL)}", f"{g}oas-{r(64, B64URL)}", f"{g}agent-{r(50, B64URL)}",
        f"FEED={g}ft-{r(20, B64URL)}", f"{g}cbt-64_{r(20, B64URL)}", f"{g}ffct-{r(20, B64URL)}",
        f"SLACK_APP_TOKEN=xa{'pp'}-1-A{r(10, UPPER_DIGITS)}-{r(13, string.digits)}-{r(64, HEX)}",
        f"STRIPE_WEBHOOK_SECRET=wh{'sec'}_{r(32)}", f"stripe.api_key = 'rk_{'live'}_51{r(97)}'",
        f"STRIPE_KEY=sk_{'live'}_{r(24)}",
        f'"client_secret": "GOC{"SPX"}-{r(28, B64URL)}"',
        f"SENDGRID_API_KEY=S{'G'}.{r(22, B64URL)}.{r(43, B64URL)}",
        f"api_key_sid = 'S{'K'}{r(32, HEX)}'", f"HEROKU_API_KEY=HR{'KU'}-{r(60, B64URL)}",
        f"GITHUB_TOKEN=gh{'p'}_{r(36)}", f"aws_access_key_id = AK{'IA'}{r(16, UPPER_DIGITS)}",
        f"OPENAI_API_KEY=sk-{'proj'}-{r(100, B64URL)}",
        f"SLACK_BOT_TOKEN=xo{'xb'}-{r(12, string.digits)}-{r(13, string.digits)}-{r(24)}",
    ]  # fmt: skip
    for line in prefixed:
        yield Case(True, "provider-prefix", line)
    connection = [
        f"AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={r(86, B64)}=="
        ";EndpointSuffix=core.windows.net",
        f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey={r(43, B64)}=",
        f'cs = "Server=db;Database=app;User Id=app;Password={r(16)};"',
        f"Driver={{ODBC Driver 18}};Server=db;Uid=app;Pwd={r(14)};",
        f"jdbc:sqlserver://db:1433;user=app;password={r(16)}",
        f"DATABASE_URL=postgres://app:{r(20)}@db.internal:5432/app",
        f"REDIS_URL=redis://:{r(24)}@cache:6379/0",
        f"mongodb+srv://svc:{r(18)}@cluster0.mongodb.net/db",
    ]  # fmt: skip
    for line in connection:
        yield Case(True, "connection-string", line)
    value = r(32, PASSWORD)
    named = [
        f'password = "{r(24, PASSWORD)}"', f"SECRET_KEY: str = '{r(50, PASSWORD)}'",
        f'{{"client_secret": "{r(32, B64URL)}"}}', f"const apiKey = '{r(32)}';",
        f"  password: '{r(20, PASSWORD)}'", f"  db_password: {r(18)}", f"export API_TOKEN={r(40, B64URL)}",
        f"client_secret = {r(32, B64URL)}", f'secret = "{value}"', f"PASSWORD={r(16)}",
        f'  secret_key = "{r(40, B64)}"', f"TWILIO_AUTH_TOKEN={r(32, HEX)}", f"HEROKU_API_KEY={_uuid(r)}",
        f"DD_API_KEY={r(32, HEX)}", f"datadog_app_key: {r(40, HEX)}",
        f"aws_secret_access_key = {r(40, B64)}", f"spring.datasource.password={r(20)}",
    ]  # fmt: skip
    for line in named:
        yield Case(True, "named-assignment", line)
    yield Case(True, "private-key", _pem(r, "RSA "))
    yield Case(True, "private-key", _pem(r, ""))
    yield Case(True, "private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n"
               "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
               + "\n".join(r(70, B64) for _ in range(4)) + "\n-----END OPENSSH PRIVATE KEY-----")  # fmt: skip


def near_misses(rng: random.Random) -> Iterator[Case]:
    r = _Draw(rng)
    text64 = base64.b64encode(b"the quick brown fox jumps over the lazy dog").decode()
    groups = {
        "digest-or-id": [
            f"sha256 = '{r(64, HEX)}'", f"commit: {r(40, HEX)}", f"secret = '{r(64, HEX)}'", f"etag: {r(32, HEX)}",
            f"password_hash: {r(40, HEX)}", f"request_id = '{_uuid(r)}'", f"token: {_uuid(r)}",
            f"HEROKU_APP_ID={_uuid(r)}", f"DD_TRACE_ID={r(32, HEX)}", f"TWILIO_ACCOUNT_SID=AC{r(32, HEX)}",
        ],
        "encoding-or-version": [
            f"password = '{text64}'", f'<script integrity="sha384-{r(64, B64)}"></script>',
            f"token = 'sha512-{r(86, B64)}=='", "version = '1.24.3-rc.1+build.5'", "api_key_version: v2.10.0",
            f"image: registry.example.org/app@sha256:{r(64, HEX)}", "secret_name: app-db-credentials-v2",
            "tokenizer = 'bert-base-multilingual-cased'", "token_url: https://oauth2.googleapis.com/token",
            "password_min_length = 1200000000",
        ],
        "env-lookup": [
            'password = os.environ["PW"]', "password = os.environ.get('DB_PASSWORD', '')",
            "const password = process.env.DB_PASSWORD;", "apiKey: process.env.STRIPE_SECRET_KEY,",
            "password: ${DB_PASSWORD}", "PASSWORD=$DB_PASSWORD_FROM_VAULT", "secret: ${{ secrets.DEPLOY_TOKEN }}",
            "SECRET_KEY = settings.SECRET_KEY", "password=$(openssl rand -base64 24)",
            "postgres://app:${DB_PASSWORD}@db:5432/app",
        ],
        "placeholder": [
            "password = 'your-password-here'", "API_KEY=your_api_key", "SECRET_KEY = 'changeme-in-production'",
            "password = '<paste the password here>'", "password = '****************'",
            "token = 'xxxxxxxxxxxxxxxxxxxxxxxx'", "API_TOKEN=REPLACE_WITH_YOUR_TOKEN",
            "Server=db;User Id=app;Password=<password>;", "STRIPE_WEBHOOK_SECRET=whsec_...",
            "password: example-password-123",
        ],
        "published-sample": [
            "aws_access_key_id = AKIA" "IOSFODNN7EXAMPLE",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/" "bPxRfiCYEXAMPLEKEY",
            "SLACK_WEBHOOK=https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
            "STRIPE_SECRET_KEY=sk_test_" "4eC39HqLyjWDarjtT1zdp7dc",
            "stripe_publishable_key: pk_test_" "TYooMQauvdEDq54NiTphI7jx",
            "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
            "K1SZFPTOtr/KBHBeksoGMGw==",
            "jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0Ij"
            "oxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_" "adQssw5c'",
            "https://user:password@example.com/repo", "postgres://postgres:postgres@localhost:5432/test",
            "UseDevelopmentStorage=true",
        ],
        "template-or-fixture": [
            "-----BEGIN RSA PRIVATE KEY-----\n<paste the key here>\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
            "AWS_ACCESS_KEY_ID=AK" "IA1234567890ABCDEF", "GITHUB_TOKEN=gh" "p_0123456789abcdefghijklmnopqrstuvwxyzAB",
            "DD_API_KEY=" + "0123456789abcdef" * 2, "password = 'abcdefghijklmnop1234'",
            "token = 'aB3aB3aB3aB3aB3aB3aB3aB3'",
            "glft-feature-flags-client-token-settings", "xapp-settings-for-the-dashboard",
            "password = 'CorrectHorseBatteryStaple'",
        ],
    }  # fmt: skip
    for category, lines in groups.items():
        for line in lines:
            yield Case(False, category, line)


def corpus(seed: int = 14, rounds: int = 3) -> list[Case]:
    """`rounds` draws of every true-secret shape, and the 60 near-misses once."""
    rng = random.Random(seed)
    cases = [c for _ in range(rounds) for c in true_secrets(rng)]
    return cases + list(near_misses(rng))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    for case in corpus(args.seed):
        print(f"{'secret' if case.secret else 'near-miss'}\t{case.category}\t{case.line!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
