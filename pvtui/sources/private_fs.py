"""Directories and files that are this user's alone: what the cache and the private temporary
directories check before they write, and how they create and open what they own.

A directory is trusted as the cache's root when it is this user's and no other user can write
to it, and when no other user can rename it or anything above it out of the way (as OpenSSH
checks ~/.ssh): each parent is owned by this user or by root, and is not writable by other
users unless its sticky bit is set (as /tmp: others may add names there, but cannot move
ours). A group that holds only its owner (a user private group, with umask 002) counts as
the owner. The path is judged resolved, and then used resolved, so no symbolic link in it
can be swapped afterwards.
"""

from __future__ import annotations

import errno
import grp
import os
import pwd
import shutil
import stat
import time
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
IDENTITY_UID_MAP = "0 0 4294967295"


def resolved_if_trusted(path: Path) -> Path:
    """PATH resolved, when it is a directory this user alone can change (see above); else an
    OSError naming PATH whose text says why, in a few words."""
    real = Path(os.path.realpath(path))
    st = os.stat(real)
    if not stat.S_ISDIR(st.st_mode):
        raise _refused(real, "not a directory", errno.ENOTDIR)
    if st.st_uid != os.geteuid():
        raise _refused(real, f"owned by {_user(st.st_uid)}, not by you")
    if _others_can_write(st):
        raise _refused(real, f"other users can write to it (mode {stat.S_IMODE(st.st_mode):04o})")
    check_parents(real.parent, real)
    return real


def check_parents(folder: Path, subject: Path) -> None:
    """OSError naming SUBJECT unless FOLDER (resolved) and each directory above it keep what is
    in them from other users: owned by this user or root, writable by no other user unless sticky."""
    for parent in (folder, *folder.parents):
        st = os.stat(parent)
        where = "" if parent == subject else f"under {parent}, which is "
        if st.st_uid != os.geteuid() and st.st_uid not in _system_owners():
            raise _refused(subject, f"{where}owned by {_user(st.st_uid)}")
        if _others_can_write(st) and not st.st_mode & stat.S_ISVTX:
            raise _refused(subject, f"{where}writable by other users (mode {stat.S_IMODE(st.st_mode):04o}, "
                                    "no sticky bit)")


def _refused(path: Path, why: str, code: int = errno.EPERM) -> OSError:
    return OSError(code, why, str(path))


def _others_can_write(st: os.stat_result) -> bool:
    return bool(st.st_mode & stat.S_IWOTH) or bool(st.st_mode & stat.S_IWGRP) and not _private_group(st)


def _private_group(st: os.stat_result) -> bool:
    """True when ST's group holds only its owner: a user private group (as Debian's OpenSSH allows)."""
    try:
        owner, group = pwd.getpwuid(st.st_uid), grp.getgrgid(st.st_gid)
    except KeyError:
        return False
    return owner.pw_gid == st.st_gid and group.gr_name == owner.pw_name and set(group.gr_mem) <= {owner.pw_name}


def _system_owners() -> set[int]:
    """Owners besides this user that may own a parent: root, and in a user namespace (`unshare
    -r`) the overflow uid, which stands for every owner outside it (root's /tmp among them)."""
    try:
        with open("/proc/self/uid_map", encoding="ascii") as f:
            identity = " ".join(f.read().split()) == IDENTITY_UID_MAP
        if identity:
            return {0}
        with open("/proc/sys/kernel/overflowuid", encoding="ascii") as f:
            return {0, int(f.read())}
    except (OSError, ValueError):
        return {0}


def _user(uid: int) -> str:
    try:
        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def mkdir_private(path: Path) -> None:
    """PATH and its missing parents, each created 0700 (the XDG rule for a cache's directories)."""
    try:
        os.mkdir(path, DIR_MODE)
    except FileNotFoundError:
        if path.parent == path or path.parent.is_dir():
            raise  # the parent is there, and still refuses a directory (/proc): trying again would not end
        mkdir_private(path.parent)
        mkdir_private(path)  # its parent now made: once more, raising above where it is still refused
    except FileExistsError:
        if not path.is_dir():
            raise


def make_private_folder(folder: Path) -> Path:
    """FOLDER resolved, made 0700 where missing (its parent too), once its parent is seen to be this user's
    alone (resolved_if_trusted): nothing is made in a directory others can change. OSError says why not."""
    mkdir_private(folder.parent)
    resolved_if_trusted(folder.parent)
    mkdir_private(folder)
    return resolved_if_trusted(folder)


def open_own(path: Path, flags: int, mode: int = FILE_MODE) -> int:
    """A descriptor of the plain file PATH, this user's, never through a symbolic link (O_NOFOLLOW:
    one planted there is refused, its target never created or touched) nor blocking on a FIFO."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
        os.set_blocking(fd, True)
        return fd
    os.close(fd)
    raise _refused(path, "not a plain file of yours")


def read_small(fd: int, limit: int) -> bytes:
    """What the descriptor FD holds, at most LIMIT bytes: ValueError where it holds more (then it is not
    the small file of settings or state it was taken for)."""
    chunks, size = [], 0
    while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise ValueError(f"larger than {limit // 1024} KiB")
    return b"".join(chunks)


def write_new(path: Path, data: bytes) -> None:
    """A new file PATH (O_EXCL: never one that is there already, nor a link's target) holding DATA."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def replace_whole(path: Path, data: bytes) -> None:
    """PATH holding DATA, written to a new private file beside it (write_new) and renamed over it: a reader
    sees the old file or the new one, never half of one. No temporary file is left behind."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}")
    try:
        write_new(temporary, data)
        os.replace(temporary, path)
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def remove_oldest(folder: Path, suffix: str, keep: int) -> None:
    """Remove the oldest files named *SUFFIX in FOLDER beyond the KEEP newest."""
    files = sorted((entry for entry in os.scandir(folder) if entry.name.endswith(suffix)),
                   key=lambda entry: entry.stat(follow_symlinks=False).st_mtime)
    for entry in files[:max(len(files) - keep, 0)]:
        os.unlink(entry.path)


def make_private(tree: Path) -> None:
    """Directories 0700 and files 0600 in TREE, which this process just built (a report is the
    user's data). A file hard-linked from elsewhere (the report's own bundle) keeps its mode:
    changing it would change the report's file; it is no more readable than it was already."""
    os.chmod(tree, DIR_MODE)
    for folder, dirs, names in os.walk(tree):
        for name in dirs + names:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                os.chmod(path, DIR_MODE)
            elif stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
                os.chmod(path, FILE_MODE)


def is_own(path: Path, kind: int = stat.S_IFDIR) -> bool:
    """True when PATH itself (not a link's target) is of KIND (a directory, or stat.S_IFREG a
    plain file) and this user's."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_IFMT(st.st_mode) == kind and st.st_uid == os.geteuid()


def remove_own_dir(path: Path) -> None:
    """Remove PATH when it is a directory of this user's (a symbolic link is never followed)."""
    if is_own(path):
        shutil.rmtree(path, ignore_errors=True)


def tree_size(path: Path) -> int:
    """The bytes of the files under PATH; a file gone while it is walked counts nothing."""
    total = 0
    for folder, _dirs, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total
