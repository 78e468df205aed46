"""A text's SHA-256, from CPython's own sha256 module where it has one.

`import hashlib` loads OpenSSL's libcrypto to build its constructors: 5 M instructions, 0.6% of the app's
start to the report shown, where the start needs only the digests that name its cache files. CPython's
builtin module (`_sha2` from 3.12, `_sha256` before) computes the same digest without it; hashlib is the
fallback where a build has neither. tests/test_digest.py fails where the module chosen loads OpenSSL or
differs from hashlib.
"""

from __future__ import annotations

try:
    from _sha2 import sha256
except ImportError:
    try:
        from _sha256 import sha256
    except ImportError:
        from hashlib import sha256


def digest(text: str) -> str:
    """TEXT's SHA-256, in hexadecimal (lone surrogates, as file names may hold, encoded as they are)."""
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
