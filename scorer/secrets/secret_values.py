"""Judging the value inside a secret-shaped match: published samples, stand-ins, randomness.

The detectors find shapes; these functions decide whether the value in a shape is a
credential or a stand-in (a vendor's documented sample, `changeme`, `<your key>`,
`abcdef123456`). They run once per match, so they may be written in plain Python.
"""

from __future__ import annotations

import itertools

from ..lazy_re import IGNORECASE, LazyPattern
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Mapping


class PublishedSample(NamedTuple):
    """A value a vendor prints in its own documentation; a match containing it never fires."""

    value: str
    what: str
    source: str


# The one table of vendors' published sample values. Split literals keep this file
# from looking like a credential to a scanner that reads it.
PUBLISHED_SAMPLES: tuple[PublishedSample, ...] = (
    PublishedSample("AKIA" "IOSFODNN7EXAMPLE", "AWS access key id used in AWS documentation",
                    "https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html"),
    PublishedSample("wJalrXUtnFEMI/K7MDENG/" "bPxRfiCYEXAMPLEKEY", "AWS secret access key used in AWS documentation",
                    "https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html"),
    PublishedSample("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_" "adQssw5c", "signature of jwt.io's sample token",
                    "https://jwt.io/introduction"),
    PublishedSample("T00000000/B00000000/" "XXXXXXXXXXXXXXXXXXXXXXXX", "Slack's sample incoming-webhook URL",
                    "https://api.slack.com/messaging/webhooks"),
    PublishedSample("sk_test_" "4eC39HqLyjWDarjtT1zdp7dc", "Stripe's sample test secret key in its API reference",
                    "https://docs.stripe.com/api/authentication"),
    PublishedSample("sk_test_" "BQokikJOvBiI2HlWgH4olfQ2", "Stripe's earlier sample test secret key",
                    "https://docs.stripe.com/api/authentication"),
    PublishedSample("pk_test_" "TYooMQauvdEDq54NiTphI7jx", "Stripe's sample test publishable key",
                    "https://docs.stripe.com/keys"),
    PublishedSample("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/" "K1SZFPTOtr/KBHBeksoGMGw==",
                    "Azure storage emulator (Azurite) account key, the same on every machine",
                    "https://learn.microsoft.com/azure/storage/common/storage-use-azurite"
                    "#well-known-storage-account-and-key"),
)  # fmt: skip

# Obvious stand-ins, matched in lower, upper and title case only (a random key rarely spells one:
# four letters or more, since `xxx` stands in about one GitHub token in 2,300).
PLACEHOLDER_WORDS = ("example", "dummy", "placeholder", "fake", "redacted", "changeme", "xxxx", "your",
                     "replace", "insert", "sample")  # fmt: skip
DEFAULT_PASSWORDS = frozenset({"password", "pass", "passwd", "pwd", "pw", "secret", "guest", "test", "root", "admin"})

