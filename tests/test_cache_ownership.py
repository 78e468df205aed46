"""The cache owns only what it made: a cache directory that holds other things keeps them, a
directory another user made or can write to is not used, no symbolic link is followed, and what
pvtui writes is the user's alone. Real processes throughout; a second user where the test can be
one (as root), the same user's planted links always."""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from test_cache import (  # noqa: F401 (fixtures)
    _hold, _names, _opened_without_cache, _read_and_stop, _summary, expected, private_tmp, pvtui,
    report,
)

from pvtui.sources.cache import ENTRY_MARKER, KEPT_FOLDERS, MARKER_TEXT
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import cache_key

OLD = 946684800  # 2000-01-01: a time no file here has unless it was left alone


def _key(report: Path) -> str:
    return cache_key(discover(report)[0])


def _tree(folder: Path) -> dict[str, tuple]:
    """Every path under FOLDER (links not followed) with its kind, mode, bytes and mtime, besides pvtui's
    folders kept beside the entries (stylesheets, checks)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.relative_to(folder).parts[0] in KEPT_FOLDERS:
            continue
        st = path.lstat()
        body = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        found[str(path.relative_to(folder))] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), body, st.st_mtime)
    return found


def _others(folder: Path, outside: Path) -> None:
    """What a cache directory set to ~ or ~/.cache holds besides pvtui's: other programs' caches,
    files, a lock and a temporary of theirs, a link to a directory outside that even holds a
    pvtui marker, an older pvtui's entry (no marker)."""
    (folder / "pip" / "http").mkdir(parents=True)
    (folder / "pip" / "http" / "blob").write_bytes(b"\x00" * 4096)
    (folder / "notes.txt").write_text("mine")
    (folder / ".viminfo").write_text("mine")
    (folder / ".fontconfig.lock").write_text("")
    (folder / ".mesa.tmp-123").mkdir()
    (folder / ".mesa.tmp-123" / "shader").write_text("mine")
    outside.mkdir()
    (outside / ENTRY_MARKER).write_bytes(MARKER_TEXT)
    (outside / "meta.json").write_text("{}")
    (folder / "linked").symlink_to(outside)
    old = folder / "report-0123456789abcdef01234567"
    old.mkdir()
    (old / "meta.json").write_text('{"format": "pvtui-bundle"}')
    (folder / ".report-0123456789abcdef01234567.lock").write_text("")
    for path in [*folder.rglob("*"), *outside.rglob("*")]:
        os.utime(path, (OLD, OLD), follow_symlinks=False)


# --- a directory that holds other things ---------------------------------------------


def test_a_cache_directory_holding_other_things_keeps_them(tiny_dir, tmp_path, private_tmp):
    home, outside = tmp_path / "home", tmp_path / "outside"
    home.mkdir()
    _others(home, outside)
    before, outside_before = _tree(home), _tree(outside)
    a, b = (shutil.copytree(tiny_dir, tmp_path / name, ignore=shutil.ignore_patterns("profile.pvtui", "profile.pop"))
            for name in ("a", "b"))
    for folder in (a, b):  # a cap of 1K: each open evicts every entry no process holds
        done = _summary(Path(folder), home, private_tmp, PVTUI_CACHE_MAX="1K")
        assert done.returncode == 0 and done.stderr == "", done.stderr
    listed = json.loads(pvtui("cache", "--json", cache=home, tmp=private_tmp).stdout)
    assert [e["report"] for e in listed["entries"]] == [str(b)]  # a was evicted; nothing else was
    before_top = [name for name in before if "/" not in name]
    assert sorted(Path(item["path"]).name for item in listed["skipped"]) == sorted(before_top)
    assert {Path(i["path"]).name: i["reason"] for i in listed["skipped"]}["linked"].startswith("a symbolic link")
    verbose = pvtui("cache", "--verbose", cache=home, tmp=private_tmp, COLUMNS="200")
    assert f"left alone: {len(before_top)} other items" in verbose.stdout
    assert all(f"{home / name}: " in verbose.stdout for name in before_top)
    brief = pvtui("cache", cache=home, tmp=private_tmp, COLUMNS="200")
    assert "(--verbose names them)" in brief.stdout and str(home / "notes.txt") not in brief.stdout
    cleared = json.loads(pvtui("cache", "clear", "--json", cache=home, tmp=private_tmp).stdout)
    assert [e["report"] for e in cleared["removed"]] == [str(b)] and len(cleared["skipped"]) == len(before_top)
    assert _tree(home) == before and _tree(outside) == outside_before  # not one byte, mode or time changed


