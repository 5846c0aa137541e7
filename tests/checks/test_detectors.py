"""Secret and risky-shell detectors: every detector fires, the look-alikes do not.

Secret-shaped values are built at run time (prefix split in two, body from a
seeded generator) so this repository never contains a live-looking credential.
"""

from __future__ import annotations

import hashlib
import re

import pytest

from scorer.codes import CODES
from scorer.model import AddedText
from scorer.secrets import detectors
from scorer.secrets.detectors import DETECTOR_IDS, DETECTORS, MAX_PER_DETECTOR, redact, redact_with_counts, scan
from tests.testing.secrets import ALNUM, B64, B64URL, HEX, SECRET_LINES, SECRETS, UUID, body


def added(*lines: str, path: str = "app/config.py") -> AddedText:
    return AddedText("".join(line + "\n" for line in lines), (0,), ((path, 1),))


def ids(violations: list[detectors.Violation]) -> list[str]:
    return [v.message.split(":")[0] for v in violations]


RISKY_LINES = [
    # remote content piped to a shell, and the spellings that try to slip past
    ("curl-pipe-shell", "curl -fsSL https://get.example.sh | sh"),
    ("curl-pipe-shell", "curl -fsSL https://get.example.sh|bash"),
    ("curl-pipe-shell", "curl   -sSL   https://x   |   sudo   bash"),
    ("curl-pipe-shell", "curl -fsSL https://x | sudo -E bash -s -- --yes"),
    ("curl-pipe-shell", "curl -fsSL https://x | sudo -u root bash"),
    ("curl-pipe-shell", "curl -fsSL https://x | env FOO=1 BAR=2 sh"),
    ("curl-pipe-shell", "curl -fsSL https://x | sudo env FOO=1 zsh"),
    ("curl-pipe-shell", "curl -fsSL https://x | FOO=1 dash"),
    ("curl-pipe-shell", "wget -qO- https://x | /bin/sh"),
    ("curl-pipe-shell", "wget -O - https://x | /usr/bin/env bash"),
    ("curl-pipe-shell", "/usr/bin/curl https://x | 'bash'"),
    ("curl-pipe-shell", "curl https://x | tee install.log | sh"),
    ("curl-pipe-shell", "curl https://x |& bash"),
    ("curl-pipe-shell", "    RUN curl -fsSL https://x | bash -"),
    ("shell-exec-remote", 'bash -c "$(curl -fsSL https://x)"'),
    ("shell-exec-remote", 'sh -c "$(wget -qO- https://x)"'),
    ("shell-exec-remote", '/bin/bash -c "$( curl -fsSL https://x )"'),
    ("shell-exec-remote", "sudo zsh -x -c '$(curl https://x)'"),
    ("shell-exec-remote", 'sh -c "`curl -s https://x`"'),
    ("shell-exec-remote", "bash <(curl -s https://x)"),
    ("shell-exec-remote", "bash < <(curl -s https://x)"),
    ("shell-exec-remote", "source <(curl -s https://x)"),
    ("shell-exec-remote", ". <(wget -qO- https://x)"),
    ("shell-exec-remote", 'eval "$(curl -s https://x)"'),
    # writes to shell profiles
    ("shell-profile-write", "echo 'export PATH=$PATH:/opt/x' >> ~/.bashrc"),
    ("shell-profile-write", "echo x>>~/.bashrc"),
    ("shell-profile-write", "echo x > $HOME/.zshrc"),
    ("shell-profile-write", 'echo x >> "$HOME/.profile"'),
    ("shell-profile-write", 'echo x >> "${HOME}/.bash_profile"'),
    ("shell-profile-write", 'echo x >> "$HOME"/.zprofile'),
    ("shell-profile-write", "echo x >>  ~//.bashrc"),
    ("shell-profile-write", "echo x >> /home/dev/.bashrc"),
    ("shell-profile-write", "echo x >> /etc/profile.d/x.sh"),
    ("shell-profile-write", "echo x >> /etc/zsh/zprofile"),
    ("shell-profile-write", "echo x | tee -a ~/.bashrc"),
    ("shell-profile-write", "echo x | sudo tee --append /root/.bashrc > /dev/null"),
    ("shell-profile-write", "cat <<'EOF' >> ~/.config/fish/config.fish"),
    ("shell-profile-write", "sed -i 's/a/b/' ~/.bashrc"),
    ("shell-profile-write", "cp dotfiles/bashrc ~/.bashrc"),
    ("shell-profile-write", 'ln -sf "$PWD/zshrc" "$HOME/.zshrc"'),
    # writes to SSH config
    ("ssh-config-write", "cat id.pub >> ~/.ssh/authorized_keys"),
    ("ssh-config-write", "printf 'Host *\\n  StrictHostKeyChecking no\\n' >> ~/.ssh/config"),
    ("ssh-config-write", 'echo "$KEY" >> "${HOME}/.ssh/authorized_keys"'),
    ("ssh-config-write", "echo x | sudo tee -a /etc/ssh/sshd_config"),
    ("ssh-config-write", "install -m 600 ssh_config ~/.ssh/config"),
    # world-writable permissions
    ("chmod-777", "chmod 777 build/"),
    ("chmod-777", "chmod -R 777 /srv/app"),
    ("chmod-777", "sudo chmod  --recursive  0777 /srv/app"),
    ("chmod-777", 'chmod "777" file'),
    ("chmod-777", "chmod a+rwx file"),
    ("chmod-777", "chmod ugo+rwx file"),
    ("chmod-777", "chmod u+x,o+w file"),
    ("chmod-777", "chmod 666 socket"),
    ("chmod-777", "os.chmod(path, 0o777)"),
    ("chmod-777", "os.chmod(os.path.join(a, b), 0o777)"),
    ("chmod-777", "Path(p).chmod(mode=0o777)"),
    ("chmod-777", "fs.chmodSync(p, 0o777);"),
]

