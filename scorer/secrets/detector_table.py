"""The table of detectors for secrets and risky shell patterns: what each one matches, and how
its match is judged. `scorer.secrets.detectors` runs them (scanning and redaction).

Long because it is one table: every detector with the provider format it cites sits here,
so a reviewer reads the whole set in one place.

Each detector is one regex run over the whole added text at C speed. Patterns start
with a literal (`AKIA`, `ghp_`, `curl`, `>`) so `re` can skip ahead quickly; the
word-boundary check sits in a lookbehind *after* the literal, because a leading
lookbehind or `\\b` disables that fast path. Variable runs are bounded so a crafted
line cannot make a scan quadratic. Only private-key-block spans lines: it takes the
whole key body, so that its fingerprint is the key and not the header every key shares.
A detector's `judge` then decides, once per match, whether the value is a credential or
a stand-in (`scorer.secrets.secret_values`).
"""

from __future__ import annotations

from ..lazy_re import IGNORECASE, LazyPattern
from ..memo import memoised
from ..records import NamedTuple
from . import secret_values as values

TYPE_CHECKING = False  # typing's: re is imported where a pattern is compiled or a match judged (issue 29)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Container

SECRET = "secret"  # noqa: S105 - a violation code, not a password
RISKY_SHELL = "risky-shell"