def test_an_older_pvtui_s_entry_is_left_and_built_again(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    assert _summary(report, cache, private_tmp).stdout == expected
    (entry,) = [name for name in _names(cache) if not name.startswith(".")]
    old = f"report-{'0' * 24}"  # as a pvtui before the marker left it: under a key of its own
    (cache / entry / ENTRY_MARKER).unlink()
    (cache / entry).rename(cache / old)
    (cache / f".{entry}.pvtui-lock").rename(cache / f".{old}.lock")
    before = _tree(cache)
    done = _summary(report, cache, private_tmp)
    assert done.stdout == expected and done.stderr == ""
    listed = json.loads(pvtui("cache", "--json", cache=cache, tmp=private_tmp).stdout)
    assert [Path(e["path"]).name for e in listed["entries"]] == [entry]  # built again
    assert {Path(i["path"]).name: i["reason"] for i in listed["skipped"]} == {
        f".{old}.lock": "not pvtui's", old: "no .pvtui-entry marker"}
    assert pvtui("cache", "clear", cache=cache, tmp=private_tmp).returncode == 0
    assert _tree(cache) == before


@pytest.mark.parametrize("kind", ["a directory", "a link to an entry"])
def test_something_else_under_the_entry_s_name_is_left_as_it_is(kind, report, expected, tmp_path, private_tmp):
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    cache.mkdir()
    if kind == "a directory":
        (cache / _key(report)).mkdir()
        (cache / _key(report) / "mine").write_text("mine")
    else:  # a whole entry, marker and all, built elsewhere: a link to it is not the cache's
        assert _summary(report, elsewhere, private_tmp).stdout == expected
        (cache / _key(report)).symlink_to(elsewhere / _key(report))
    before, elsewhere_before = _tree(cache), _tree(elsewhere) if elsewhere.exists() else {}
    done = _summary(report, cache, private_tmp)
    _opened_without_cache(done, expected, str(cache / _key(report)), "in the way of a cache entry")
    assert pvtui("cache", "clear", cache=cache, tmp=private_tmp).returncode == 0
    assert _tree(cache) == before and (not elsewhere.exists() or _tree(elsewhere) == elsewhere_before)


# --- links planted in the user's own cache and $TMPDIR --------------------------------


@pytest.mark.parametrize("target", ["missing", "a file"])
@pytest.mark.parametrize("built", [False, True], ids=["cold", "built"])
def test_a_lock_planted_as_a_link_is_never_followed(target, built, report, expected, tmp_path, private_tmp):
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    if built:
        assert _summary(report, cache, private_tmp).stdout == expected
    cache.mkdir(exist_ok=True)
    if target == "a file":
        victim.write_text("the victim's")
        os.utime(victim, (OLD, OLD))
    lock = cache / f".{_key(report)}.pvtui-lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    done = _summary(report, cache, private_tmp)
    _opened_without_cache(done, expected, str(lock), "a symbolic link is in the way")
    for command in (("cache",), ("cache", "clear")):
        assert pvtui(*command, cache=cache, tmp=private_tmp).returncode == 0
    if target == "missing":
        assert not victim.exists()  # not created through the link
    else:
        assert victim.read_text() == "the victim's" and victim.stat().st_mtime == OLD  # nor touched
    assert lock.is_symlink()


def test_temporaries_planted_as_links_are_never_followed(report, expected, tmp_path, private_tmp):
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    cache.mkdir()
    victim.mkdir()
    (victim / "mine").write_text("mine")
    planted = cache / f".{_key(report)}.pvtui-tmp-planted"
    planted.symlink_to(victim)
    assert _summary(report, cache, private_tmp).stdout == expected  # its build sweeps its key's temporaries
    assert pvtui("cache", "clear", cache=cache, tmp=private_tmp).returncode == 0  # and leftovers
    assert (victim / "mine").read_text() == "mine" and planted.is_symlink()


def test_private_directories_planted_as_links_are_never_swept(report, expected, tmp_path, private_tmp):
    blocker, victim = tmp_path / "blocker", tmp_path / "victim"
    blocker.write_text("")
    victim.mkdir()
    (victim / ".pvtui-private.lock").write_text("")  # unlocked: what a killed process leaves
    (victim / "mine").write_text("mine")
    (private_tmp / "pvtui-private-planted").symlink_to(victim)
    _opened_without_cache(_summary(report, blocker, private_tmp), expected, str(blocker))
    assert pvtui("cache", "clear", cache=tmp_path / "cache", tmp=private_tmp).returncode == 0
    assert _names(victim) == [".pvtui-private.lock", "mine"] and _names(private_tmp) == ["pvtui-private-planted"]


# --- directories other users can change ----------------------------------------------


@pytest.mark.parametrize("where", ["the cache", "its parent"])
def test_a_cache_other_users_can_write_to_is_refused_in_one_line(where, report, expected, tmp_path, private_tmp):
    parent = tmp_path / "shared"
    cache = parent / "cache"
    cache.mkdir(parents=True)
    (cache if where == "the cache" else parent).chmod(0o777)
    done = _summary(report, cache, private_tmp)
    if where == "the cache":
        _opened_without_cache(done, expected, f"{cache}: other users can write to it (mode 0777)")
    else:
        _opened_without_cache(done, expected, f"{cache}: under {parent}, which is writable by other users "
                                              "(mode 0777, no sticky bit)")
    assert os.listdir(cache) == [] and _names(private_tmp) == []  # not even a folder of checks
    for command in (("cache",), ("cache", "clear")):
        done = pvtui(*command, cache=cache, tmp=private_tmp)
        assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"pvtui: cache not used ({cache}")


