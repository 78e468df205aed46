"""A bundle's columns of indices are checked as it opens, once for the same files (sources/checked_bundles.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from bad_inputs import STAND_IN

from pvtui.model import schema as s
from pvtui.model.bundle import Bundle, BundleWriter
from pvtui.model.report import Report
from pvtui.sources.cache import CHECKED_BUNDLES
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import load_report, open_current


@pytest.fixture
def checks(monkeypatch) -> list[Path]:
    """The bundles whose columns were checked, as they are."""
    checked: list[Path] = []
    check = Bundle.check_every_reference

    def counted(bundle: Bundle) -> None:
        checked.append(bundle.path)
        check(bundle)

    monkeypatch.setattr(Bundle, "check_every_reference", counted)
    return checked


@pytest.fixture
def bundle(tiny_dir, tmp_path) -> Path:
    path = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, path)
    return path


def rewrite(column: Path, change=lambda values: None) -> None:
    values = np.load(column)
    change(values)
    np.save(column, values)


def test_a_bundle_found_whole_is_checked_again_only_once_a_column_file_is_written(bundle, tmp_path, checks):
    cache = tmp_path / "cache"
    files = discover(bundle)[0]
    for _ in range(3):
        assert open_current(files, cache).liveness is not None
    assert checks == [bundle]
    assert len(list((cache / CHECKED_BUNDLES).iterdir())) == 1
    assert oct((cache / CHECKED_BUNDLES).stat().st_mode & 0o777) == "0o700"
    stat = (bundle / "intervals.variable.npy").stat()
    rewrite(bundle / "intervals.variable.npy", lambda values: values.__setitem__(0, 10**6))
    os.utime(bundle / "intervals.variable.npy", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # its time set back
    report = open_current(files, cache)
    assert checks == [bundle, bundle]
    assert report.liveness is None and "intervals.variable.npy: damaged column" in report.missing("liveness")
    open_current(files, cache)
    assert len(checks) == 3  # a damaged bundle is not recorded: it is checked, and said, at every opening


def test_a_bundle_read_into_the_cache_is_checked_as_it_is_first_opened(tiny_dir, tmp_path, checks):
    report_dir = tmp_path / "report"
    shutil.copytree(tiny_dir, report_dir, ignore=shutil.ignore_patterns(STAND_IN))
    files, cache = discover(report_dir)[0], tmp_path / "cache"
    load_report(files, cache=cache)
    open_current(files, cache)
    assert len(checks) == 1 and checks[0].parent == cache


def test_a_record_is_trusted_only_in_a_folder_of_this_users_alone(bundle, tmp_path, checks):
    cache = tmp_path / "cache"
    files = discover(bundle)[0]
    open_current(files, cache)
    os.chmod(cache / CHECKED_BUNDLES, 0o777)  # others could have planted a record
    open_current(files, cache)
    assert len(checks) == 2
    os.chmod(cache / CHECKED_BUNDLES, 0o700)
    record = next((cache / CHECKED_BUNDLES).iterdir())
    record.unlink()
    record.symlink_to(tmp_path / "elsewhere")  # not a plain file of this user's
    (tmp_path / "elsewhere").write_text("")
    open_current(files, cache)
    assert len(checks) == 3


def test_without_a_cache_directory_every_opening_checks(bundle, tmp_path, checks):
    (tmp_path / "a file").write_text("")
    cache = tmp_path / "a file" / "cache"  # cannot be made
    rewrite(bundle / "programs.parent.npy", lambda values: values.__setitem__(-1, -2))
    files = discover(bundle)[0]
    for _ in range(2):
        report = load_report(files, cache=cache)
        assert report.programs is None and "programs.parent.npy: damaged column" in report.missing("programs")
    assert len(checks) == 2


def test_the_parts_shown_while_a_report_is_read_leave_out_one_whose_column_breaks_its_rule(tmp_path):
    """A reader's column of indices beyond its table (a damaged profile.pop) takes out its part from the
    report shown while the rest is read, where it raised out of the reading."""
    with BundleWriter(tmp_path / "bundle") as writer:
        writer.meta["parts"] = ["programs", "liveness"]
        writer.meta["programs"] = {"types": ["Sequence"]}
        writer.array(s.PROGRAM_TYPE, [0, 0], np.int16)
        writer.array(s.PROGRAM_PARENT, [-1, 0], np.int32)
        writer.array(s.PROGRAM_CHILD_OFFSETS, [0, 1, 1], np.int64)
        writer.array(s.PROGRAM_CHILDREN, [7], np.int32)  # no program 7
        report = Report(writer.snapshot())
    assert report.programs is None and "programs.children.npy: damaged column" in report.missing("programs")