MUST_NOT_FIRE = [
    "curl -o file.tar.gz https://example.org/file.tar.gz",
    "curl -fsSL https://example.org/install.sh -o install.sh",
    "curl -s https://api.example.org/v1 | jq .version",
    "curl -s https://api.example.org/v1 | python -m json.tool",
    "curl -s https://x | grep sh | sort",
    "curl -f https://x || bash fallback.sh",
    "curl https://x | shasum -a 256",
    "VERSION=$(curl -s https://api.example.org/latest)",
    "grep sh file | sort",
    'echo "pipe | sh is bad"',
    "ls | sh-completion",
    "bash scripts/install.sh",
    "cat ~/.bashrc",
    "source ~/.bashrc",
    "grep -q foo ~/.bashrc",
    "cp ~/.bashrc ~/.bashrc.bak",
    "diff ~/.bashrc dotfiles/bashrc > /tmp/diff.txt",
    "echo x >> ~/.bashrc.bak",
    "cat ~/.ssh/config",
    "ssh -F ~/.ssh/config host",
    "chmod 755 build/",
    "chmod -R 755 /srv/app",
    "chmod 0644 file",
    "chmod +x script.sh",
    "chmod go-w file",
    "chmod o-rwx file",
    "chmod 1777 /tmp/shared",
    "os.chmod(path, 0o755)",
    "user = 'git@github.com:org/repo.git'",
    "ssh://git@github.com:22/org/repo",
    "postgres://app:${DB_PASSWORD}@db:5432/app",
    "postgres://app:$DB_PASSWORD@db:5432/app",
    "https://user:{password}@host",
    "https://user:<password>@host",
    "https://user:****@host",
    "from sklearn.base import BaseEstimator  # sk-learn-compatible-estimator-interface",
    "task-ant-colony-optimisation-for-routing-problems",
    "mask_live_view_toggle_for_the_dashboard_ui",
    "ghp_token = os.environ['GITHUB_TOKEN']",
    "'-----BEGIN PUBLIC KEY-----'",
    "x = 'eyJ'  # JSON object prefix in base64",
    # Hex digests, git object ids, UUIDs and base64 of text, even under a secret-sounding name.
    f"sha256 = '{body(64, HEX, seed=70)}'",
    f"commit: {body(40, HEX, seed=71)}",
    f"secret = '{body(64, HEX, seed=72)}'",
    f"password_hash: {body(40, HEX, seed=73)}",
    f"request_id = '{UUID}'",
    f"token: {UUID}",
    f"HEROKU_APP_ID={UUID}",
    "password = 'SGVsbG8gV29ybGQhIFRoaXMgaXMgdGV4dCwgbm90IGEga2V5'",
    "secret: c3VwZXIgc2VjcmV0IHRleHQgaW4gYmFzZTY0IGZvcm0=",
    # Subresource-integrity hashes and version strings.
    '<script src="x.js" integrity="sha384-' + body(64, B64, seed=74) + '"></script>',
    "token = 'sha512-" + body(86, B64, seed=75) + "=='",
    "version = '1.24.3-rc.1+build.5'",
    "api_key_version: v2.10.0",
    # Environment and settings lookups.
    'password = os.environ["PW"]',
    "password = os.environ.get('DB_PASSWORD', '')",
    "const password = process.env.DB_PASSWORD;",
    "apiKey: process.env.STRIPE_SECRET_KEY,",
    "password: ${DB_PASSWORD}",
    "PASSWORD=${DB_PASSWORD:-}",
    "PASSWORD=$DB_PASSWORD_FROM_VAULT",
    "secret: ${{ secrets.DEPLOY_TOKEN }}",
    "SECRET_KEY = settings.SECRET_KEY",
    "password = getpass.getpass()",
    "token = request.headers['Authorization']",
    "password=$(openssl rand -base64 24)",
    "SECRET_KEY = env('SECRET_KEY')",
    # Names that are about a secret rather than holding one, and human-written values.
    "token_url: https://oauth2.googleapis.com/token",
    "secret_name: app-db-credentials-v2",
    "password_file = /run/secrets/db_password",
    "tokenizer = 'bert-base-multilingual-cased'",
    "password_min_length = 1200000000",
    "token_type = 'Bearer'",
    "secretKeyRef:",
    "password = 'CorrectHorseBatteryStaple'",
    # Near misses of the fixed-prefix shapes.
    "glft-feature-flags-client-token-settings",
    "gl" + "pat-" + body(19, B64URL, seed=76),
    "whsec_" + body(10, seed=77),
    "GOC" + "SPX-" + body(27, B64URL, seed=78),
    "S" + "G." + body(22, B64URL, seed=79) + "." + body(42, B64URL, seed=79),
    "S" + "K" + body(31, HEX, seed=80),
    "MASK" + body(32, HEX, seed=81),
    "xa" + "pp-settings-for-the-dashboard",
    f"TWILIO_ACCOUNT_SID=AC{body(32, HEX, seed=82)}",
    f"DD_SITE=datadoghq.eu DD_ENV=prod DD_TRACE_ID={body(32, HEX, seed=83)}",
    "AccountKey=;",
    "Server=db;Database=app;Trusted_Connection=True;",
]