def test_a_sticky_parent_others_can_write_to_is_fine(report, expected, tmp_path, private_tmp):
    parent = tmp_path / "like-tmp"
    parent.mkdir()
    parent.chmod(0o1777)
    done = _summary(report, parent / "cache", private_tmp)
    assert done.stdout == expected and done.stderr == ""


def test_a_temporary_directory_other_users_can_change_is_not_used(report, tmp_path):
    blocker, tmp = tmp_path / "blocker", tmp_path / "tmp"
    blocker.write_text("")
    tmp.mkdir(mode=0o777)
    tmp.chmod(0o777)
    done = _summary(report, blocker, tmp)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert f"{tmp}: writable by other users (mode 0777, no sticky bit), and cache not used" in done.stderr
    assert _names(tmp) == []


def test_a_group_that_holds_only_its_owner_counts_as_the_owner(report, expected, tmp_path, private_tmp):
    try:
        me = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(me.pw_gid)
    except KeyError:
        pytest.skip("no passwd or group entry for this user, to name a private group")
    if group.gr_name != me.pw_name or set(group.gr_mem) - {me.pw_name}:
        pytest.skip(f"your primary group {group.gr_name} is not a user private group (named as you, only you)")
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chown(cache, -1, me.pw_gid)
    cache.chmod(0o770)  # as umask 002 makes it
    done = _summary(report, cache, private_tmp)
    assert done.stdout == expected and done.stderr == ""


# --- a second user ---------------------------------------------------------------------


