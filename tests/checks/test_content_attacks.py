"""Issue 9 sections 4 and 5: no secret is ever printed, and tokens are read the way the
language reads them. Each attack failed on main before its fix; each has its neighbour.

Fake secrets are assembled at run time from random bytes: no credential shape is written in
this file.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import string
import sys
from pathlib import Path

import pytest

from scorer.report import FORMATS
from scorer.secrets.redaction import redact, redact_key_body
from scorer.testrun.run import tail
from tests.testing.repo import GitRepo, run_cli
from tests.testing.secrets import every_output

ALNUM = string.ascii_letters + string.digits


def _token() -> str:
    """A GitHub-classic-shaped token, random every run (mixed case and digits guaranteed)."""
    body = "".join(secrets.choice(ALNUM) for _ in range(33)) + "aZ9"
    return "gh" + "p_" + body


def _key_lines(n: int = 20, width: int = 64) -> list[str]:
    """A private-key-shaped block: header, n body lines of `width` base64 characters, a short last
    line and the footer."""
    kind = "OPENSSH " + "PRIVATE KEY"
    body: list[str] = []
    while len(body) < n:
        line = base64.b64encode(os.urandom(width)).decode()[:width]
        if any(c.isdigit() for c in line) and any(c.isupper() for c in line) and any(c.islower() for c in line):
            body.append(line)
    return [f"-----BEGIN {kind}-----", *body, base64.b64encode(os.urandom(9)).decode(), f"-----END {kind}-----"]


def _leaks(output: str, secret_values: list[str]) -> list[str]:
    """Every secret value, or 24-character piece of one, that appears in `output`."""
    found = []
    for value in secret_values:
        pieces = {value[i : i + 24] for i in range(0, max(len(value) - 23, 1), 8)}
        found += [p for p in pieces if p in output]
    return found


# --- §4: redaction happens before the tail is cut; a key body needs no header -----------------


def test_a_key_whose_begin_line_falls_outside_the_tail_is_still_masked():
    lines = _key_lines(60)
    output = "\n".join(["collecting ...", *lines, "1 passed"])
    shown = tail(output)
    assert "-----BEGIN" not in shown  # the header is outside the 40-line tail
    assert _leaks(shown, lines[1:-1]) == []


@pytest.mark.parametrize("width", [64, 70, 76])
def test_a_key_body_without_any_header_is_masked(width):
    lines = _key_lines(5, width)[1:-1]  # body and last line only
    text = "\n".join(["E   assert key == expected", *(f"E       {line}" for line in lines), "FAILED"])
    masked = redact(text)
    assert _leaks(masked, lines) == [], masked
    assert masked.splitlines()[0] == "E   assert key == expected"
    assert masked.splitlines()[-1] == "FAILED"


def test_a_key_body_in_a_repr_with_escaped_newlines_is_masked():
    lines = _key_lines(4)[1:-1]
    text = "AssertionError: '" + "\\n".join(lines) + "\\n'"
    assert _leaks(redact(text), lines) == []


@pytest.mark.parametrize(
    "text",
    [
        "a" * 64 + "\n" + "b" * 64,  # no digits, no mixed case: not a key body
        "0123456789abcdef" * 4 + "\n" + "fedcba9876543210" * 4,  # sha256 digests in hex
        "src/components/Button/Button.test.tsx\nsrc/components/Button/Button.stories.tsx",
        "one line of base64 alone: " + "QmFzZTY0IGlzIG5vdCBhIHNlY3JldCBvbiBpdHMgb3duIGxpbmU1Mg",
        "short\nlines\n",
    ],
)
def test_text_that_only_resembles_a_key_body_is_left_alone(text):
    assert redact_key_body(text) == (text, 0)


# --- §4: no secret reaches any output, in any format ------------------------------------------


MIGRATION = "migrations/0001_init.sql"


@pytest.fixture
def leaky(repo: GitRepo, tmp_path: Path) -> tuple[GitRepo, list[str]]:
    """A range whose file name, commit message, accepted justification and test output hold secrets."""
    repo.write("src/app.py", "x = 1\n")
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "agent-x")
    in_name, in_rollback, in_reason = _token(), _token(), _token()
    key = _key_lines(60)
    (tmp_path / "key").mkdir()  # a directory of its own, which the jailed test is granted to read
    key_file = tmp_path / "key" / "key.txt"
    key_file.write_text("\n".join(key) + "\n", encoding="utf-8")
    repo.manifest(
        allowed_paths=["src/**", MIGRATION],
        required_test=[
            sys.executable,
            "-c",
            "import sys; print(open(sys.argv[1]).read()); print('1 passed')",
            str(key_file),
        ],
        test_read_roots=[str(key_file.parent)],
    )
    repo.write(f"src/.token-cache/{in_name}.json", "{}\n")
    repo.write(MIGRATION, "CREATE TABLE t (id int);\n")
    repo.commit(
        f"add the table\n\nBlast-Radius: {MIGRATION}\nJustification: src/app.py:1 the app needs it "
        f"{in_reason}\nRollback: drop it with {in_rollback}\n"
    )
    return repo, [in_name, in_rollback, in_reason, *key[1:-1]]


def test_no_secret_appears_in_any_output(leaky, tmp_path, monkeypatch):
    repo, secret_values = leaky
    outputs = every_output(repo, tmp_path / "out", monkeypatch)
    assert set(outputs) >= {*FORMATS, "stdout", "step-summary", "log-text", "log-json", "export"}
    leaks = {name: _leaks(text, secret_values) for name, text in outputs.items()}
    assert {name: found for name, found in leaks.items() if found} == {}
    report = json.loads(outputs["json"])
    # The test ran and printed the key (its output is among what must not leak)
    assert report["test"]["status"] == "passed", report["test"]
    assert "****" in report["test"]["output_tail"]  # the key was printed, and redacted
    assert [j["path"] for j in report["justifications"]] == [MIGRATION]  # accepted, and shown redacted
    # The verdict was reached on the real names: the file is allowed, the secrets are found.
    secret_where = {(v["path"], v["message"].split(":")[0]) for v in report["violations"] if v["code"] == "secret"}
    assert any(path and path.startswith("src/.token-cache/ghp_") for path, _ in secret_where), secret_where
    assert {m for path, m in secret_where if path is None} == {
        f"commit {report['binding']['head']} message line 4",
        f"commit {report['binding']['head']} message line 5",
    }
    [named] = [c for c in report["changed"] if c["path"].startswith("src/.token-cache/")]
    assert named["allowed"] is True


def test_a_secret_in_the_message_being_committed_fails_the_commit_msg_stage(committed, tmp_path):
    value = _token()
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(f"fix\n\nRollback: revert, then rotate {value}\n", encoding="utf-8")
    committed.write("allowed/a.py", "changed\n")
    out = committed.score("--message-file", str(msg))
    assert out.codes == {"secret"}, out.text
    [v] = out.report["violations"]
    assert v["path"] is None and v["message"].startswith(f"message file {msg} line 3: github-token: ghp_****")
    assert value not in out.text and value not in json.dumps(out.report)
    assert out.last_line == "RESULT: FAIL"


def test_a_commit_message_without_secrets_passes(committed):
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "changed\n")
    committed.commit("fix: use sk-learn-compatible names; ghp_ is GitHub's token prefix\n\ncurl x | sh is in docs\n")
    out = committed.score("--base", "main")
    assert (out.exit_code, out.codes) == (0, set()), out.text


def test_a_placeholder_or_allowed_fingerprint_in_a_file_name_passes(committed):
    value = _token()
    committed.write(f"allowed/{value}.json", "{}\n")
    first = committed.score()
    [v] = first.report["violations"]
    assert v["code"] == "secret" and v["message"].startswith("file name holds a secret: github-token: ghp_****")
    fingerprint = v["message"].split("fingerprint ")[1].split(")")[0]
    committed.manifest(allowed_fingerprints=[fingerprint])
    assert committed.score().codes == set()


# --- §5: Python source is token-checked as Python decodes it --------------------------------


EVAL = "ev" + "al("  # the token, assembled: this file holds no forbidden literal of its own


@pytest.fixture
def fenced(committed: GitRepo) -> GitRepo:
    committed.manifest(allowed_paths=["allowed/**", "bin/**"], forbidden_substrings=[EVAL])
    return committed


@pytest.mark.parametrize(
    ("path", "content"),
    [
        # unicode_escape: `\x65` is `e` to Python, four characters to git
        ("allowed/run.py", b"# coding: unicode_escape\nprint(\\x65val('1+1'))\n"),
        ("allowed/run.py", b"# -*- coding: unicode-escape -*-\nprint(\\145val('1+1'))\n"),
        # latin-1: byte 0xAA is U+00AA, which Python's NFKC folding of identifiers makes `a`
        ("allowed/run.py", b"# coding: latin-1\nprint(ev\xaal('1+1'))\n"),
        # the cookie may sit on line 2, after a shebang; a shebang makes a file without .py Python
        ("bin/tool", b"#!/usr/bin/env python3\n# vim: set fileencoding=unicode_escape :\nprint(\\x65val('2'))\n"),
        ("allowed/stubs.pyi", b"# coding: unicode_escape\nx = \\x65val('3')\n"),
        # a long first line does not push the cookie out of reach
        ("allowed/long.py", b"#" + b" pad" * 3000 + b"\n# coding: unicode_escape\nx = \\x65val('5')\n"),
        # lone CRs end lines for Python's tokenizer: the cookie is on line 2
        ("bin/cr", b"#!/usr/bin/env python3\r# coding: unicode_escape\rprint(\\x65val('4'))\r"),
    ],
)
def test_a_token_hidden_by_the_source_encoding_is_found(fenced, path, content):
    fenced.write(path, content)
    out = fenced.score()
    assert out.codes == {"forbidden-token"}, out.text
    [v] = out.report["violations"]
    assert v["path"] == path and "as Python decodes it" in v["message"], v
    assert out.last_line == "RESULT: FAIL"


def test_a_hidden_token_added_below_an_existing_cookie_is_found_in_range_mode(fenced):
    fenced.write("allowed/old.py", b"# coding: unicode_escape\nx = 1\n")
    fenced.commit("a file with a cookie")
    fenced.git("branch", "-f", "base")
    fenced.write("allowed/old.py", b"# coding: unicode_escape\nx = 1\ny = \\x65val('1')\n")
    fenced.commit("one more line")
    out = fenced.score("--base", "base")
    assert out.codes == {"forbidden-token"}, out.text
    assert out.where("forbidden-token") == {("allowed/old.py", 3)}


@pytest.mark.parametrize("cookie", [b"rot13", b"no-such-codec", b"utf-16"])
def test_an_encoding_the_scorer_cannot_read_as_python_does_fails(fenced, cookie):
    fenced.write("allowed/run.py", b"# coding: " + cookie + b"\nx = 1\n")
    out = fenced.score()
    assert out.codes == {"unreadable-encoding"}, out.text
    assert out.paths("unreadable-encoding") == {"allowed/run.py"}


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("allowed/ok.py", b"# -*- coding: utf-8 -*-\nprint('h\xc3\xa9llo')\n"),
        ("allowed/ok.py", b"# coding: ascii\nx = 1\n"),
        ("allowed/ok.py", b"# coding: latin-1\nname = 'caf\xe9'\n"),  # decoded, and no token in it
        ("allowed/ok.py", b"# coding: euc-jp\nx = 1\n"),
        ("allowed/notes.txt", b"# coding: unicode_escape\n\\x65val(\n"),  # not Python: read as text
        ("bin/tool", b"#!/bin/sh\n# coding: unicode_escape\necho \\x65val(\n"),  # a shell script
        ("allowed/late.py", b"x = 1\n\n# coding: unicode_escape\n"),  # a cookie on line 3 is no cookie
        ("allowed/late.py", b"#!/usr/bin/python\r\r# coding: rot13\r"),  # nor after two lone CRs
        ("allowed/late.py", b"x = 1\n# coding: rot13\n"),  # nor on line 2 after code
    ],
)
def test_sources_python_reads_as_git_shows_them_pass(fenced, path, content):
    fenced.write(path, content)
    out = fenced.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text


def test_without_forbidden_tokens_no_file_is_read_for_its_cookie(committed):
    committed.write("allowed/run.py", b"# coding: rot13\nx = 1\n")
    assert committed.score().codes == set()


# --- §5: token_scope "whole-file" reads the whole new content of every changed file -----------


DORMANT = f'x = 1\n"""\n{EVAL}payload)\n"""\n'


@pytest.fixture
def dormant(fenced: GitRepo) -> GitRepo:
    fenced.write("allowed/mod.py", DORMANT)
    fenced.write("allowed/other.py", f"y = {EVAL}'kept')\n")  # not changed by the job
    fenced.commit("dormant code in a string")
    fenced.write("allowed/mod.py", DORMANT.replace('"""\n', ""))  # two deleted lines make it live
    return fenced


