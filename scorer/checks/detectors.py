"""Detectors for secrets and risky shell patterns in added lines, plus redaction.

Each detector is one regex run over the whole added text at C speed. Patterns start
with a literal (`AKIA`, `ghp_`, `curl`, `>`) so `re` can skip ahead quickly; the
word-boundary check sits in a lookbehind *after* the literal, because a leading
lookbehind or `\\b` disables that fast path. Variable runs are bounded so a crafted
line cannot make a scan quadratic. No pattern needs to span lines to fire (only
private-key-block reaches into the next line, for a fingerprint that is not just
the header).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import re
from collections.abc import Callable
from typing import NamedTuple

from ..model import AddedMatch, AddedText, Violation

SECRET = "secret"  # noqa: S105 - a violation code, not a password
RISKY_SHELL = "risky-shell"
MASK = "****"
MAX_PER_DETECTOR = 100  # a flood of matches is listed once it is clearly a FAIL


class Detector(NamedTuple):
    """One pattern; `code` is the violation code it emits.

    `anchors` are literals at least one of which every match contains: a detector
    whose anchors are all absent from the added text is not compiled or run at all.
    """

    id: str
    code: str
    source: str
    description: str
    anchors: tuple[str, ...] = ()

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source)

    def may_match(self, text: str) -> bool:
        return not self.anchors or any(a in text for a in self.anchors)


@functools.cache
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _fresh(n: int, cls: str = "A-Za-z0-9_-") -> str:
    """Lookbehind placed after an n-character literal: the literal starts a word.

    `cls` is the token's own alphabet, so a match can only begin where a run of
    token characters begins: that keeps every scan linear (`sk-sk-sk-...`).
    """
    return f"(?<![{cls}]{'.' * n})"


def _words(*words: str) -> str:
    """Any of `words`, each starting a word (a path prefix such as /usr/bin/ is fine)."""
    return "(?:" + "|".join(f"{re.escape(w)}(?<![\\w.-]{re.escape(w)})" for w in words) + r")(?![\w-])"


_ALNUM_ = "A-Za-z0-9_"  # before a token with an alphanumeric body, '-' is a boundary
_END = r"(?![A-Za-z0-9])"  # after an alphanumeric body
_B64_END = r"(?![A-Za-z0-9_-])"  # after a base64url body

# Shell fragments shared by the risky-shell patterns.
_FETCH = _words("curl", "wget")
_SHELL = r"""["']?(?:[\w./-]*/)?(?:ba|z|da|k|c|tc|fi|a)?sh["']?(?![\w.-])"""
_WRAPPER = (
    r"(?:(?:[\w./-]*/)?(?:sudo|doas)(?:[ \t]+(?:-[ugCDrtph][ \t]+[^\s-]\S*|-\S+)){0,8}[ \t]+"
    r"|(?:[\w./-]*/)?(?:env|command|exec|nohup|time|nice)(?:[ \t]+-\S+){0,8}[ \t]+"
    r"|\w+=\S*[ \t]+){0,8}"
)
_HOME = (
    r"""["']?(?:~[\w-]*|\$HOME|\$\{HOME[^}\s]*\}|\$\{?ZDOTDIR\}?|/root"""
    r"""|/home/[^/\s"';&|<>]+|/Users/[^/\s"';&|<>]+)["']?/+["']?"""
)
_PROFILE = (
    _HOME + r"\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin"
    r"|kshrc|cshrc|tcshrc|config/fish/config\.fish)(?![\w.-])"
    r"|/etc/(?:profile(?:\.d/[^\s\"';&|<>]*)?|bash\.bashrc|environment"
    r"|(?:zsh/)?z(?:shrc|shenv|profile|login))(?![\w.-])"
)
_SSH = (
    _HOME + r"\.ssh/(?:config|authorized_keys2?|environment|rc)(?![\w.-])"
    r"|/etc/ssh/sshd?_config(?:\.d/\S*)?(?![\w.-])"
)


def _write_to(target: str) -> str:
    """Redirection, tee, sed -i, or cp/mv/ln/install whose last argument is `target`.

    Argument runs are bounded ({0,8} words) so a crafted line cannot make the scan quadratic.
    """
    args = r"(?:[ \t]+[^\s;&|]+){0,8}?[ \t]+"
    last = r"""["']?(?=[ \t]*(?:[;&|)#]|$))"""
    return (
        rf"(?m:>>?\|?[ \t]*(?:{target})"
        rf"|{_words('tee')}{args}(?:{target})"
        rf"|{_words('sed')}(?:[ \t]+[^\s;&|]+){{0,3}}?[ \t]+-i\S*{args}(?:{target})"
        rf"|{_words('cp', 'mv', 'ln', 'install', 'rsync')}{args}(?:{target}){last})"
    )


def _d(id: str, code: str, pattern: str, description: str) -> Detector:
    return Detector(id, code, pattern, description, _ANCHORS[id])


# Every match of a detector contains one of these literals (tests hold each firing case to it).
_ANCHORS: dict[str, tuple[str, ...]] = {
    "url-password": ("://",),
    "private-key-block": ("PRIVATE KEY",),
    "aws-access-key-id": ("AKIA", "ASIA"),
    "aws-secret-access-key": ("ECRET", "ecret"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained-pat": ("github_pat_",),
    "gitlab-token": ("glpat-",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-AgEIcHlwaS5vcmc",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "google-api-key": ("AIza",),
    "stripe-live-key": ("_live_",),
    "jwt": ("eyJ",),
    "curl-pipe-shell": ("curl", "wget"),
    "shell-exec-remote": ("curl", "wget"),
    "shell-profile-write": ("bashrc", "zshrc", "kshrc", "cshrc", "profile", "bash_log", "zshenv", "zlogin",
                            "fish", "environment"),
    "ssh-config-write": ("ssh/",),
    "chmod-777": ("chmod",),
}


DETECTORS: tuple[Detector, ...] = (
    # Before the token detectors, so redact() masks a whole credentialed URL once.
    _d("url-password", SECRET,
       r"""://(?P<user>[^\s:@/?#'"<>]*):(?P<secret>[^\s:@/?#'"<>$%{*][^\s@/?#'"<>]*)@""",
       "URL with a password in its user info (scheme://user:password@host)"),
    _d("private-key-block", SECRET,
       r"-----BEGIN (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----"
       r"(?:(?:(?:\\r)?\\n|\r?\n|[ \t]+)[A-Za-z0-9+/=]{16,64})?",
       "PEM/OpenSSH/PGP private key header (with the first key line, if any)"),
    _d("aws-access-key-id", SECRET, rf"(?:AKIA|ASIA){_fresh(4, 'A-Za-z0-9')}[A-Z0-9]{{16}}(?![A-Za-z0-9])",
       "AWS access key id (AKIA.../ASIA...)"),
    _d("aws-secret-access-key", SECRET,
       r"""(?:SECRET_ACCESS_KEY|secret_access_key|SecretAccessKey|secretAccessKey|secret-access-key)"""
       r"""["']?[ \t]*(?:=>?|:)[ \t]*["']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
       "AWS secret access key assigned to an aws_secret_access_key-like name"),
    _d("github-token", SECRET, rf"gh[pousr]_{_fresh(4, _ALNUM_)}[A-Za-z0-9]{{36,251}}{_END}",
       "GitHub classic token (ghp_, gho_, ghu_, ghs_, ghr_)"),
    _d("github-fine-grained-pat", SECRET,
       rf"github_pat_{_fresh(11, _ALNUM_)}[A-Za-z0-9]{{20,30}}_[A-Za-z0-9]{{50,70}}{_END}",
       "GitHub fine-grained personal access token (github_pat_...)"),
    _d("gitlab-token", SECRET, rf"glpat-{_fresh(6)}[A-Za-z0-9_-]{{20,}}{_B64_END}",
       "GitLab personal access token"),
    _d("npm-token", SECRET, rf"npm_{_fresh(4, _ALNUM_)}[A-Za-z0-9]{{36}}{_END}", "npm access token"),
    _d("pypi-token", SECRET, rf"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{{50,}}{_B64_END}", "PyPI API token"),
    _d("anthropic-key", SECRET, rf"sk-ant-{_fresh(7)}[A-Za-z0-9_-]{{32,}}{_B64_END}",
       "Anthropic API key (sk-ant-...)"),
    # Mixed case plus a digit keeps identifiers such as sk-learn-compatible-... out.
    _d("openai-key", SECRET,
       rf"sk-{_fresh(3)}(?!ant-)(?:(?:proj|svcacct|admin)-)?(?=[A-Za-z0-9_-]*?[0-9])"
       rf"(?=[A-Za-z0-9_-]*?[A-Z])(?=[A-Za-z0-9_-]*?[a-z])[A-Za-z0-9_-]{{32,}}{_B64_END}",
       "OpenAI-style API key (sk-..., sk-proj-...)"),
    _d("slack-token", SECRET,
       rf"xox[abprs]-{_fresh(5)}(?=[A-Za-z0-9-]*?[0-9])[A-Za-z0-9-]{{10,}}{_B64_END}",
       "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-)"),
    _d("slack-webhook", SECRET,
       r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
       "Slack incoming webhook URL"),
    _d("google-api-key", SECRET, rf"AIza{_fresh(4)}[0-9A-Za-z_-]{{35}}{_B64_END}",
       "Google API key (AIza + 35 chars)"),
    _d("stripe-live-key", SECRET, rf"(?:sk|rk)_live_{_fresh(8, _ALNUM_)}[0-9A-Za-z]{{20,}}{_END}",
       "Stripe live secret or restricted key (sk_live_, rk_live_)"),
    _d("jwt", SECRET,
       rf"eyJ{_fresh(3)}[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}{_B64_END}",
       "JSON Web Token (three base64url segments starting eyJ)"),
    _d("curl-pipe-shell", RISKY_SHELL,
       rf"{_FETCH}[^\n]{{0,500}}?(?<!\|)\|(?!\|)&?[ \t]*{_WRAPPER}{_SHELL}",
       "remote content piped to a shell"),
    _d("shell-exec-remote", RISKY_SHELL,
       _words("bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish", "sh", "eval", "source", ".")
       + rf"""[ \t]+(?:-\S+[ \t]+){{0,8}}["']?[ \t]*(?:\$\(|`|<[ \t]*<\(|<\()[ \t]*{_WRAPPER}{_FETCH}""",
       "remote content run by a shell (sh -c \"$(curl ...)\", bash <(curl ...), eval, source)"),
    _d("shell-profile-write", RISKY_SHELL, _write_to(_PROFILE),
       "write to a shell profile (~/.bashrc, ~/.profile, ...)"),
    _d("ssh-config-write", RISKY_SHELL, _write_to(_SSH), "write to SSH config or authorized_keys"),
    _d("chmod-777", RISKY_SHELL,
       r"""chmod(?<![\w-]chmod)(?:[ \t]+-[\w-]+(?:=\S*)?){0,8}[ \t]+["']?"""
       r"""(?:0{0,2}[0-7]{2}[2367](?![0-7])|(?:[ugoa]*[-+=][rwxXstugo]*,)*[ugo]*[ao][ugo]*[+=][rwxXst]*w)"""
       r"""|chmod(?:Sync)?\((?:[^\n]{0,200}?,)?[ \t]*(?:mode[ \t]*=[ \t]*)?0o?[0-7]{2}[2367](?![0-7])""",
       "chmod granting write to everyone (777, 666, a+rwx, o+w)"),
)  # fmt: skip

DETECTOR_IDS: frozenset[str] = frozenset(d.id for d in DETECTORS)
_SECRETS = tuple(d for d in DETECTORS if d.code == SECRET)

# Widely published sample values and obvious stand-ins; they never fire.
_PLACEHOLDER_WORDS = ("example", "dummy", "placeholder", "fake", "redacted", "changeme", "xxxx", "your")
_PLACEHOLDER_VALUES = frozenset({"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"})  # jwt.io sample signature
_DEFAULT_PASSWORDS = frozenset({"password", "pass", "passwd", "pwd", "pw", "secret", "guest", "test"})

# For redacting free text: the whole PEM block, body lines and END line included.
_PEM_BLOCK = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:\\r)?\\n|\r?\n|[ \t]|[A-Za-z0-9+/=]|[A-Za-z-]+: [^\n\\]*)*"
    r"(?:-----END (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----)?"
)


def fingerprint(value: str) -> str:
    """Stable id for one secret value: sha256: plus 16 hex digits."""
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:16]


