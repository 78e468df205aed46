"""Discovery: which reports a path holds, in every layout Poplar and the frameworks write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pvtui.errors import ReportError
from pvtui.model.bundle import BundleWriter
from pvtui.sources.discovery import BUNDLE_DIR_NAME, discover


def touch(*paths: Path) -> None:
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")


def make_bundle(path: Path) -> Path:
    with BundleWriter(path) as writer:
        writer.commit()
    return path


def test_one_engine_directory(tmp_path: Path) -> None:
    report_dir = tmp_path / "run"
    names = ("profile.pop", "debug.cbor", "archive.a", "framework.json", "app.json")
    touch(*(report_dir / name for name in names))
    [report] = discover(report_dir)
    assert report.name == "run" and report.directory == report_dir
    assert report.profile == report_dir / "profile.pop"
    assert report.debug == report_dir / "debug.cbor"
    assert report.archive == report_dir / "archive.a"
    assert report.framework == report_dir / "framework.json"
    assert report.app == report_dir / "app.json"
    assert report.bundle is None


@pytest.mark.parametrize("name", ["profile.pop", "archive.a", "debug.cbor", "app.json"])
def test_a_single_file_gives_its_directory(tmp_path: Path, name: str) -> None:
    touch(tmp_path / "run" / "profile.pop", tmp_path / "run" / "archive.a", tmp_path / "run" / name)
    [report] = discover(tmp_path / "run" / name)
    assert report.directory == tmp_path / "run" and report.name == "run"


def test_archive_alone_is_a_report(tmp_path: Path) -> None:
    touch(tmp_path / "archive.a")
    [report] = discover(tmp_path)
    assert report.archive == tmp_path / "archive.a" and report.profile is None


def test_poptorch_engines_share_the_top_debug_cbor(tmp_path: Path) -> None:
    touch(tmp_path / "debug.cbor", tmp_path / "training" / "profile.pop")
    touch(tmp_path / "inference" / "profile.pop", tmp_path / "inference" / "archive.a")
    reports = discover(tmp_path)
    assert [r.name for r in reports] == ["inference", "training"]
    assert all(r.debug == tmp_path / "debug.cbor" for r in reports)
    assert reports[0].archive == tmp_path / "inference" / "archive.a" and reports[1].archive is None
    assert [r.name for r in discover(tmp_path / "debug.cbor")] == ["inference", "training"]
    [training] = discover(tmp_path / "training")
    assert training.name == "training" and training.debug == tmp_path / "debug.cbor"


def test_popart_debug_beside_the_profile_wins(tmp_path: Path) -> None:
    engine = tmp_path / "my_engine"
    touch(tmp_path / "debug.cbor", engine / "profile.pop", engine / "debug.cbor")
    [report] = discover(tmp_path)
    assert report.name == "my_engine" and report.debug == engine / "debug.cbor"


def test_tensorflow_reports(tmp_path: Path) -> None:
    touch(tmp_path / "debug.cbor")
    names = [
        "tf_report__2024-03-01__10-00-00.123456__4242",
        "tf_report__2024-03-01__09-59-58.000001__4242",
    ]
    for name in names:
        touch(tmp_path / name / "profile.pop", tmp_path / name / "framework.json")
    reports = discover(tmp_path)
    assert [r.name for r in reports] == sorted(names)
    assert all(r.debug == tmp_path / "debug.cbor" and r.framework is not None for r in reports)


def test_synthetic_report_with_a_bundle_for_profile(tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "demo" / BUNDLE_DIR_NAME)
    touch(tmp_path / "demo" / "archive.a", tmp_path / "demo" / "debug.cbor")
    [report] = discover(tmp_path / "demo")
    assert report.bundle == bundle and report.directory == tmp_path / "demo"
    assert report.profile is None
    assert report.debug == tmp_path / "demo" / "debug.cbor"
    assert discover(bundle) == [report]
    assert discover(tmp_path) == [report]


def test_a_bundle_directory(tmp_path: Path) -> None:
    bundle = make_bundle(tmp_path / "exported")
    touch(bundle / "profile.pop")  # a bundle's insides are never searched
    [report] = discover(bundle)
    assert report.bundle == bundle and report.directory == bundle and report.name == "exported"
    [found] = discover(tmp_path)
    assert found.bundle == bundle and found.name == "exported"


def test_nested_names_are_relative(tmp_path: Path) -> None:
    touch(tmp_path / "profile.pop", tmp_path / "a" / "b" / "c" / "profile.pop")
    touch(tmp_path / "a" / "d" / "archive.a")
    touch(tmp_path / "a" / "b" / "c" / "e" / "profile.pop")  # 4 levels down: too deep
    assert [r.name for r in discover(tmp_path)] == sorted([tmp_path.name, "a/b/c", "a/d"])


def test_hidden_directories_and_renamed_files_are_not_reports(tmp_path: Path) -> None:
    touch(tmp_path / ".cache" / "profile.pop", tmp_path / "old" / "profile.pop.bak")
    touch(tmp_path / "x" / "Profile.pop")
    (tmp_path / "dir" / "profile.pop").mkdir(parents=True)
    touch(tmp_path / "debug.cbor")
    nothing = r"No graph profile found \(need profile.pop or archive.a\)"
    with pytest.raises(ReportError, match=nothing):
        discover(tmp_path)
    with pytest.raises(ReportError, match="not a report file"):
        discover(tmp_path / "old" / "profile.pop.bak")


def test_symlink_loops_are_not_followed(tmp_path: Path) -> None:
    touch(tmp_path / "training" / "profile.pop")
    os.symlink(tmp_path, tmp_path / "training" / "loop")
    os.symlink(tmp_path / "training", tmp_path / "again")
    os.symlink(tmp_path / "nowhere", tmp_path / "broken")
    reports = discover(tmp_path)
    assert [r.name for r in reports] == ["training"]


def test_dot_is_named_after_the_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path / "run" / "profile.pop")
    monkeypatch.chdir(tmp_path / "run")
    assert [r.name for r in discover(Path("."))] == ["run"]


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such file or directory"):
        discover(tmp_path / "nope")


def test_what_cannot_be_read_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path / "run" / "profile.pop")
    (tmp_path / "locked").mkdir()
    real_is_file = Path.is_file

    def is_file(path: Path) -> bool:  # as /proc/1/fdinfo is to anyone but its owner (root reads all)
        if "locked" in path.parts:
            raise PermissionError(13, "Permission denied", str(path))
        return real_is_file(path)

    monkeypatch.setattr(Path, "is_file", is_file)
    assert [r.name for r in discover(tmp_path)] == ["run"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_pseudo_filesystems_are_never_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pvtui.sources.discovery as discovery

    touch(tmp_path / "run" / "profile.pop")
    os.symlink("/proc", tmp_path / "proc")
    os.symlink("/dev", tmp_path / "dev")
    listed: list[Path] = []
    real_entries = discovery._entries
    monkeypatch.setattr(discovery, "_entries", lambda d: listed.append(Path(d)) or real_entries(d))
    assert [r.name for r in discover(tmp_path)] == ["run"]
    with pytest.raises(ReportError, match="No graph profile found"):
        discover(Path("/proc"))
    try:
        discover(Path("/"))
    except ReportError:
        pass  # no report anywhere on this machine: said in one line
    assert listed and not [d for d in listed if d.parts[1:2] in (("proc",), ("sys",), ("dev",))
                           or d.parts[-1] in ("proc", "dev") and d.parent == tmp_path]


def test_the_search_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pvtui.sources.discovery as discovery

    for i in range(8):
        (tmp_path / f"empty{i}").mkdir()
    touch(tmp_path / "zz" / "profile.pop")
    monkeypatch.setattr(discovery, "MAX_DIRECTORIES", 5)
    with pytest.raises(ReportError, match="No graph profile found in the first 5 directories searched"):
        discover(tmp_path)


def test_several_reports_are_named_briefly_with_how_to_choose(tmp_path: Path) -> None:
    from pvtui.commands.common import LISTED_REPORTS, find_report

    for i in range(LISTED_REPORTS + 3):
        touch(tmp_path / f"run{i:02}" / "archive.a")
    with pytest.raises(ReportError) as raised:
        find_report(tmp_path)
    message = str(raised.value)
    assert f"holds {LISTED_REPORTS + 3} reports" in message and "and 3 more" in message
    assert "run09" in message and "run10" not in message
    assert "--engine NAME" in message and "narrower PATH" in message
    assert find_report(tmp_path, "run12").archive == tmp_path / "run12" / "archive.a"