PLACEHOLDERS = [
    "aws_access_key_id = " + "AKIA" + "IOSFODNN7" + "EXAMPLE",
    "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN=" + "gh" + "p_" + "x" * 36,
    "GITHUB_TOKEN=" + "gh" + "p_" + "X" * 36,
    "AWS_ACCESS_KEY_ID=" + "AK" + "IA" + "0" * 16,
    "OPENAI_API_KEY=" + "sk" + "-proj-" + "your-Api-Key-goes-here-0123456789ABC",
    "STRIPE=" + "sk" + "_live_" + "xxxxxxxxxxxxxxxxxxxxxxxx",
    "SLACK=" + "xo" + "xb-" + "1234567890-EXAMPLE-token",
    "GOOGLE=" + "AI" + "za" + "Dummy" + body(30),
    "https://user:password@example.com/repo",
    "postgres://postgres:postgres@localhost:5432/test",
    # The jwt.io sample token printed in countless tutorials.
    "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    # Vendors' published samples (secret_values.PUBLISHED_SAMPLES), also under secret-sounding names.
    "SLACK_WEBHOOK=https://hooks" + ".slack.com/services/T00000000/B00000000/" + "X" * 24,
    "STRIPE_SECRET_KEY=" + "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "stripe_publishable_key: " + "pk_test_" + "TYooMQauvdEDq54NiTphI7jx",
    "UseDevelopmentStorage=true;AccountName=devstoreaccount1;AccountKey="
    + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
    + "K1SZFPTOtr/KBHBeksoGMGw==",
    "aws_secret_key = " + "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    # The placeholder family.
    "password = 'your-password-here'",
    "API_KEY=your_api_key",
    "password: example-password-123",
    "SECRET_KEY = 'changeme-in-production'",
    "password = '<paste the password here>'",
    "password = '****************'",
    "token = 'xxxxxxxxxxxxxxxxxxxxxxxx'",
    "API_TOKEN=REPLACE_WITH_YOUR_TOKEN",
    "Server=db;User Id=app;Password=<password>;",
    "Server=db;User Id=sa;Password=password;",
    "Server=db;User Id=app;Password=${DB_PASSWORD};",
    "DD_API_KEY=" + "x" * 32,
    "HEROKU_API_KEY=00000000-0000-0000-0000-000000000000",
    # Obviously sequential fixture values.
    "AWS_ACCESS_KEY_ID=" + "AK" + "IA" + "1234567890ABCDEF",
    "GITHUB_TOKEN=" + "gh" + "p_" + "0123456789abcdefghijklmnopqrstuvwxyzAB",
    "stripe = '" + "sk" + "_live_" + "abcdefghijklmnopqrstuvwx'",
    "DD_API_KEY=" + "0123456789abcdef" * 2,
    "password = 'abcdefghijklmnop1234'",
    "token = 'aB3aB3aB3aB3aB3aB3aB3aB3'",
    # A template key block whose body is a placeholder, and an empty one.
    "-----BEGIN " + "RSA PRIVATE KEY-----\n<paste the key here>\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN " + "PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n-----END OPENSSH PRIVATE KEY-----",
    'key = "-----BEGIN ' + 'PRIVATE KEY-----\\nYOUR_KEY_HERE\\n-----END PRIVATE KEY-----"',
]

