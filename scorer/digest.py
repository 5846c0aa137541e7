"""SHA-256 and SHA-1 without OpenSSL's start-up, for the guard's every tool call.

`import hashlib` loads libcrypto (2 to 8 ms measured on the guard's path, issue 29); the
interpreter's own implementations (`_sha2` from Python 3.12, `_sha256` and `_sha1` before)
compute the same digests and load in a fraction of a millisecond. A build without them
(a FIPS build may leave them out) gets hashlib's.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _pick() -> tuple[Callable[..., Any], Callable[..., Any]]:
    try:
        from _sha2 import sha256 as s256  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            from _sha256 import sha256 as s256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            from hashlib import sha256 as s256  # type: ignore[assignment,unused-ignore]
    try:
        from _sha1 import sha1 as s1  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from hashlib import sha1 as s1  # type: ignore[assignment,unused-ignore]
    return s256, s1


sha256, sha1 = _pick()
