"""Issue 26 item 5: a secret the test was given, or printed, leaves through no report in its hex
or base64 form, in any format. Secrets are made at run time from random bytes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
import string
import sys
from pathlib import Path

import pytest

from scorer.report import FORMATS
from tests.testing.repo import GitRepo
from tests.testing.secrets import every_output

ALNUM = string.ascii_letters + string.digits
NOT_SECRET_DIGEST = hashlib.sha256(b"an ordinary fixture, not a secret").hexdigest()


def _random(n: int) -> str:
    while True:  # mixed case and digits: a value that looks generated
        value = "".join(secrets.choice(ALNUM) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value):
            return value


def encodings(secret: bytes) -> list[str]:
    """The forms a test prints: hex both cases; base64 standard and URL-safe, padded or not, of the
    secret alone and after a 1- and a 2-byte prefix (each alignment modulo 3)."""
    out = [binascii.hexlify(secret).decode(), binascii.hexlify(secret).decode().upper()]
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            full = encode(prefix + secret).decode()
            out += [full, full.rstrip("=")]
    return out


def pieces(form: str) -> set[str]:
    """16-character pieces of a form's middle (the ends may mix in a prefix's bits)."""
    middle = form[4:-4]
    return {middle[i : i + 16] for i in range(0, max(len(middle) - 15, 1), 4)}


PRINTER = """
import base64, binascii, os, sys
for name in ("API_TOKEN", "DB_PASSWORD"):
    secret = os.environ[name].encode()
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            print(name, prefix, encode(prefix + secret).decode())
            print(name, prefix, encode(prefix + secret).decode().rstrip("="))
    print(name, "hex", binascii.hexlify(secret).decode(), binascii.hexlify(secret).decode().upper())
found = open(sys.argv[1]).read().strip().encode()
print("found plainly:", found.decode())
print("found hex:", found.hex(), "found b64:", base64.b64encode(b"xy" + found).decode())
print("fixture digest:", sys.argv[2])
"""


@pytest.fixture
def leaky(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, list[str]]:
    """The test is given two secrets through test_env and reads a third; it prints them encoded.
    A changed file is named after the hex of one given secret."""
    token, password = "gh" + "p_" + _random(36), _random(32)
    monkeypatch.setenv("API_TOKEN", token)
    monkeypatch.setenv("DB_PASSWORD", password)
    read = "gh" + "p_" + _random(36)
    (tmp_path / "read").mkdir()
    (tmp_path / "read" / "token.txt").write_text(read + "\n", encoding="utf-8")
    repo.write("src/app.py", "x = 1\n")
    repo.commit("initial")
    repo.git("checkout", "-q", "-b", "agent-x")
    repo.manifest(
        allowed_paths=["src/**"],
        required_test=[sys.executable, "-c", PRINTER, str(tmp_path / "read" / "token.txt"), NOT_SECRET_DIGEST],
        test_env=["API_TOKEN", "DB_PASSWORD"],
        test_read_roots=[str(tmp_path / "read")],
    )
    repo.write(f"src/cache-{password.encode().hex()}.json", "{}\n")
    repo.commit("add the cache")
    forms = [*encodings(token.encode()), *encodings(password.encode()), password, read, read.encode().hex()]
    forms.append(base64.b64encode(b"xy" + read.encode()).decode())
    return repo, forms


def test_no_encoded_form_of_a_secret_appears_in_any_format(leaky, tmp_path, monkeypatch):
    repo, forms = leaky
    outputs = every_output(repo, tmp_path, monkeypatch)
    assert set(outputs) >= {*FORMATS, "stdout", "step-summary", "log-text", "log-json", "export"}
    leaks = {name: sorted(p for f in forms for p in pieces(f) if p in text) for name, text in outputs.items()}
    assert {name: found for name, found in leaks.items() if found} == {}
    report = json.loads(outputs["json"])
    assert report["test"]["status"] == "passed", report["test"]
    assert "API_TOKEN b'xy' ****" in report["test"]["output_tail"]  # printed, and masked
    # The neighbour: ordinary hex output (a digest of a fixture) is shown as printed.
    assert f"fixture digest: {NOT_SECRET_DIGEST}" in report["test"]["output_tail"]
    # The verdict was reached on the real path: the file is allowed, and shown masked.
    [cache] = [c for c in report["changed"] if c["path"].startswith("src/cache-")]
    assert cache["allowed"] is True and cache["path"] == "src/cache-****.json"
    assert report["result"] == "PASS"