def redacted(match: str) -> str:
    """The only form of a match that may be shown: its first 4 characters and a mask."""
    return match[:4] + MASK


def secret_value(detector: Detector, match: str) -> str:
    """The credential inside a match: the `secret` group if the pattern has one."""
    m = detector.pattern.match(match)
    if m and "secret" in detector.pattern.groupindex:
        return m.group("secret")
    return match


def is_placeholder(detector: Detector, match: str) -> bool:
    """True for documented sample values and obvious stand-ins (all-x, EXAMPLE...)."""
    value = secret_value(detector, match)
    lower = value.lower()
    # Whole-word casings only (example, EXAMPLE, Example): a random key rarely spells one.
    words = (v for w in _PLACEHOLDER_WORDS for v in (w, w.upper(), w.capitalize()))
    if any(p in value for p in _PLACEHOLDER_VALUES) or any(w in value for w in words):
        return True
    if detector.id == "url-password":
        user = match[3 : match.index(":", 3)]
        return lower in _DEFAULT_PASSWORDS or value == user or len(set(value)) == 1
    return len(set(re.sub(r"[^A-Za-z0-9]", "", value[4:]))) <= 3


def _check(detector: Detector, found: AddedMatch, allowed: frozenset[str]) -> tuple[Violation, str] | None:
    """The violation for one match, with the key under which duplicates collapse."""
    where = (found.path, found.line)
    if detector.code == RISKY_SHELL:
        shown = f"{detector.id}: {detector.description} ({redacted(found.match)})"
        return Violation(RISKY_SHELL, shown, *where), shown
    if is_placeholder(detector, found.match):
        return None
    fp = fingerprint(secret_value(detector, found.match))
    if fp in allowed:
        return None
    shown = f"{detector.id}: {redacted(found.match)} (fingerprint {fp}; allow it in allowed_fingerprints)"
    return Violation(SECRET, shown, *where), fp