@pytest.fixture
def other_user():
    """(uid, preexec_fn) to run a process as another user: root can take an unused uid."""
    if os.geteuid() != 0:
        pytest.skip("a second user needs root here: a process that is not root cannot take another uid")
    uid = next(uid for uid in range(61000, 62000) if not _has_user(uid))

    def become() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)

    assert subprocess.run(["id", "-u"], preexec_fn=become, capture_output=True, text=True).stdout == f"{uid}\n"
    return uid, become


def _has_user(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


@pytest.fixture
def shared():
    """A directory like /tmp (sticky, anyone may add to it) that every user can reach."""
    path = Path(tempfile.mkdtemp(prefix="pvtui-test-shared-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path)


def test_a_cache_another_user_made_is_refused_in_one_line(other_user, shared, report, expected, private_tmp):
    uid, become = other_user
    cache, victim = shared / "cache", shared / "victim"
    lock = cache / f".{_key(report)}.pvtui-lock"
    planted = f"mkdir -m 0777 {cache} && ln -s {victim} {lock} && mkdir -m 0700 {shared}/pvtui-private-theirs " \
              f"&& touch {shared}/pvtui-private-theirs/.pvtui-private.lock"
    subprocess.run(["sh", "-c", planted], preexec_fn=become, check=True)
    before, theirs = _tree(cache), shared / "pvtui-private-theirs"
    done = _summary(report, cache, shared)  # TMPDIR is the shared one, holding their unlocked private dir
    _opened_without_cache(done, expected, f"{cache}: owned by uid {uid}, not by you")
    assert not victim.exists() and _tree(cache) == before and theirs.is_dir()
    for command in (("cache",), ("cache", "clear")):
        done = pvtui(*command, cache=cache, tmp=shared)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and f"owned by uid {uid}" in done.stderr
    assert _tree(cache) == before and theirs.is_dir() and sorted(_names(shared)) == ["cache", "pvtui-private-theirs"]


def test_a_cache_its_group_can_write_to_is_refused(other_user, report, expected, tmp_path, private_tmp):
    uid, _become = other_user
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chown(cache, -1, uid)  # a group of another's (here without even a name)
    cache.chmod(0o770)
    _opened_without_cache(_summary(report, cache, private_tmp), expected, f"{cache}: other users can write to it")


# --- modes -------------------------------------------------------------------------------


def _modes(folder: Path) -> set[tuple[str, int]]:
    return {("dir" if p.is_dir() else "file", stat.S_IMODE(p.lstat().st_mode)) for p in [folder, *folder.rglob("*")]}


def test_the_cache_and_its_entries_are_the_user_s_alone(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "new" / "cache"
    done = _summary(report, cache, private_tmp, preexec=lambda: os.umask(0o002))
    assert done.stdout == expected and done.stderr == ""
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700  # created as XDG asks
    assert _modes(cache) == {("dir", 0o700), ("file", 0o600)}


def test_a_private_bundle_is_the_user_s_alone(report, tmp_path, private_tmp):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    holder = _hold(report, blocker, private_tmp)
    try:
        (private,) = _names(private_tmp)
        assert _modes(private_tmp / private) == {("dir", 0o700), ("file", 0o600)}
    finally:
        _read_and_stop(holder)


@pytest.mark.parametrize("umask, modes", [(0o022, {("dir", 0o755), ("file", 0o644)}),
                                          (0o077, {("dir", 0o700), ("file", 0o600)})])
def test_an_export_keeps_the_user_s_umask(umask, modes, report, expected, tmp_path, private_tmp):
    cache, out = tmp_path / "cache", tmp_path / "export"
    assert _summary(report, cache, private_tmp).stdout == expected
    done = pvtui("export", str(report), str(out), cache=cache, tmp=private_tmp, preexec=lambda: os.umask(umask))
    assert done.returncode == 0, done.stderr
    assert _modes(out) == modes and _modes(cache) == {("dir", 0o700), ("file", 0o600)}
