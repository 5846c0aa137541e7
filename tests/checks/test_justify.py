"""Blast-radius trailers: parsing commit messages and applying the rule."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from scorer.checks.justify import Claim, evaluate, parse_trailers, resolve_evidence
from scorer.checks.sensitive import SensitiveHit, classify
from scorer.model import DELETED, MODIFIED, RENAMED, ChangedPath, Justification

GOOD = """Add an index for login lookups

Blast-Radius: migrations/0042_add_users_index.sql
Justification: src/db/users.py:214 login looks users up by email; without an index this scans the table
Rollback: DROP INDEX CONCURRENTLY idx_users_email;
"""

MIGRATION = "migrations/0042_add_users_index.sql"
TREE = {"src/db/users.py": 300, "src/app.py": 10, "empty.txt": 0, MIGRATION: 3}


def line_count(path: str) -> int | None:
    return TREE.get(path)


# ---------------------------------------------------------------- parse_trailers


def view(claims: Sequence[Claim]) -> list[tuple[str, str | None, str, str]]:
    return [(c.path, c.evidence, c.reason, c.rollback) for c in claims]


PARSE_CASES = [
    pytest.param(
        [GOOD],
        [
            (
                MIGRATION,
                "src/db/users.py:214",
                "login looks users up by email; without an index this scans the table",
                "DROP INDEX CONCURRENTLY idx_users_email;",
            )
        ],
        id="one-group",
    ),
    pytest.param(
        [
            "Blast-Radius: a.sql\nJustification: x.py:1 why a\nRollback: undo a\n"
            "Blast-Radius: Makefile\nJustification: y.py:2 why b\nRollback: undo b\n"
        ],
        [("a.sql", "x.py:1", "why a", "undo a"), ("Makefile", "y.py:2", "why b", "undo b")],
        id="two-groups",
    ),
    pytest.param(
        ["blast-radius: a.sql\nJUSTIFICATION: x.py:1 why\nrollBack:   undo  \n"],
        [("a.sql", "x.py:1", "why", "undo")],
        id="keys-case-insensitive",
    ),
    pytest.param(
        ["   Blast-Radius:   a.sql   \n\tJustification : x.py:1   why  \n  Rollback:undo\n"],
        [("a.sql", "x.py:1", "why", "undo")],
        id="whitespace-tolerated",
    ),
    pytest.param(
        ["Blast Radius: a.sql\nBlast_Radius: b.sql\nJustification: x.py:1 why\nRollback: undo\n"],
        [("a.sql", "x.py:1", "why", "undo"), ("b.sql", "x.py:1", "why", "undo")],
        id="consecutive-blast-radius-lines-share-a-group",
    ),
    pytest.param(
        [
            "Blast-Radius: a.sql\n# Justification: fake.py:1 from a comment\n"
            "  # Rollback: nope\nJustification: x.py:1 why\n"
        ],
        [("a.sql", "x.py:1", "why", "")],
        id="comment-lines-ignored",
    ),
    pytest.param(
        [
            "Blast-Radius: a.sql\nJustification: x.py:1 why\n"
            "# ------------------------ >8 ------------------------\n"
            "diff --git a/b.sql b/b.sql\n Rollback: from the diff\n Blast-Radius: b.sql\n"
        ],
        [("a.sql", "x.py:1", "why", "")],
        id="nothing-below-scissors",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\n"],
        [("a.sql", None, "", "")],
        id="missing-justification-and-rollback",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: because I said so\nRollback: undo\n"],
        [("a.sql", None, "because I said so", "undo")],
        id="justification-without-evidence",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: x.py:1\nRollback: undo\n"],
        [("a.sql", "x.py:1", "", "undo")],
        id="evidence-without-reason",
    ),
    pytest.param(
        ["Justification: x.py:1 orphan\nRollback: orphan\nBlast-Radius: a.sql\n"],
        [("a.sql", None, "", "")],
        id="trailers-before-any-group-ignored",
    ),
    pytest.param(
        ["Blast-Radius:\nBlast-Radius:   \nJustification: x.py:1 why\n"],
        [],
        id="empty-path-ignored",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: x.py:1 why\nRollback:\n"],
        [("a.sql", "x.py:1", "why", "")],
        id="empty-value-ignored",
    ),
    pytest.param(
        ['Blast-Radius: "migrations\\0001.sql"\nBlast-Radius: `./b.sql`\nJustification: .\\x.py:3 why\n'],
        [("migrations/0001.sql", ".\\x.py:3", "why", ""), ("b.sql", ".\\x.py:3", "why", "")],
        id="quotes-backslashes-dot-slash",
    ),
    pytest.param(
        [
            "Blast-Radius: a.sql\nJustification: x.py:1 the reason\n  continues here\nRollback: step one\n"
            "   then step two\n\n   not a continuation after a blank line\n"
        ],
        [("a.sql", "x.py:1", "the reason continues here", "step one then step two")],
        id="continuation-lines",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: x.py:1 why\n", "Blast-Radius: a.sql\nRollback: undo\n"],
        [("a.sql", "x.py:1", "why", "undo")],
        id="later-message-merges-missing-fields",
    ),
    pytest.param(
        [
            "Blast-Radius: a.sql\nJustification: x.py:1 old\nRollback: old undo\n",
            "Blast-Radius: a.sql\nJustification: y.py:9 new\n",
        ],
        [("a.sql", "y.py:9", "new", "old undo")],
        id="later-message-overrides-fields-it-gives",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: x.py:1 first\nBlast-Radius: a.sql\nRollback: undo\n"],
        [("a.sql", "x.py:1", "first", "undo")],
        id="same-path-twice-in-one-message",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\r\nJustification: x.py:1 why\r\nRollback: undo\r\n"],
        [("a.sql", "x.py:1", "why", "undo")],
        id="crlf",
    ),
    pytest.param(["Fix a typo\n\nSigned-off-by: A <a@example.com>\n"], [], id="no-trailers"),
    pytest.param(
        [
            "Blast-Radius: a.sql\nJustification: x.py:1 why\n"
            "; ------------------------ >8 ------------------------\n"
            " Blast-Radius: b.sql\n"
        ],
        [("a.sql", "x.py:1", "why", "")],
        id="scissors-with-other-comment-char",
    ),
    pytest.param(
        ["Blast-Radius: a.sql\nJustification: `x.py:1`\twhy\tnow\n"],
        [("a.sql", "x.py:1", "why\tnow", "")],
        id="backticked-evidence-and-tab",
    ),
    pytest.param([], [], id="no-messages"),
]


@pytest.mark.parametrize(("messages", "expected"), PARSE_CASES)
def test_parse_trailers(messages: list[str], expected: list[tuple[str, str | None, str, str]]) -> None:
    assert view(parse_trailers(messages)) == expected


def test_parse_sources() -> None:
    first, second = parse_trailers(["x\n\nBlast-Radius: a.sql\n", "Blast-Radius: b.sql\n"], sources=["commit abc"])
    assert first.source == "commit abc line 3"
    assert second.source == "message 2 line 1"
    (merged,) = parse_trailers(["Blast-Radius: a.sql\n", "Blast-Radius: a.sql\n"], sources=["c1", "c2"])
    assert merged.source == "c1 line 1; c2 line 1"


# ---------------------------------------------------------------- resolve_evidence


@pytest.mark.parametrize(
    ("evidence", "problem"),
    [
        ("src/db/users.py:214", None),
        ("src/db/users.py:1", None),
        ("src/db/users.py:300", None),
        ("./src/db/users.py:214", None),
        ("src\\db\\users.py:214", None),
        (
            "src/db/users.py:301",
            "evidence line src/db/users.py:301 does not exist (src/db/users.py has 300 lines)",
        ),
        ("src/db/users.py:0", "evidence line src/db/users.py:0 does not exist"),
        ("empty.txt:1", "evidence line empty.txt:1 does not exist (empty.txt has 0 lines)"),
        ("src/db/missing.py:3", "evidence file 'src/db/missing.py' does not exist in the scored tree"),
        ("src/db/users.py:", "is not <file>:<line>"),
        ("src/db/users.py:-1", "is not <file>:<line>"),
        ("src/db/users.py:12-20", "is not <file>:<line>"),
        ("src/db/users.py:1a", "is not <file>:<line>"),
        (":12", "is not <file>:<line>"),
        ("users.py", "is not <file>:<line>"),
        ("/etc/passwd:1", "is not a repo-relative path"),
        ("C:\\repo\\src\\db\\users.py:214", "is not a repo-relative path"),
        ("c:/repo/x.py:1", "is not a repo-relative path"),
        ("../outside/src/db/users.py:214", "is not a repo-relative path"),
        ("src/../src/db/users.py:214", "is not a repo-relative path"),
        (".git/HEAD:1", "is not a repo-relative path"),
        ("src/.GIT/config:1", "is not a repo-relative path"),
    ],
)
def test_resolve_evidence(evidence: str, problem: str | None) -> None:
    result = resolve_evidence(evidence, line_count)
    if problem is None:
        assert result is None
    else:
        assert result is not None and problem in result


# ---------------------------------------------------------------- evaluate


def run(
    changed: Sequence[ChangedPath],
    messages: Sequence[str],
    allowed: Sequence[str],
) -> tuple[list[tuple[str, str | None]], list[Justification], list[str]]:
    def is_sensitive(path: str) -> SensitiveHit | None:
        return classify(path)

    violations, accepted = evaluate(
        changed,
        parse_trailers(messages),
        allowed_paths=allowed,
        is_sensitive=is_sensitive,
        line_count=line_count,
    )
    return [(v.code, v.path) for v in violations], accepted, [v.message for v in violations]


MOD = ChangedPath(MIGRATION, MODIFIED)
CLAIM = "\n".join(
    [
        "Blast-Radius: {p}",
        "Justification: {e} login scans users by email",
        "Rollback: DROP INDEX idx_users_email;",
        "",
    ]
)


def claim_for(path: str = MIGRATION, evidence: str = "src/db/users.py:214") -> str:
    return CLAIM.format(p=path, e=evidence)


EVALUATE_CASES = [
    pytest.param([MOD], [claim_for()], [MIGRATION], [], id="evidence-resolves"),
    pytest.param([MOD], [claim_for()], ["./" + MIGRATION], [], id="allowed-with-dot-slash"),
    pytest.param([MOD], [claim_for()], [MIGRATION.replace("/", "\\")], [], id="allowed-with-backslash"),
    pytest.param([MOD], [claim_for(evidence=f"{MIGRATION}:3")], [MIGRATION], [], id="evidence-in-the-path-itself"),
    pytest.param(
        [MOD],
        [claim_for(evidence="src/db/nope.py:2")],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="missing-file",
    ),
    pytest.param(
        [MOD],
        [claim_for(evidence="src/db/users.py:301")],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="line-past-end",
    ),
    pytest.param(
        [MOD],
        [claim_for(evidence="src/db/users.py:0")],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="line-zero",
    ),
    pytest.param(
        [MOD],
        [claim_for(evidence="src/db/users.py:L214")],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="malformed-line",
    ),
    pytest.param(
        [MOD],
        [claim_for(evidence="../users.py:1")],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="evidence-escapes-repo",
    ),
    pytest.param(
        [MOD],
        [f"Blast-Radius: {MIGRATION}\nJustification: trust me\nRollback: undo\n"],
        [MIGRATION],
        [("bad-justification", MIGRATION)],
        id="no-evidence",
    ),
    pytest.param(
        [MOD],
        [f"Blast-Radius: {MIGRATION}\nJustification: src/app.py:3\nRollback: undo\n"],
        [MIGRATION],
        [("sensitive-path", MIGRATION)],
        id="evidence-without-reason",
    ),
    pytest.param(
        [MOD],
        [f"Blast-Radius: {MIGRATION}\nJustification: src/app.py:3 why\n"],
        [MIGRATION],
        [("sensitive-path", MIGRATION)],
        id="no-rollback",
    ),
    pytest.param(
        [MOD],
        [f"Blast-Radius: {MIGRATION}\nRollback: undo\n"],
        [MIGRATION],
        [("sensitive-path", MIGRATION)],
        id="no-justification",
    ),
    pytest.param([MOD], [], [MIGRATION], [("sensitive-path", MIGRATION)], id="no-claim"),
    pytest.param(
        [MOD],
        [claim_for()],
        ["migrations/*.sql"],
        [("sensitive-path", MIGRATION)],
        id="glob-only-grant-fails-even-justified",
    ),
    pytest.param([MOD], [claim_for()], ["migrations/"], [("sensitive-path", MIGRATION)], id="directory-grant-fails"),
    pytest.param([MOD], [claim_for()], [], [("sensitive-path", MIGRATION)], id="not-listed"),
    pytest.param(
        [MOD],
        [claim_for("MIGRATIONS/0042_add_users_index.sql")],
        [MIGRATION],
        [("sensitive-path", MIGRATION)],
        id="claim-path-must-match-exactly",
    ),
    pytest.param(
        [MOD],
        [claim_for(evidence="src/db/users.py:999")],
        [],
        [("bad-justification", MIGRATION), ("sensitive-path", MIGRATION)],
        id="unlisted-and-bad-evidence",
    ),
    pytest.param(
        [ChangedPath("archive/0001.sql.bak", RENAMED, old_path="migrations/0001.sql")],
        [claim_for("archive/0001.sql.bak")],
        ["archive/0001.sql.bak"],
        [("sensitive-path", "migrations/0001.sql")],
        id="rename-old-side-sensitive",
    ),
    pytest.param(
        [ChangedPath("archive/0001.sql.bak", RENAMED, old_path="migrations/0001.sql")],
        [claim_for("migrations/0001.sql")],
        ["migrations/0001.sql", "archive/0001.sql.bak"],
        [],
        id="rename-old-side-justified",
    ),
    pytest.param(
        [ChangedPath("migrations/0002.sql", RENAMED, old_path="migrations/0001.sql")],
        [claim_for("migrations/0001.sql")],
        ["migrations/0001.sql", "migrations/0002.sql"],
        [("sensitive-path", "migrations/0002.sql")],
        id="rename-both-sides-need-claims",
    ),
    pytest.param(
        [ChangedPath(".github/workflows/ci.yml", DELETED)],
        [],
        ["docs/"],
        [("sensitive-path", ".github/workflows/ci.yml")],
        id="deletion-of-sensitive-path",
    ),
    pytest.param(
        [ChangedPath(".github/workflows/ci.yml", DELETED)],
        [claim_for(".github/workflows/ci.yml")],
        [".github/workflows/ci.yml"],
        [],
        id="deletion-justified",
    ),
    pytest.param(
        [ChangedPath("src/app.py", MODIFIED), ChangedPath("docs/x.md", DELETED)],
        [],
        [],
        [],
        id="not-sensitive-needs-nothing",
    ),
    pytest.param([MOD, MOD], [], [MIGRATION], [("sensitive-path", MIGRATION)], id="same-path-reported-once"),
]


@pytest.mark.parametrize(("changed", "messages", "allowed", "expected"), EVALUATE_CASES)
def test_evaluate(
    changed: list[ChangedPath], messages: list[str], allowed: list[str], expected: list[tuple[str, str]]
) -> None:
    found, accepted, _ = run(changed, messages, allowed)
    assert found == expected
    sensitive_sides = {p for c in changed for p in c.paths if classify(p)}
    assert {j.path for j in accepted} == sensitive_sides - {path for _, path in expected}


def test_accepted_record() -> None:
    _, accepted, _ = run([MOD], [claim_for(evidence="./src\\db/users.py:0214")], [MIGRATION])
    assert accepted == [
        Justification(MIGRATION, "src/db/users.py:214", "login scans users by email", "DROP INDEX idx_users_email;")
    ]


@pytest.mark.parametrize(
    ("messages", "allowed", "expected"),
    [
        pytest.param(
            [],
            [],
            f"{MIGRATION} is a sensitive path "
            "(migration: database migrations change live data and are hard to "
            "undo); it is not named exactly in allowed_paths (a glob never grants a sensitive path)",
            id="nothing",
        ),
        pytest.param(
            [],
            [MIGRATION],
            f'add to the commit message: "Blast-Radius: {MIGRATION}" / '
            '"Justification: <file>:<line> <why>" / "Rollback: <how to undo>"',
            id="listed-no-trailers",
        ),
        pytest.param(
            [f"Blast-Radius: {MIGRATION}\nJustification: src/app.py:3 why\n"],
            [MIGRATION],
            f'add to the commit message under "Blast-Radius: {MIGRATION}": "Rollback: <how to undo>"',
            id="rollback-only",
        ),
        pytest.param(
            [f"Blast-Radius: {MIGRATION}\nJustification: src/app.py:3\nRollback: undo\n"],
            [MIGRATION],
            f'add to the commit message under "Blast-Radius: {MIGRATION}": '
            'a reason after the evidence: "Justification: src/app.py:3 <why>"',
            id="reason-only",
        ),
        pytest.param([claim_for()], ["migrations/*"], "not named exactly in allowed_paths", id="list-only"),
    ],
)
def test_sensitive_path_message(messages: list[str], allowed: list[str], expected: str) -> None:
    _, _, texts = run([MOD], messages, allowed)
    assert len(texts) == 1 and expected in texts[0]
    assert ("add to the commit message" in texts[0]) is ("commit message" in expected)
    assert ("allowed_paths" in texts[0]) is (allowed != [MIGRATION])


def test_bad_justification_names_what_did_not_resolve() -> None:
    _, _, texts = run([MOD], [claim_for(evidence="src/db/users.py:301")], [MIGRATION])
    assert texts == [f"{MIGRATION}: evidence line src/db/users.py:301 does not exist (src/db/users.py has 300 lines)"]


def test_is_sensitive_is_injected() -> None:
    def everything(path: str) -> SensitiveHit:
        return SensitiveHit("manifest", "listed", "**")

    violations, accepted = evaluate(
        [ChangedPath("src/app.py", MODIFIED)],
        (),
        allowed_paths=["src/app.py"],
        is_sensitive=everything,
        line_count=line_count,
    )
    assert [v.code for v in violations] == ["sensitive-path"] and accepted == []
