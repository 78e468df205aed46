"""Opening a file pvtui reads: a regular file only, never blocking, never read past a limit.

A FIFO, a device (/dev/zero) or a socket where pvtui expects a file (a report's, a bundle's column or
meta.json, a theme) would hang the open or the read, or fill memory with a read that never ends. Each
file is opened O_NONBLOCK (a FIFO without a writer opens at once), checked with fstat to be a regular
file, and only then read, blocking again, never more than its limit. Every open of a file pvtui reads
goes through here; refusals are OSErrors naming the file, whose strerror says why in a few words.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

READ_CHUNK = 1 << 20  # bytes a read asks for at most
BUNDLE_JSON_LIMIT = 256 << 20  # bytes read at most of a bundle's meta.json or other JSON document
KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def open_regular(path: str | Path, limit: int | None = None, buffering: int = -1) -> BinaryIO:
    """PATH open for reading (binary, blocking), once seen to be a regular file of at most LIMIT bytes
    (any size without a LIMIT: for a file read in pieces or mapped)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = KINDS.get(stat.S_IFMT(st.st_mode), "a special file")
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", str(path))
        if limit is not None and st.st_size > limit:
            raise _too_large(path, limit)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, limit: int) -> bytes:
    """The bytes of PATH, a regular file (see open_regular) of at most LIMIT bytes, a file growing past
    it while read (or one that gives no size, as /proc's) refused too."""
    chunks, read = [], 0
    with open_regular(path, limit) as f:
        while read <= limit:  # in pieces: one read of LIMIT + 1 bytes allocates all of them first
            chunk = f.read(min(limit + 1 - read, READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
    if read > limit:
        raise _too_large(path, limit)
    return b"".join(chunks)


def _too_large(path: str | Path, limit: int) -> OSError:
    return OSError(errno.EFBIG, f"larger than the {limit:,} bytes pvtui reads of such a file", str(path))
