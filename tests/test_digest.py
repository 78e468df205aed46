"""The digests that name pvtui's cache files, without OpenSSL's start (pvtui/process/digest.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from pvtui.process.digest import digest


def test_the_digest_is_hashlibs_sha256():
    for text in ("", "report-large", "name\udcff with a lone surrogate", "ü" * 10_000):
        assert digest(text) == hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def test_a_digest_loads_no_openssl():
    """Guard: where CPython's builtin sha256 module is gone (the fallback is hashlib), 5 M instructions of every
    start come back."""
    program = "import sys; from pvtui.process.digest import digest; digest('x'); print('_hashlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False"]