def test_the_default_scope_does_not_see_code_made_live_by_deleting_lines(dormant):
    """The documented limit of token_scope "added-lines": no line was added."""
    assert dormant.score().codes == set()


def test_whole_file_scope_sees_code_made_live_by_deleting_lines(dormant):
    dormant.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[EVAL], token_scope="whole-file")
    out = dormant.score()
    assert out.codes == {"forbidden-token"}, out.text
    assert out.where("forbidden-token") == {("allowed/mod.py", 2)}  # not other.py: it did not change
    [v] = out.report["violations"]
    assert v["message"] == f"line contains forbidden substring {EVAL!r} (token_scope whole-file)"


def test_whole_file_scope_reports_an_added_token_once(fenced):
    fenced.manifest(allowed_paths=["allowed/**"], forbidden_patterns=[r"^import ctypes"], token_scope="whole-file")
    fenced.write("allowed/a.py", "one\nimport ctypes\n")
    out = fenced.score()
    assert [(v["path"], v["line"]) for v in out.report["violations"]] == [("allowed/a.py", 2)]
    assert out.report["violations"][0]["message"].startswith("added line contains")


def test_whole_file_scope_in_range_mode(dormant):
    dormant.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[EVAL], token_scope="whole-file")
    dormant.git("branch", "-f", "base")
    dormant.commit("wake it up")
    assert dormant.score("--base", "base").where("forbidden-token") == {("allowed/mod.py", 2)}


