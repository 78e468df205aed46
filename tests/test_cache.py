"""The cache when the machine misbehaves: unusable, shared by concurrent processes, a build
killed, growing past its cap. Real processes and real file-system conditions throughout."""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pvtui.sources.cache import KEPT_FOLDERS, _report_of, parse_size

ROOT = Path(__file__).resolve().parent.parent
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
# A process that opens a report, says "ready", then on a line of input reads every column.
HOLDER = """
import sys
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import load_report
report = load_report(discover(sys.argv[1])[0])
print("ready", flush=True)
sys.stdin.readline()
print("read", sum(int(report.bundle.array(name).sum()) for name in report.meta["columns"]), flush=True)
"""
# A build that stops (says so in a file) while reading framework.json, to be killed there.
STALLED_BUILD = """
import sys, time
from pathlib import Path
import pvtui.sources.json_files as json_files
def stall(path, ctx, part):
    Path(sys.argv[2]).write_text("building")
    time.sleep(600)
json_files.read_json = stall
from pvtui.cli import main
main(["summary", sys.argv[1]])
"""


@pytest.fixture
def report(tiny_dir, tmp_path) -> Path:
    """The tiny report without a bundle of its own: opening it needs the cache."""
    return _copy(tiny_dir, tmp_path / "report")


def _copy(tiny_dir: Path, out: Path) -> Path:
    """Without profile.pop too: read by the native reader, it would warn of what its tables lack."""
    shutil.copytree(tiny_dir, out, ignore=shutil.ignore_patterns("profile.pvtui", "profile.pop"))
    return out


@pytest.fixture
def private_tmp(tmp_path) -> Path:
    """The processes' TMPDIR, to see that a private bundle is removed on exit."""
    path = tmp_path / "private"
    path.mkdir()
    return path


