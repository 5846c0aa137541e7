"""The sha256 pin of a manifest: the digest it must have, from the command line, the
environment or a `.sha256` file beside it, checked before anything is parsed."""

from __future__ import annotations

from .. import digest
from ..errors import ManifestError, ManifestHashMismatch

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

PIN_SUFFIX = ".sha256"
_HEX = "0123456789abcdef"  # a str test, not a pattern: its compile cost every tool call (issue 29)


def parse_pin(text: str, source: str) -> str:
    """A digest as given on the command line or in a `sha256sum`-format file."""
    token = text.strip().split()[0].lower() if text.strip() else ""
    token = token.removeprefix("sha256:")
    if len(token) != 64 or token.strip(_HEX):  # split() left no whitespace in it
        raise ManifestError(f"{source}: not a sha256 digest (64 hex characters)")
    return token


def expected_digest(
    flag: str | None, environ: Mapping[str, str], pin_file: Callable[[], bytes | None], pin_name: str
) -> str | None:
    """The digest every pin present agrees on: --manifest-sha256, $SCORE_DIFF_MANIFEST_SHA256 and the
    .sha256 file beside the manifest. None overrides another: an environment the job sets must not
    replace a committed pin with one that matches a looser manifest."""
    pins = []
    if flag:
        pins.append(("--manifest-sha256", parse_pin(flag, "--manifest-sha256")))
    if environ.get("SCORE_DIFF_MANIFEST_SHA256"):
        pins.append(
            (
                "$SCORE_DIFF_MANIFEST_SHA256",
                parse_pin(environ["SCORE_DIFF_MANIFEST_SHA256"], "SCORE_DIFF_MANIFEST_SHA256"),
            )
        )
    raw = pin_file()
    if raw is not None:
        pins.append((pin_name, parse_pin(raw.decode("utf-8", "replace"), pin_name)))
    if len({digest for _, digest in pins}) > 1:
        said = ", ".join(f"{name} says {digest}" for name, digest in pins)
        raise ManifestHashMismatch(f"the manifest's pins disagree ({said}): every pin given must match")
    return pins[0][1] if pins else None


def verify_pin(raw: bytes, expected: str | None, source: str) -> None:
    """Before anything else runs: the manifest's bytes must match the pinned digest."""
    if expected is None:
        return
    actual = digest.sha256(raw).hexdigest()
    if actual != expected:
        raise ManifestHashMismatch(
            f"{source} has sha256 {actual}, but it is pinned to {expected}: "
            "the manifest is not the one that was approved"
        )


def pin_line(raw: bytes, name: str) -> str:
    """The `sha256sum` line for a manifest."""
    return f"{digest.sha256(raw).hexdigest()}  {name}\n"