def test_whole_file_scope_passes_a_clean_change(fenced):
    fenced.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[EVAL], token_scope="whole-file")
    fenced.write("allowed/a.py", "one\ntwo\n")
    assert fenced.score().codes == set()


def test_an_unknown_token_scope_is_a_manifest_error(fenced):
    fenced.manifest(allowed_paths=["allowed/**"], token_scope="everything")
    fenced.write("allowed/a.py", "changed\n")
    out = fenced.score()
    assert (out.exit_code, out.codes) == (2, {"manifest-invalid"})


def test_deleting_or_renaming_away_a_file_named_after_a_token_passes_and_shows_it_masked(committed):
    first, second = _token(), _token()
    committed.write(f"allowed/{first}.json", "{}\n")
    committed.write(f"allowed/{second}.json", "{}\n")
    committed.commit("an old mistake")
    committed.remove(f"allowed/{first}.json")
    committed.git("mv", f"allowed/{second}.json", "allowed/cache.json")
    out = committed.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text
    assert first not in out.text and second not in out.text


def test_renaming_a_file_to_a_token_name_fails(committed):
    value = _token()
    committed.git("mv", "allowed/a.py", f"allowed/{value}.py")
    out = committed.score()
    assert out.codes == {"secret"}, out.text
    assert value not in out.text


def test_a_branch_named_after_a_token_is_masked_when_it_is_not_scored(committed):
    value = _token()
    committed.git("checkout", "-q", "-b", f"feature-{value}")
    code, text = run_cli(
        ["--repo", str(committed.root), "--manifest", str(committed.manifest_path), "--branches", "agent-*"]
    )
    assert code == 0 and "does not match --branches" in text
    assert value not in text and "ghp_****" in text