SUPPRESSIONS = [
    "  # pragma: allowlist secret",
    "  # gitleaks:allow",
    "  # nosec",
    "  # noqa",
    "  # noqa: S105",
    "  // nosec G101",
]


@pytest.mark.parametrize(("detector_id", "line"), SECRET_LINES + RISKY_LINES)
def test_detector_fires(detector_id: str, line: str) -> None:
    violations = scan(added(line))
    assert ids(violations) == [detector_id]
    code = next(d.code for d in DETECTORS if d.id == detector_id)
    assert [(v.code, v.path, v.line) for v in violations] == [(code, "app/config.py", 1)]


def test_every_detector_has_a_firing_case() -> None:
    assert {i for i, _ in SECRET_LINES + RISKY_LINES} == DETECTOR_IDS


@pytest.mark.parametrize("line", MUST_NOT_FIRE)
def test_must_not_fire(line: str) -> None:
    assert scan(added(line)) == []


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholders_do_not_fire(line: str) -> None:
    assert scan(added(line)) == []
    assert redact(line) == line


@pytest.mark.parametrize(("detector_id", "line"), SECRET_LINES)
def test_message_shows_only_a_redacted_form(detector_id: str, line: str) -> None:
    (v,) = scan(added(line))
    assert SECRETS[detector_id] not in v.message
    assert re.search(r": .{4}\*\*\*\* \(fingerprint sha256:[0-9a-f]{16}\)", v.message)
    # Nothing past the first four characters of the match leaks.
    shown = re.fullmatch(r"[\w-]+: (.*) \(fingerprint .*", v.message)
    assert shown and len(shown.group(1)) == 8 and shown.group(1).endswith("****")


@pytest.mark.parametrize(("detector_id", "line"), SECRET_LINES)
def test_allowed_fingerprint_silences_only_that_secret(detector_id: str, line: str) -> None:
    (v,) = scan(added(line))
    fp = re.search(r"sha256:[0-9a-f]{16}", v.message)
    assert fp
    other = "GITHUB_TOKEN=" + "gh" + "o_" + body(36, seed=11)
    assert ids(scan(added(line, other), allowed_fingerprints=frozenset({fp.group(0)}))) == ["github-token"]


def test_fingerprint_is_sha256_prefix_of_the_secret_value() -> None:
    value = SECRETS["github-token"]
    expected = "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:16]
    (v,) = scan(added(f"token = '{value}'"))
    assert expected in v.message
    assert detectors.fingerprint(value) == expected


def test_private_key_fingerprint_includes_the_first_key_line() -> None:
    header = SECRETS["private-key-block"]
    one, two = (scan(added(header, body(64, ALNUM + "+/", seed=s), "...")) for s in (20, 21))
    assert one[0].message != two[0].message  # allowing one test key does not allow every RSA key