def _env(cache: Path, tmp: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PVTUI_CACHE_DIR": str(cache), "TMPDIR": str(tmp), **extra}


def pvtui(*args: str, cache: Path, tmp: Path, wrap: tuple[str, ...] = (), preexec=None, **extra: str):
    command = [*wrap, sys.executable, "-m", "pvtui.cli", *args]
    return subprocess.run(command, env=_env(cache, tmp, **extra), capture_output=True, text=True,
                          preexec_fn=preexec, timeout=300)


def _summary(report: Path, cache: Path, tmp: Path, **kwargs):
    return pvtui("summary", "--json", str(report), cache=cache, tmp=tmp, **kwargs)


@pytest.fixture
def expected(report, tmp_path, private_tmp) -> str:
    """What `pvtui summary --json` prints for the report, read through a cache that works."""
    done = _summary(report, tmp_path / "working-cache", private_tmp)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def _one_warning(done, *words: str) -> str:
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("warning: cache not used (") and "removed on exit" in lines[0]
    assert all(word in lines[0] for word in words), lines[0]
    return lines[0]


def _opened_without_cache(done, expected: str, *words: str) -> None:
    """DONE printed EXPECTED but for the one note, also its one line of warning, on the cache."""
    warning = _one_warning(done, *words)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer.pop("notes") == [f"[cache] {warning.removeprefix('warning: ')}"]
    reference = json.loads(expected)
    assert reference.pop("notes") == [] and answer == reference


def _names(folder: Path) -> list[str]:
    """What FOLDER holds, besides pvtui's folders kept beside the entries (stylesheets, checks)."""
    return sorted(path.name for path in folder.iterdir() if path.name not in KEPT_FOLDERS)


# --- an unusable cache -------------------------------------------------------------


@pytest.mark.parametrize("where", ["the file", "under the file"])
def test_a_file_where_the_cache_should_be_is_passed_by(where, report, expected, tmp_path, private_tmp):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    cache = blocker if where == "the file" else blocker / "pvtui"
    done = _summary(report, cache, private_tmp)
    _opened_without_cache(done, expected, str(cache), "a file is in the way")
    assert blocker.read_text() == "not a directory"
    assert _names(private_tmp) == []  # the private bundle went with the process


@pytest.mark.parametrize("cache", ["/proc/pvtui-cache", "/proc/pvtui-cache/deeper/still"])
def test_a_place_that_refuses_directories_under_a_parent_there_is_passed_by(cache, report, expected, private_tmp):
    """/proc is a directory, and mkdir under it says ENOENT: a bounded try, then the private bundle."""
    done = _summary(report, Path(cache), private_tmp)
    _opened_without_cache(done, expected, "/proc/pvtui-cache", "No such file or directory")
    assert _names(private_tmp) == []


def _without_permission_override() -> None:
    """Run as root without the capabilities that pass over file permissions, like any user."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture
def as_a_user(tmp_path):
    """The preexec_fn that makes a process subject to file permissions (root or not)."""
    if os.geteuid() != 0:
        return None
    probe = tmp_path / "probe"
    probe.mkdir(mode=0o555)
    try:
        subprocess.run(["touch", str(probe / "x")], preexec_fn=_without_permission_override, check=True,
                       capture_output=True)
    except (subprocess.SubprocessError, OSError):
        pass
    else:
        pytest.skip("cannot drop CAP_DAC_OVERRIDE here")
    return _without_permission_override


def test_a_cache_without_write_permission_is_passed_by(report, expected, tmp_path, private_tmp, as_a_user):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o555)
    done = _summary(report, cache, private_tmp, preexec=as_a_user)
    _opened_without_cache(done, expected, str(cache), "Permission denied")
    assert _names(cache) == [] and _names(private_tmp) == []


def test_a_shared_cache_not_ours_to_write_is_still_read(report, expected, tmp_path, private_tmp, as_a_user):
    cache = tmp_path / "cache"
    assert _summary(report, cache, private_tmp).stdout == expected  # built by its owner
    cache.chmod(0o555)
    before = _names(cache)
    done = _summary(report, cache, private_tmp, preexec=as_a_user)
    assert done.returncode == 0 and done.stdout == expected and done.stderr == ""
    assert _names(cache) == before


def _in_a_mount_namespace(mount: str) -> tuple[str, ...]:
    """A command prefix: MOUNT (a shell command on "$0", the cache) in a private mount namespace,
    then the command; what is left in the cache is listed in CACHE.left. The namespace is a
    user namespace's (`unshare -rm`), so no root is needed: any user where the kernel allows them."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare command here (util-linux)")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are off here: `unshare -rm true` says {probe.stderr.strip()!r}")
    script = f'{mount} || exit 99; "$@"; status=$?; ls -A "$0" > "$0.left"; exit $status'
    return ("unshare", "-rm", "sh", "-c", script)


def test_a_read_only_file_system_is_passed_by(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    cache.mkdir()
    wrap = (*_in_a_mount_namespace('mount --bind -o ro "$0" "$0"'), str(cache))
    done = _summary(report, cache, private_tmp, wrap=wrap)
    _opened_without_cache(done, expected, str(cache), "Read-only file system")
    assert _names(private_tmp) == []


def test_a_full_disk_is_passed_by(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    cache.mkdir()
    wrap = (*_in_a_mount_namespace('mount -t tmpfs -o size=64k,mode=0700 tmpfs "$0"'), str(cache))  # < the bundle
    done = _summary(report, cache, private_tmp, wrap=wrap)
    _opened_without_cache(done, expected, str(cache), "No space left on device")
    assert (tmp_path / "cache.left").read_text() == ""  # nothing left on the full disk
    assert _names(private_tmp) == []


def test_a_full_disk_under_a_mapped_column_raises_instead_of_killing(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    script = (
        "import sys, numpy as np\n"
        "from pvtui.errors import BundleWriteError\n"
        "from pvtui.model.bundle import BundleWriter\n"
        "with BundleWriter(sys.argv[1] + '/bundle') as writer:\n"
        "    try:\n"
        "        writer.open_array('big', (1 << 20,), np.uint8)[:] = 1\n"  # a disk of 64 KiB
        "    except BundleWriteError as exc:\n"
        "        print(exc)\n"
    )
    wrap = _in_a_mount_namespace('mount -t tmpfs -o size=64k tmpfs "$0"')
    done = subprocess.run([*wrap, str(folder), sys.executable, "-c", script, str(folder)], env=_env(folder, folder),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done  # not killed by SIGBUS writing pages the disk has no room for
    assert "big.npy: cannot be written (No space left on device)" in done.stdout
    assert (tmp_path / "small.left").read_text() == ""


def test_a_file_size_limit_everywhere_says_so_in_one_line(report, tmp_path, private_tmp):
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    cache = tmp_path / "cache"
    done = _summary(report, cache, private_tmp, preexec=limit_files)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "File too large" in lines[0] and "cache not used" in lines[0], done.stderr
    assert _names(cache) == [] and _names(private_tmp) == []


def test_the_demo_opens_with_an_unusable_cache(tmp_path, private_tmp):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    script = (
        "import pvtui.synth as synth; real = synth.write_report\n"
        "synth.write_report = lambda out, scale, **kw: real(out, scale='tiny', **kw)\n"  # quicker
        "from pvtui.commands.demo import demo_report_dir; out = demo_report_dir()\n"
        "print(out, (out / 'profile.pvtui' / 'meta.json').is_file())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=_env(blocker, private_tmp), capture_output=True,
                          text=True, timeout=300)
    out, whole = done.stdout.split()
    assert done.returncode == 0 and whole == "True"
    _one_warning(done, str(blocker))
    assert Path(out).is_relative_to(private_tmp) and _names(private_tmp) == []


def _private_dirs(tmp: Path) -> list[str]:
    return sorted(name for name in _names(tmp) if name.startswith("pvtui-private-"))


def _killed_holder(report: Path, cache: Path, tmp: Path) -> str:
    """The private directory a process reading REPORT without a cache left when SIGKILLed."""
    before = set(_private_dirs(tmp))
    holder = _hold(report, cache, tmp)
    (left,) = set(_private_dirs(tmp)) - before
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (tmp / left).is_dir()  # no atexit ran
    return left


def test_a_killed_process_s_private_directory_is_swept_by_a_later_one(report, expected, tmp_path, private_tmp):
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    killed = _killed_holder(report, blocker, private_tmp)
    live = _hold(report, blocker, private_tmp)
    try:
        (alive,) = set(_private_dirs(private_tmp)) - {killed}
        (private_tmp / "pvtui-private-not-ours").mkdir()  # no lock file in it: not one of ours
        _opened_without_cache(_summary(report, blocker, private_tmp), expected, str(blocker))
        assert _private_dirs(private_tmp) == sorted([alive, "pvtui-private-not-ours"])
        assert "read" in _read_and_stop(live)  # its directory was left whole under it
    finally:
        live.kill()
    assert _private_dirs(private_tmp) == ["pvtui-private-not-ours"]


def test_cache_clear_removes_and_names_what_killed_processes_left(report, tmp_path, private_tmp):
    (tmp_path / "blocker-file").write_text("")
    killed = _killed_holder(report, tmp_path / "blocker-file", private_tmp)
    cleared = pvtui("cache", "clear", cache=tmp_path / "cache", tmp=private_tmp)
    assert cleared.returncode == 0 and "removed 1 temporary directory" in cleared.stdout
    assert str(private_tmp / killed) in cleared.stdout and _private_dirs(private_tmp) == []
    killed = _killed_holder(report, tmp_path / "blocker-file", private_tmp)
    data = json.loads(pvtui("cache", "clear", "--json", cache=tmp_path / "cache", tmp=private_tmp).stdout)
    assert [item["path"] for item in data["temporary_removed"]] == [str(private_tmp / killed)]
    assert data["temporary_removed"][0]["bytes"] > 0


# --- processes sharing one cache -----------------------------------------------------


def test_concurrent_cold_opens_all_succeed_alike(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    command = [sys.executable, "-m", "pvtui.cli", "summary", "--json", str(report)]
    for _round in range(5):
        shutil.rmtree(cache, ignore_errors=True)
        runs = [subprocess.Popen(command, env=_env(cache, private_tmp), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(4)]
        answers = [(run.communicate(timeout=300), run.returncode) for run in runs]
        assert all(code == 0 and out == expected and err == "" for (out, err), code in answers)
        (entry,) = [name for name in _names(cache) if not name.startswith(".")]
        assert _names(cache) == [f".{entry}.pvtui-lock", entry]  # no second copy, no temporary left


def _start(script: str, *args: str, cache: Path, tmp: Path, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], env=_env(cache, tmp, **extra),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _hold(report: Path, cache: Path, tmp: Path) -> subprocess.Popen:
    holder = _start(HOLDER, str(report), cache=cache, tmp=tmp)
    assert holder.stdout.readline() == "ready\n", holder.stderr.read()
    return holder


def _read_and_stop(holder: subprocess.Popen) -> str:
    out, err = holder.communicate("go\n", timeout=120)
    assert holder.returncode == 0, err
    return out


def test_a_killed_build_is_cleaned_up_once_no_process_owns_it(report, expected, tmp_path, private_tmp):
    cache, marker = tmp_path / "cache", tmp_path / "building"
    builder = _start(STALLED_BUILD, str(report), str(marker), cache=cache, tmp=private_tmp)
    try:
        while not marker.exists():
            assert builder.poll() is None, builder.stderr.read()
            time.sleep(0.05)
        (temporary,) = [name for name in _names(cache) if ".pvtui-tmp-" in name]
        assert pvtui("cache", "clear", cache=cache, tmp=private_tmp).returncode == 0
        assert (cache / temporary).is_dir()  # its builder is alive: not touched
        waiter = subprocess.Popen([sys.executable, "-m", "pvtui.cli", "summary", "--json", str(report)],
                                  env=_env(cache, private_tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
    finally:
        builder.send_signal(signal.SIGKILL)
        builder.wait()
    out, err = waiter.communicate(timeout=300)  # waited for the build, then did it itself
    assert waiter.returncode == 0 and out == expected and err == ""
    (entry,) = [name for name in _names(cache) if not name.startswith(".")]
    assert _names(cache) == [f".{entry}.pvtui-lock", entry]


def test_a_bundle_in_use_is_never_removed(report, expected, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    holder = _hold(report, cache, private_tmp)
    cleared = pvtui("cache", "clear", "--json", cache=cache, tmp=private_tmp)
    data = json.loads(cleared.stdout)
    assert data["removed"] == [] and [e["report"] for e in data["kept_in_use"]] == [str(report)]
    assert _read_and_stop(holder).startswith("read ")  # every column still there
    cleared = json.loads(pvtui("cache", "clear", "--json", cache=cache, tmp=private_tmp).stdout)
    assert [e["report"] for e in cleared["removed"]] == [str(report)] and _names(cache) == []


# --- growth --------------------------------------------------------------------------


def _entry_of(cache: Path, report: Path) -> str:
    listed = json.loads(pvtui("cache", "--json", cache=cache, tmp=cache.parent).stdout)["entries"]
    (path,) = [e["path"] for e in listed if e["report"] == str(report)]
    return Path(path).name


def _used_ago(cache: Path, key: str, seconds: float) -> None:
    when = time.time() - seconds
    os.utime(cache / f".{key}.pvtui-lock", (when, when))


def test_the_cap_evicts_the_least_recently_used_bundle_no_process_holds(tiny_dir, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    a, b, c = (_copy(tiny_dir, tmp_path / name) for name in ("a", "b", "c"))
    for folder in (a, b):
        assert _summary(folder, cache, private_tmp).returncode == 0
    size = sum(p.stat().st_size for p in (cache / _entry_of(cache, a)).iterdir())
    cap = f"{(2 * size + size // 2) // 1024}K"  # room for two bundles, not three
    holder = _hold(a, cache, private_tmp)
    _used_ago(cache, _entry_of(cache, a), 3600)  # a is the least recently used, b next
    _used_ago(cache, _entry_of(cache, b), 1800)
    assert _summary(c, cache, private_tmp, PVTUI_CACHE_MAX=cap).returncode == 0
    listed = json.loads(pvtui("cache", "--json", cache=cache, tmp=private_tmp).stdout)["entries"]
    assert sorted(e["report"] for e in listed) == [str(a), str(c)]  # b went: a is held
    assert _read_and_stop(holder).startswith("read ")
    assert _summary(b, cache, private_tmp, PVTUI_CACHE_MAX=cap).returncode == 0
    listed = json.loads(pvtui("cache", "--json", cache=cache, tmp=private_tmp).stdout)["entries"]
    assert sorted(e["report"] for e in listed) == [str(b), str(c)]  # now a, no longer held, went


def test_pvtui_cache_lists_and_clears(tiny_dir, tmp_path, private_tmp):
    cache = tmp_path / "cache"
    old, new = (_copy(tiny_dir, tmp_path / name) for name in ("old", "new"))
    for folder in (old, new):
        assert _summary(folder, cache, private_tmp).returncode == 0
    _used_ago(cache, _entry_of(cache, old), 3 * 86400)
    listing = pvtui("cache", cache=cache, tmp=private_tmp, COLUMNS="200")
    assert listing.returncode == 0 and str(cache) in listing.stdout and "2 bundles" in listing.stdout
    assert str(old) in listing.stdout and str(new) in listing.stdout and "pvtui cache clear" in listing.stdout
    data = json.loads(pvtui("cache", "--json", cache=cache, tmp=private_tmp).stdout)
    assert [e["report"] for e in data["entries"]] == [str(new), str(old)]  # most recently used first
    assert all(e["bytes"] > 0 and not e["in_use"] for e in data["entries"])
    assert data["max_bytes"] == 10 * 2**30 and data["total_bytes"] == sum(e["bytes"] for e in data["entries"])
    cleared = pvtui("cache", "clear", "--older-than", "2", cache=cache, tmp=private_tmp)
    assert cleared.returncode == 0 and "removed 1 cached report" in cleared.stdout
    assert [e["report"] for e in json.loads(pvtui("cache", "--json", cache=cache, tmp=private_tmp).stdout)["entries"]] \
        == [str(new)]
    assert pvtui("cache", "clear", cache=cache, tmp=private_tmp).returncode == 0
    assert _names(cache) == []  # no entry, no lock


def test_cache_settings_that_make_no_sense_say_so(report, tmp_path, private_tmp):
    done = pvtui("cache", "--older-than", "3", cache=tmp_path / "cache", tmp=private_tmp)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "pvtui cache clear" in done.stderr
    done = _summary(report, tmp_path / "cache", private_tmp, PVTUI_CACHE_MAX="lots")
    assert done.returncode == 0
    _one_warning(done, "PVTUI_CACHE_MAX", "'lots'")
    assert _summary(report, tmp_path / "cache", private_tmp).returncode == 0
    for days in ("-1", "nan", "soon"):  # -1 would be every bundle's age; nan none
        done = pvtui("cache", "clear", "--older-than", days, cache=tmp_path / "cache", tmp=private_tmp)
        assert done.returncode == 2 and "0 or more" in done.stderr and done.stderr.count("\n") == 1
    listed = json.loads(pvtui("cache", "--json", cache=tmp_path / "cache", tmp=private_tmp).stdout)["entries"]
    assert len(listed) == 1  # nothing was cleared


@pytest.mark.parametrize("text, size", [("500M", 500 * 2**20), ("10G", 10 * 2**30), ("1.5GiB", 3 * 2**29),
                                        ("4096", 4096), ("64kb", 65536), ("2T", 2 * 2**40)])
def test_sizes_read_as_binary_multiples(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "10 G G", "-1G", "1Q"])
def test_a_size_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


@pytest.mark.parametrize("files", [{"app.json": {"path": 5}}, {"app.json": {"path": None}}, {"app.json": ["x"]}, []])
def test_an_entry_whose_meta_names_its_files_wrongly_is_listed_by_its_own_path(tmp_path, files):
    entry = tmp_path / "entry"
    entry.mkdir()
    (entry / "meta.json").write_text(json.dumps({"name": "r", "files": files}))
    assert _report_of(entry) == str(entry)