def scan(
    added: AddedText,
    *,
    disabled: frozenset[str] = frozenset(),
    allowed_fingerprints: frozenset[str] = frozenset(),
) -> list[Violation]:
    """Every secret and risky-shell violation in the added lines, sorted by path and line.

    Inline comments such as `pragma: allowlist secret` or `nosec` are deliberately
    not honoured: the job under review could add them itself.
    """
    found: dict[tuple[str, int, str], Violation] = {}
    for detector in DETECTORS:
        if detector.id not in disabled and detector.may_match(added.text):
            found.update(_scan_one(detector, added, allowed_fingerprints, found))
    return sorted(found.values(), key=lambda v: (v.path or "", v.line or 0))


def _scan_one(
    detector: Detector, added: AddedText, allowed: frozenset[str], seen: dict[tuple[str, int, str], Violation]
) -> dict[tuple[str, int, str], Violation]:
    """One detector's violations, keyed so a token inside a credentialed URL reports once."""
    found: dict[tuple[str, int, str], Violation] = {}
    hits = 0
    for m in added.search(detector.pattern):
        checked = _check(detector, m, allowed)
        if checked is None:
            continue
        if hits == MAX_PER_DETECTOR:
            more = f"{detector.id}: more than {MAX_PER_DETECTOR} matches; the rest are not listed"
            found[(m.path, m.line, "more")] = Violation(detector.code, more, m.path, m.line)
            break
        hits += 1
        found.setdefault((m.path, m.line, checked[1]), checked[0])
    return {k: v for k, v in found.items() if k not in seen}


def redact_with_counts(text: str) -> tuple[str, collections.Counter[str]]:
    """Replace every secret shape in `text` with its redacted form; count by detector id."""
    counts: collections.Counter[str] = collections.Counter()

    def mask(detector: Detector) -> Callable[[re.Match[str]], str]:
        def replace(m: re.Match[str]) -> str:
            if is_placeholder(detector, m.group(0)):
                return m.group(0)
            counts[detector.id] += 1
            return redacted(m.group(0))

        return replace

    pem = next(d for d in _SECRETS if d.id == "private-key-block")
    text = _PEM_BLOCK.sub(mask(pem), text)
    for detector in _SECRETS:
        if detector.may_match(text):
            text = detector.pattern.sub(mask(detector), text)
    return text, counts


def redact(text: str) -> str:
    """`text` with every secret shape replaced by its redacted form."""
    return redact_with_counts(text)[0]