def test_url_fingerprint_covers_only_the_password() -> None:
    password = SECRETS["url-password"]
    line = f"postgres://app:{password}@db/app"
    allowed = frozenset({detectors.fingerprint(password)})
    assert scan(added(line), allowed_fingerprints=allowed) == []


@pytest.mark.parametrize("comment", SUPPRESSIONS)
@pytest.mark.parametrize(("detector_id", "line"), [SECRET_LINES[3], SECRET_LINES[0], RISKY_LINES[0], RISKY_LINES[-1]])
def test_inline_suppression_comments_silence_nothing(comment: str, detector_id: str, line: str) -> None:
    assert ids(scan(added(line + comment))) == [detector_id]
    assert ids(scan(added(comment.strip(), line))) == [detector_id]


@pytest.mark.parametrize(("detector_id", "line"), SECRET_LINES + RISKY_LINES)
def test_disabled_detector_does_not_fire(detector_id: str, line: str) -> None:
    assert scan(added(line), disabled=frozenset({detector_id})) == []


def test_disabling_one_detector_leaves_the_others() -> None:
    text = added(SECRET_LINES[0][1], RISKY_LINES[0][1])
    assert ids(scan(text, disabled=frozenset({"curl-pipe-shell"}))) == ["aws-access-key-id"]


def test_token_inside_a_credentialed_url_reports_once() -> None:
    token = SECRETS["github-token"]
    (v,) = scan(added(f"git clone https://x-access-token:{token}@github.com/o/r.git"))
    assert v.code == "secret"
    allowed = frozenset({detectors.fingerprint(token)})
    assert scan(added(f"https://x:{token}@github.com"), allowed_fingerprints=allowed) == []


def test_violations_carry_path_and_line_across_blocks() -> None:
    first = "x = 1\n" + SECRET_LINES[3][1] + "\n"
    second = "y = 2\nz = 3\n" + RISKY_LINES[0][1] + "\n"
    text = AddedText(first + second, (0, len(first)), (("a.py", 10), ("b/install.sh", 40)))
    found = [(v.path, v.line, v.code) for v in scan(text)]
    assert found == [("a.py", 11, "secret"), ("b/install.sh", 42, "risky-shell")]


def test_flood_of_matches_is_capped() -> None:
    lines = ["chmod 777 f" + str(i) for i in range(MAX_PER_DETECTOR + 50)]
    violations = scan(added(*lines))
    assert len(violations) == MAX_PER_DETECTOR + 1
    assert "more than" in violations[-1].message


CRAFTED = ["tee ", "sed -i ", "cp ", "sk-", "glpat-", "xoxb-1", "eyJa-", "eyJaaaaaaaaa.", "://a:", "chmod("]