class Detector(NamedTuple):
    """One pattern; `code` is the violation code it emits.

    `anchors` are literals at least one of which every match contains: a detector
    whose anchors are all absent from the added text is not compiled or run at all.
    `judge` says whether a match (re-matched on its own text) is a credential.
    """

    id: str
    code: str
    source: str
    description: str
    anchors: tuple[str, ...] = ()
    judge: Callable[[re.Match[str]], bool] | None = None
    more: tuple[tuple[str, str], ...] = ()  # (literal, source): more patterns, each run where its literal occurs

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compiled(self.source)

    def may_match(self, text: str) -> bool:
        return not self.anchors or any(a in text for a in self.anchors)

    def patterns(
        self, text: str | None = None, lower: str | None = None, present: Container[str] | None = None
    ) -> list[re.Pattern[str]]:
        """The patterns worth running over `text` (all of them if None).

        `lower` is `text.lower()`: one search there rules out every spelling of a part's
        literal at once (token, Token, TOKEN), where each absent literal costs a full pass.
        `present`, if given, answers `literal in text` for every literal (`detectors.Literals`,
        shared by all detectors of one scan); the same patterns, chosen by the same literals.
        """
        if text is None:
            return [self.pattern, *(_compiled(s) for _, s in self.more)]
        if present is not None:
            if not self.more:
                return [self.pattern] if not self.anchors or any(a in present for a in self.anchors) else []
            parts = ((self.anchors[0], self.source), *self.more)
            return [_compiled(source) for literal, source in parts if literal in present]
        if not self.more:
            return [self.pattern] if self.may_match(text) else []
        found: list[re.Pattern[str]] = []
        folded: dict[str, bool] = {}
        for literal, source in ((self.anchors[0], self.source), *self.more):
            key = literal.lower()
            if key not in folded:
                folded[key] = key in (lower if lower is not None else text.lower())
            if folded[key] and literal in text:
                found.append(_compiled(source))
        return found

    def rematch(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """The match of whichever of this detector's patterns matches at `pos`."""
        return next((m for p in self.patterns() if (m := p.match(text, pos))), None)


@memoised()
def _compiled(source: str) -> re.Pattern[str]:
    import re

    return re.compile(source)


# re.escape's table (Python 3.7 and later): the table below is built at import on every tool call,
# which would otherwise import re for it (issue 29). tests/secrets hold the two side by side.
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def _escape(text: str) -> str:
    """re.escape(text)."""
    return text.translate(_SPECIAL)


def _fresh(n: int, cls: str = "A-Za-z0-9_-") -> str:
    """Lookbehind placed after an n-character literal: the literal starts a word.

    `cls` is the token's own alphabet, so a match can only begin where a run of
    token characters begins: that keeps every scan linear (`sk-sk-sk-...`).
    """
    return f"(?<![{cls}]{'.' * n})"


def _words(*words: str) -> str:
    """Any of `words`, each starting a word (a path prefix such as /usr/bin/ is fine)."""
    return "(?:" + "|".join(f"{_escape(w)}(?<![\\w.-]{_escape(w)})" for w in words) + r")(?![\w-])"


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


# name = value, name: value, name => value, "name": "value", name: str = "value", in any of
# Python, JS/TS, YAML, JSON, .env, INI and TOML. An optional quote opens the value.
_ASSIGN = r"""["']?[ \t]*(?::[ \t]*[A-Za-z_][\w.]{0,30}[ \t]*)?(?:===?|=>|:=|=|:)[ \t]*(?:[rbuRBU]{0,2}["'`])?"""


def _cased(spellings: tuple[str | tuple[str, str], ...], pattern: str) -> list[tuple[str, str]]:
    """One (literal, source) per spelling (or per (literal, regex) pair) put in for {word}.

    A leading alternation makes `re` test every character against a set of first letters;
    a leading literal lets it skip ahead at C speed.
    """
    pairs = [(s, _escape(s)) if isinstance(s, str) else s for s in spellings]
    return [(literal, pattern.replace("{word}", regex)) for literal, regex in pairs]


def _named(name: str, value: str) -> str:
    """`value` (the `secret` group) assigned to an identifier matching `name`."""
    return rf"{name}[\w-]{{0,10}}{_ASSIGN}(?P<secret>{value})(?![A-Za-z0-9_-])"


_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _judge_token(m: re.Match[str]) -> bool:
    """A fixed-shape token: not a sample, stand-in or run, and more than 3 distinct characters."""
    value = _value(m)
    body = "".join(c for c in value[4:] if c in _ALNUM)
    return not values.is_stand_in(value) and len(set(body)) > 3


def _judge_mixed(m: re.Match[str]) -> bool:
    """A token whose random body mixes letters and digits or both cases (not a kebab-case name)."""
    return _judge_token(m) and values.letter_digit_classes(_value(m)) >= 2


def _judge_aws_secret(m: re.Match[str]) -> bool:
    value = _value(m)
    return _judge_mixed(m) and not (value and all(c in _HEX_DIGITS for c in value))


def _judge_password(m: re.Match[str]) -> bool:
    """A password in a URL or connection string: anything but a default, a stand-in or the user."""
    user = m.groupdict().get("user")
    return len(_value(m)) >= (1 if user is not None else 4) and values.plausible_password(_value(m), user)


_STAND_IN_BODY = LazyPattern(r"paste|insert|here|todo", IGNORECASE)


def _judge_private_key(m: re.Match[str]) -> bool:
    """Key material, or a bare header; not a template whose body is `<paste the key here>`."""
    body = _value(m)
    if m.group("body"):
        return len(set(body)) > 3 and not values.is_sequential(body[:64])
    after = m.group("next")
    if after is None:
        return True  # a header alone: someone is adding a key whose body this text does not show
    template = after.startswith("-----END") or values.is_template(after) or values.has_placeholder_word(after)
    return not (template or _STAND_IN_BODY.search(after))


def _judge_assignment(m: re.Match[str]) -> bool:
    """A generic name = literal: the name says secret and the literal looks generated."""
    if values.NOT_A_SECRET_NAME.search(m.group("name")) or not values.looks_random(_value(m)):
        return False
    return not _claimed(m)


def _claimed(m: re.Match[str]) -> bool:
    """A specific detector matches this value (so disabling that detector is not undone here)."""
    a, b = m.span("secret")
    start = max(0, m.start() - 80)  # room for a ;Password= or a Twilio-named key before the value
    window = m.string[start : m.end()]
    for d in _SPECIFIC_SECRETS:
        for pattern in d.patterns(window):
            if any(o.start() < b and a < o.end() for o in pattern.finditer(m.string, start, m.end())):
                return True
    return False


_GITLAB_PREFIXES = ("glpat-", "gloas-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-",
                    "glsoat-", "glffct-")  # fmt: skip
# The names the generic rule knows, one part per spelling (a leading literal keeps the scan fast).
_SECRET_WORDS = (
    ("pass", "pass(?:word|wd|phrase)"), ("Pass", "Pass(?:word|wd|phrase)"), ("PASS", "PASS(?:WORD|WD|PHRASE)"),
    ("secret", "secret"), ("Secret", "Secret"), ("SECRET", "SECRET"),
    ("token", "token"), ("Token", "Token"), ("TOKEN", "TOKEN"),
    ("api", "api(?:_?[Kk]ey|-key)"), ("Api", "Api_?[Kk]ey"), ("API", "API(?:_?KEY|Key|-KEY)"),
)  # fmt: skip
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

# Every match of a detector contains one of these literals (tests hold each firing case to it).
_ANCHORS: dict[str, tuple[str, ...]] = {
    "url-password": ("://",),
    "connection-string-password": (";",),
    "azure-storage-key": ("AccountKey=", "SharedAccessKey="),
    "private-key-block": ("PRIVATE KEY",),
    "aws-access-key-id": ("AKIA", "ASIA"),
    "aws-secret-access-key": ("ECRET", "ecret"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained-pat": ("github_pat_",),
    "gitlab-token": ("gl",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-AgEIcHlwaS5vcmc",),
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "slack-token": ("xox",),
    "slack-app-token": ("xapp-",),
    "slack-webhook": ("hooks.slack.com",),
    "google-api-key": ("AIza",),
    "google-oauth-client-secret": ("GOCSPX-",),
    "stripe-live-key": ("_live_",),
    "stripe-webhook-secret": ("whsec_",),
    "sendgrid-api-key": ("SG.",),
    "twilio-api-key": ("SK",),
    "jwt": ("eyJ",),
    "curl-pipe-shell": ("curl", "wget"),
    "shell-exec-remote": ("curl", "wget"),
    "shell-profile-write": ("bashrc", "zshrc", "kshrc", "cshrc", "profile", "bash_log", "zshenv", "zlogin",
                            "fish", "environment"),
    "ssh-config-write": ("ssh/",),
    "chmod-777": ("chmod",),
}  # fmt: skip


def _d(
    id: str,
    code: str,
    pattern: str | list[tuple[str, str]],
    description: str,
    judge: Callable[[re.Match[str]], bool] | None = None,
) -> Detector:
    """A table row; `pattern` is one source, or (literal, source) parts each run where its literal occurs."""
    if code == SECRET and judge is None:
        judge = _judge_token
    if isinstance(pattern, str):
        return Detector(id, code, pattern, description, _ANCHORS[id], judge)
    (literal, first), *rest = pattern
    return Detector(id, code, first, description, (literal,), judge, tuple(rest))


_PEM_SEP = r"(?:(?:\\r)?\\n|\r?\n|[ \t]+)"  # a real or an escaped line end, or spaces (one-line keys)
_PEM_HEADER = r"-----BEGIN (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----"

DETECTORS: tuple[Detector, ...] = (
    # Before the token detectors, so redact() masks a whole credentialed URL once.
    _d("url-password", SECRET,
       r"""://(?P<user>[^\s:@/?#'"<>]*):(?P<secret>[^\s:@/?#'"<>$%{*][^\s@/?#'"<>]*)@""",
       "URL with a password in its user info (scheme://user:password@host; RFC 3986 section 3.2.1)",
       _judge_password),
    _d("connection-string-password", SECRET,
       r""";[ \t]?(?:[Pp]assword|PASSWORD|[Pp]wd|PWD)[ \t]*=[ \t]*(?P<secret>[^;'"\s$%{<*][^;'"\s]{0,127})""",
       "Password=/Pwd= inside a ;-separated connection string (ADO.NET, ODBC, JDBC); "
       "https://learn.microsoft.com/dotnet/framework/data/adonet/connection-string-syntax", _judge_password),
    _d("azure-storage-key", SECRET,
       r"(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{40,100}={0,2})(?![A-Za-z0-9+/=])",
       "Azure storage AccountKey= (88 base64 characters) or Service Bus/Event Hubs SharedAccessKey= in a "
       "connection string; https://learn.microsoft.com/azure/storage/common/storage-configure-connection-string"),
    _d("private-key-block", SECRET,
       rf"(?P<header>{_PEM_HEADER})(?:{_PEM_SEP}[A-Za-z-]+: [^\n\\]{{0,200}}){{0,8}}"
       rf"(?:{_PEM_SEP}(?P<body>[A-Za-z0-9+/=]{{16,4096}}(?:{_PEM_SEP}[A-Za-z0-9+/=]{{1,4096}}){{0,400}}))?"
       rf"(?:{_PEM_SEP}(?P<next>[^\n\\]{{1,80}}))?",
       "PEM/OpenSSH/PGP private key block: the header and the whole key body (RFC 7468)", _judge_private_key),
    _d("aws-access-key-id", SECRET, rf"(?:AKIA|ASIA){_fresh(4, 'A-Za-z0-9')}[A-Z0-9]{{16}}(?![A-Za-z0-9])",
       "AWS access key id (AKIA.../ASIA...); https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html"),
    _d("aws-secret-access-key", SECRET,
       r"""(?:SECRET_ACCESS_KEY|secret_access_key|SecretAccessKey|secretAccessKey|secret-access-key|secret_key)"""
       r"""["']?[ \t]*(?:=>?|:)[ \t]*["']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
       "AWS secret access key (40 base64 characters) under aws_secret_access_key or Terraform's secret_key; "
       "https://registry.terraform.io/providers/hashicorp/aws/latest/docs#secret_key", _judge_aws_secret),
    _d("github-token", SECRET, rf"gh[pousr]_{_fresh(4, _ALNUM_)}[A-Za-z0-9]{{36,251}}{_END}",
       "GitHub classic token (ghp_, gho_, ghu_, ghs_, ghr_); "
       "https://github.blog/engineering/platform-security/behind-githubs-new-authentication-token-formats/"),
    _d("github-fine-grained-pat", SECRET,
       rf"github_pat_{_fresh(11, _ALNUM_)}[A-Za-z0-9]{{20,30}}_[A-Za-z0-9]{{50,70}}{_END}",
       "GitHub fine-grained personal access token (github_pat_...)"),
    _d("gitlab-token", SECRET,
       rf"gl{_fresh(2)}(?:{'|'.join(p[2:] for p in _GITLAB_PREFIXES)})[A-Za-z0-9_-]{{20,}}{_B64_END}",
       "GitLab token of any documented family (glpat-, gloas-, gldt-, glrt-, glcbt-, glptt-, glft-, glimt-, "
       "glagent-, glsoat-, glffct-); https://docs.gitlab.com/security/tokens/#token-prefixes", _judge_mixed),
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
       "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-); https://api.slack.com/authentication/token-types"),
    _d("slack-app-token", SECRET,
       rf"xapp-{_fresh(5)}[0-9]{{1,2}}-[A-Z0-9]{{8,14}}-[0-9]{{8,16}}-[A-Za-z0-9]{{32,128}}{_END}",
       "Slack app-level token (xapp-1-A...-digits-hex); https://api.slack.com/authentication/token-types#app"),
    _d("slack-webhook", SECRET,
       r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
       "Slack incoming webhook URL; https://api.slack.com/messaging/webhooks"),
    _d("google-api-key", SECRET, rf"AIza{_fresh(4)}[0-9A-Za-z_-]{{35}}{_B64_END}",
       "Google API key (AIza + 35 chars)"),
    _d("google-oauth-client-secret", SECRET, rf"GOCSPX-{_fresh(7)}[A-Za-z0-9_-]{{28}}{_B64_END}",
       "Google OAuth client secret (GOCSPX- + 28 base64url characters); "
       "https://support.google.com/cloud/answer/15549257", _judge_mixed),
    _d("stripe-live-key", SECRET, rf"(?:sk|rk)_live_{_fresh(8, _ALNUM_)}[0-9A-Za-z]{{20,}}{_END}",
       "Stripe live secret or restricted key (sk_live_, rk_live_); https://docs.stripe.com/keys"),
    _d("stripe-webhook-secret", SECRET, rf"whsec_{_fresh(6, _ALNUM_)}[0-9A-Za-z]{{24,}}{_END}",
       "Stripe webhook signing secret (whsec_...); https://docs.stripe.com/webhooks#verify-official-libraries",
       _judge_mixed),
    _d("sendgrid-api-key", SECRET,
       rf"SG\.{_fresh(3, 'A-Za-z0-9_.-')}[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9_-]{{43}}{_B64_END}",
       "SendGrid API key (SG. + 22 + . + 43 characters, 69 in all); "
       "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys"),
    _d("twilio-api-key", SECRET, rf"SK{_fresh(2, 'A-Za-z0-9')}[0-9a-f]{{32}}(?![A-Za-z0-9])",
       "Twilio API key SID (SK + 32 hex digits); https://www.twilio.com/docs/iam/api-keys", _judge_mixed),
    _d("twilio-auth-token", SECRET,
       _cased(("twilio", "Twilio", "TWILIO"),
              _named(r"{word}[\w.-]{0,30}?(?:[Tt]oken|TOKEN|[Ss]ecret|SECRET)", "[A-Za-z0-9]{32}")),
       "Twilio auth token or API key secret (32 characters) under a Twilio-named key; "
       "https://www.twilio.com/docs/iam/api/authtoken", _judge_mixed),
    _d("heroku-api-key", SECRET,
       [("HRKU-", rf"HRKU-{_fresh(5)}[A-Za-z0-9_-]{{40,}}{_B64_END}"),
        *_cased(("heroku", "Heroku", "HEROKU"), _named(r"{word}[\w.-]{0,20}?(?:[Kk]ey|KEY|[Tt]oken|TOKEN)", _UUID))],
       "Heroku API key: HRKU-... or a UUID under a Heroku-named key; "
       "https://devcenter.heroku.com/articles/authentication"),
    _d("datadog-key", SECRET,
       _cased(("datadog", "Datadog", "DATADOG", ("DD_", "DD_(?<![A-Za-z0-9]DD_)"), ("dd_", "dd_(?<![A-Za-z0-9]dd_)")),
              _named(r"{word}[\w.-]{0,20}?(?:[Aa]pi|API|[Aa]pp|APP|[Aa]pplication|APPLICATION)[_.-]?(?:[Kk]ey|KEY)",
                     "[0-9a-f]{40}|[0-9a-f]{32}")),
       "Datadog API key (32 hex) or application key (40 hex) under a Datadog-named key; "
       "https://docs.datadoghq.com/account_management/api-app-keys/", _judge_mixed),
    _d("jwt", SECRET,
       rf"eyJ{_fresh(3)}[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}{_B64_END}",
       "JSON Web Token (three base64url segments starting eyJ; RFC 7519)"),
    # Last of the secrets: where a specific detector also matches, it reports (or is disabled).
    _d("secret-assignment", SECRET,
       [(literal, rf"(?P<name>{word}[\w.-]{{0,40}}){_ASSIGN}"
                  r"""(?P<secret>[^\s"'`\\()\[\]{}<>,;]{10,200})(?=["'`\s,;]|\Z)""")
        for literal, word in _SECRET_WORDS],
       "a generated-looking literal (10+ characters, mixed classes, entropy floor, no dictionary word) "
       "assigned to a password, secret, token or api_key name", _judge_assignment),
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

_SECRETS = tuple(d for d in DETECTORS if d.code == SECRET)
_SPECIFIC_SECRETS = tuple(d for d in _SECRETS if d.id != "secret-assignment")


_KEY_BREAKS = LazyPattern(r"\\r|\\n|\s")  # a key body's line breaks, escaped or not


def _value(m: re.Match[str]) -> str:
    """The credential in a match: its `secret` group, a key's whole body (line breaks dropped),
    or else the whole match."""
    groups = m.groupdict()
    if "body" in groups:  # a private key: its body, or its header if the body is not shown
        return _KEY_BREAKS.sub("", groups["body"]) if groups["body"] else groups["header"]
    return groups.get("secret") or m.group(0)