# Words that a human-written value contains and a random one almost never does (4+ letters,
# so that the chance of one in 40 random characters stays below 1 in 500).
_WORDS = LazyPattern(
    r"pass|word|secret|token|test|demo|mock|stub|fixture|default|change|admin|root|user|guest|local"
    r"|host|prod|stag|develop|qwerty|asdf|letmein|welcome|hello|world|here|value|todo|fixme|none|null"
    r"|true|false|string|config|setting|environ|process|secure|django|flask|rails|private|public|access"
    r"|client|server|data|redis|mysql|postgres|master|dragon|monkey|summer|winter|spring|login|enter"
    r"|please|super|magic|alpha|beta|release|build|snapshot|version|bearer|basic|auth|api_|_api|key_|_key"
    r"|http|file|path|name|type|hash|sha1|sha256|base64|utf8|json|yaml|true|uuid|vault|ref_|_ref",
    IGNORECASE,
)
_TEMPLATE = LazyPattern(r"^[$%{<]|\$\{|\{\{|\*\*\*|\.\.\.|<[^>]*>|%\(|%s\b")
_HEX = LazyPattern(r"[0-9a-fA-F]+")
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_VERSION = LazyPattern(r"v?\d+(?:\.\d+)+(?:[-+~_.][0-9A-Za-z.-]*)?")
_DOTTED_NAME = LazyPattern(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")  # process.env.X, settings.SECRET
_SRI = ("sha256-", "sha384-", "sha512-")
# Each alternative takes a maximal run (the lookaheads), so a failing fullmatch cannot backtrack.
_MADE_OF_WORDS = LazyPattern(
    r"(?:[A-Z]?[a-z]{3,}(?![a-z])|[A-Z]{2,}(?![A-Za-z])|\d+(?!\d)|[_.!-])+"
)  # CorrectHorseBattery9
# A name that says the value is about a secret, not the secret itself (password_hash, token_url).
NOT_A_SECRET_NAME = LazyPattern(
    r"(?:hash|file|path|url|uri|name|type|length|len|ref|env|id|ids|count|field|header|prefix|policy"
    r"|version|ttl|arn|expiry|expires|expiration|endpoint|store|manager|provider|label|key_id|format)$",
    IGNORECASE,
)


def is_published_sample(value: str) -> bool:
    return any(sample.value in value for sample in PUBLISHED_SAMPLES)


def has_placeholder_word(value: str) -> bool:
    return any(v in value for w in PLACEHOLDER_WORDS for v in (w, w.upper(), w.capitalize()))


def is_template(value: str) -> bool:
    """`${VAR}`, `$VAR`, `{{ x }}`, `<your key>`, `%(pw)s`, `****`, `...`: not a literal value."""
    return bool(_TEMPLATE.search(value))


def is_sequential(value: str) -> bool:
    """abcdef123456, 0000..., ababab...: a run or repeat that no random generator produces by chance."""
    if len(value) < 4:
        return False
    steps = sum(abs(ord(b) - ord(a)) <= 1 for a, b in itertools.pairwise(value))
    if steps * 2 >= len(value) - 1:
        return True
    return any(value == (value[:k] * (len(value) // k + 1))[: len(value)] for k in range(1, len(value) // 3 + 1))


def is_stand_in(value: str) -> bool:
    """A sample, placeholder word, template or sequence: true for every detector's value."""
    return is_published_sample(value) or has_placeholder_word(value) or is_template(value) or is_sequential(value)


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    import math  # here: only a match is judged, and math is a module load on every tool call (issue 29)
    from collections import Counter  # and collections (issue 29)

    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


_BASE64 = LazyPattern(r"[A-Za-z0-9+/_-]+={0,2}")


def is_base64_text(value: str) -> bool:
    """Base64 (standard or URL-safe) whose decoded bytes are printable text."""
    if len(value) < 12 or not _BASE64.fullmatch(value):
        return False
    import base64  # and struct with it: only for a value that looks like base64, not on every guard call
    import binascii

    padded = value + "=" * (-len(value) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return len(raw) >= 6 and printable >= 0.9 * len(raw)


def _classes(value: str) -> tuple[int, int]:
    """(letter-and-digit classes present, all classes present) among lower, upper, digit, other."""
    alnum = any(c.islower() for c in value) + any(c.isupper() for c in value) + any(c.isdigit() for c in value)
    return alnum, alnum + any(not c.isalnum() for c in value)


def not_random_reason(value: str) -> str | None:
    """Why `value` does not look like a generated secret, or None if it does."""
    checks = (
        (len(value) < 10, "shorter than 10 characters"),
        (bool(_HEX.fullmatch(value)), "hexadecimal only (digests, object ids)"),
        (bool(_UUID.fullmatch(value)), "a UUID"),
        (bool(_VERSION.fullmatch(value)), "a version string"),
        (value.startswith(_SRI), "a subresource-integrity hash"),
        (bool(_DOTTED_NAME.fullmatch(value)), "a dotted name (an environment or settings lookup)"),
        (value.startswith(("/", "./", "~/")) or "://" in value, "a path or URL"),
        (is_stand_in(value), "a placeholder, sample or sequence"),
        (bool(_WORDS.search(value)), "contains a dictionary word"),
        (bool(_MADE_OF_WORDS.fullmatch(value)), "made of words"),
        (is_base64_text(value), "base64 of text"),
    )
    for failed, reason in checks:
        if failed:
            return reason
    alnum, every = _classes(value)
    if alnum < 2 or (every < 3 and len(value) < 16):
        return "too few character classes"
    if shannon_entropy(value) < (2.5 if len(value) < 16 else 3.0):
        return "entropy below the floor"
    return None


def looks_random(value: str) -> bool:
    """True if `value` could be a generated secret (see `not_random_reason`)."""
    return not_random_reason(value) is None


def plausible_password(value: str, user: str | None = None) -> bool:
    """A password in a URL or connection string: anything but a default, a stand-in or the user name."""
    lower = value.lower()
    if lower in DEFAULT_PASSWORDS or value == user or len(set(value)) == 1:
        return False
    return not (is_published_sample(value) or has_placeholder_word(value) or is_template(value))


def letter_digit_classes(value: str) -> int:
    """How many of lower case, upper case and digits `value` contains."""
    return _classes(value)[0]


# A variable named as a secret (API_TOKEN, DB_PASSWORD, AWS_SECRET_ACCESS_KEY, SENTRY_DSN).
SECRET_VARIABLE = LazyPattern(
    r"(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|KEY|APIKEY|CREDENTIALS?|AUTH|PRIVATE|SESSION|COOKIE"
    r"|SIGNATURE|DSN|CONNECTION_STRING)S?(?:_|$)",
    IGNORECASE,
)
MIN_SECRET_VARIABLE = 8  # shorter values are masked by their shape only (secrets.encodings.MIN_LENGTH)


def environment_secrets(env: Mapping[str, str]) -> frozenset[str]:
    """The values in `env` that redaction must know: a variable named as a secret, or any value
    that looks generated. Paths, versions and words are left out (`not_random_reason`)."""

    def secret(name: str, value: str) -> bool:
        named = bool(SECRET_VARIABLE.search(name)) and not NOT_A_SECRET_NAME.search(name)
        return len(value) >= MIN_SECRET_VARIABLE and (named or looks_random(value))

    return frozenset(v for k, v in env.items() if secret(k, v))