@pytest.mark.parametrize("chunk", CRAFTED)
def test_crafted_long_line_does_not_hang(chunk: str) -> None:
    line = chunk * (60000 // len(chunk)) + "a" * 20000
    # Each finishes in milliseconds; the quadratic versions of these patterns took minutes.
    scan(added(line))
    redact(line)


def test_table_is_well_formed() -> None:
    assert len(DETECTOR_IDS) == len(DETECTORS)
    for d in DETECTORS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", d.id)
        assert d.code in ("secret", "risky-shell") and d.code in CODES
        assert not d.pattern.flags & re.DOTALL
        assert d.description


@pytest.mark.parametrize(("detector_id", "line"), SECRET_LINES)
def test_redact_masks_every_secret_shape(detector_id: str, line: str) -> None:
    text = f"Traceback: request failed with {line} (see log)"
    out, counts = redact_with_counts(text)
    assert counts == {detector_id: 1}
    assert "****" in out and out.endswith("(see log)")
    assert SECRETS[detector_id] not in out
    assert redact(out) == out  # idempotent


def test_redact_masks_a_whole_multiline_key_block() -> None:
    key_lines = [body(64, ALNUM + "+/", seed=s) for s in range(3)]
    pem = "\n".join(["-----BEGIN " + "RSA PRIVATE KEY-----", *key_lines, "-----END " + "RSA PRIVATE KEY-----"])
    out, counts = redact_with_counts("before\n" + pem + "\nafter\n")
    assert out == "before\n----****\nafter\n"
    assert counts == {"private-key-block": 1}


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "\n".join(MUST_NOT_FIRE + [line for _, line in RISKY_LINES])
    assert redact_with_counts(text) == (text, {})


_EVERY_LINE = [line for _, line in SECRET_LINES + RISKY_LINES] + [
    line for line in MUST_NOT_FIRE if isinstance(line, str)
]


@pytest.mark.parametrize("line", _EVERY_LINE)
def test_every_match_contains_one_of_its_detectors_anchors(line: str) -> None:
    """The anchor prefilter may skip a detector only if it could not have matched."""
    for detector in DETECTORS:
        for m in (m for p in detector.patterns() for m in p.finditer(line + "\n")):
            literals = detector.anchors + tuple(literal for literal, _ in detector.more)
            assert any(a in m.group(0) for a in literals), (detector.id, m.group(0))


# --- new shapes: fingerprints, bypasses, samples, linear time ---------------------------

OPENSSH_PREAMBLE = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"


def openssh_key(seed: int) -> str:
    """An OpenSSH-shaped block: the fixed preamble every unencrypted key shares, then random body."""
    lines = [OPENSSH_PREAMBLE] + [body(70, B64, seed=seed * 10 + i) for i in range(4)]
    return "\n".join(["-----BEGIN " + "OPENSSH PRIVATE KEY-----", *lines, "-----END OPENSSH PRIVATE KEY-----"])


def fingerprint_of(line: str) -> str:
    (v,) = scan(added(*line.split("\n")))
    found = re.search(r"sha256:[0-9a-f]{16}", v.message)
    assert found
    return found.group(0)


def test_openssh_keys_that_share_the_preamble_have_different_fingerprints() -> None:
    assert fingerprint_of(openssh_key(1)) != fingerprint_of(openssh_key(2))


def test_private_key_fingerprint_covers_the_whole_body() -> None:
    key = openssh_key(3)
    key_body = "".join(key.split("\n")[1:-1])
    assert fingerprint_of(key) == detectors.fingerprint(key_body)
    # The same key embedded in a JSON string with escaped line ends is the same secret.
    assert fingerprint_of('"key": "' + key.replace("\n", "\\n") + '"') == detectors.fingerprint(key_body)


def test_two_keys_differing_only_in_their_last_line_differ() -> None:
    one, two = openssh_key(4), openssh_key(4)
    two = two.replace(two.split("\n")[-2], body(70, B64, seed=999))
    assert fingerprint_of(one) != fingerprint_of(two)


@pytest.mark.parametrize("detector_id", sorted(SECRETS))
def test_fingerprint_is_the_secret_not_the_name_or_prefix_around_it(detector_id: str) -> None:
    """Two values of one shape under one name never share a fingerprint."""
    lines = [line for i, line in SECRET_LINES if i == detector_id][:1]
    value = SECRETS[detector_id]
    if detector_id == "private-key-block" or value not in lines[0]:
        pytest.skip("the PEM header alone is covered above")
    mid = next(i for i in range(len(value) // 2, len(value)) if value[i] in "0123456789abcdef")
    changed = value[:mid] + "0123456789abcdef0"["0123456789abcdef".index(value[mid]) + 1] + value[mid + 1 :]
    assert fingerprint_of(lines[0]) != fingerprint_of(lines[0].replace(value, changed))


# Ways a job might try to get a credential past the generic rule; each must still fire.
BYPASSES = [
    "PASSWORD=" + SECRETS["secret-assignment"] + "\r",  # CRLF line end
    "password\t=\t'" + SECRETS["secret-assignment"] + "'",  # tabs
    "password  =  r'" + SECRETS["secret-assignment"] + "'",  # raw-string prefix
    'PASSWORD = b"' + SECRETS["secret-assignment"] + '"',  # bytes literal
    "- DB_PASSWORD=" + SECRETS["secret-assignment"],  # compose environment list
    "{ password: '" + SECRETS["secret-assignment"] + "', user: 'app' }",  # JS object on one line
    "MY_APP_CLIENT_SECRET_VALUE='" + SECRETS["secret-assignment"] + "'",  # keyword inside a longer name
    "if (password === '" + SECRETS["secret-assignment"] + "') {",  # a hard-coded comparison
    "password = '" + SECRETS["secret-assignment"] + "'  # pragma: allowlist secret",
    "Password: " + SECRETS["secret-assignment"],  # prose or a header
]


@pytest.mark.parametrize("line", BYPASSES)
def test_bypass_attempts_on_the_generic_rule_still_fire(line: str) -> None:
    assert ids(scan(added(line))) == ["secret-assignment"]
    assert SECRETS["secret-assignment"] not in redact(line)


def test_the_generic_rule_defers_to_a_disabled_specific_detector() -> None:
    """Disabling twilio-auth-token or connection-string-password is not undone by the generic rule."""
    for detector_id in ("twilio-auth-token", "connection-string-password", "aws-secret-access-key"):
        line = next(line for i, line in SECRET_LINES if i == detector_id)
        assert scan(added(line), disabled=frozenset({detector_id})) == [], detector_id


def test_published_samples_are_one_table_with_sources() -> None:
    from scorer.secrets.secret_values import PUBLISHED_SAMPLES

    assert len({s.value for s in PUBLISHED_SAMPLES}) == len(PUBLISHED_SAMPLES)
    for sample in PUBLISHED_SAMPLES:
        assert sample.source.startswith("https://") and sample.what
        assert redact(f"key = {sample.value}") == f"key = {sample.value}"


# Inputs that make a naive pattern backtrack quadratically: each is ~200,000 characters, so a
# quadratic scan would do ~10^10 steps (hours) where a linear one does ~10^6 (milliseconds).
PATHOLOGICAL = [
    "password=" * 22000,
    "password = '" + "a" * 199990,
    "secret: " + "Ab1" * 66000,
    "token" * 40000,
    ";Password=" * 20000,
    "AccountKey=" + "A" * 199000,
    "HEROKU_API_KEY_" * 13000,
    "twilio_token" * 16000,
    "DD_" * 66000,
    "glrt-" * 40000,
    "gl" + "ptt-" + "a" * 199990,
    "SG." * 66000,
    "SK" * 100000,
    "xa" + "pp-1-" * 40000,
    "-----BEGIN " + "PRIVATE KEY-----\n" + ("A" * 64 + "\n") * 3000,
    "-----BEGIN " + "PRIVATE KEY-----" + " A" * 100000,
    # Values that reach the judges' own checks, a thousand times over.
    ("secret = 'x" + "1-" * 95 + "Q'\n") * 1000,
    ("token: " + "AB" * 99 + "a\n") * 1000,
    ("password = '" + "Abc1" * 49 + "'\n") * 1000,
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=lambda t: repr(t[:16]))
def test_pathological_input_is_scanned_with_linear_work(text: str) -> None:
    """Structural bound on the work done in Python: judges run at most once per anchor occurrence."""
    calls: dict[str, int] = {}
    judged = []
    for d in DETECTORS:
        if d.judge is not None:

            def counting(m: re.Match[str], d: detectors.Detector = d) -> bool:
                calls[d.id] = calls.get(d.id, 0) + 1
                assert d.judge is not None
                return d.judge(m)

            judged.append(d._replace(judge=counting))
        else:
            judged.append(d)
    original = detectors.DETECTORS
    detectors.DETECTORS = tuple(judged)
    try:
        scan(added(text))
        redact(text)
    finally:
        detectors.DETECTORS = original
    for d in judged:
        literals = d.anchors + tuple(literal for literal, _ in d.more)
        occurrences = sum(text.count(a) for a in literals) if literals else len(text)
        assert calls.get(d.id, 0) <= 2 * occurrences + 2, d.id


# A random key spells a three-letter stand-in word now and then (`Xxx` in about one GitHub token
# in 2,300): it must still fire. The token the suite once drew at random, and others like it.
@pytest.mark.parametrize(
    "value",
    [
        "gh" + "p_uVRkK1yUJXxx1sn6ne4oPREk4nVF6dq4UaZ9",
        "gh" + "p_xxx" + "Q7rT2mWk9LpZ4vN8cB3hJ6dF1sG5aY0eU",
        "gh" + "p_XXXQ7rT2mWk9LpZ4vN8cB3hJ6dF1sG5aY0eU",
    ],
)
def test_a_random_key_that_happens_to_spell_xxx_still_fires(value: str) -> None:
    assert ids(scan(added(f"TOKEN = '{value}'"))) == ["github-token"]
