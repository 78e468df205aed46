"""The headless commands: JSON figures checked against independent computations."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pvtui import __version__
from pvtui.cli import main


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_version_and_help():
    out = subprocess.run([sys.executable, "-m", "pvtui.cli", "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"pvtui {__version__}"
    out = subprocess.run([sys.executable, "-m", "pvtui.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    for command in ("summary", "memory", "liveness", "programs", "trace", "export", "synth", "demo"):
        assert command in out.stdout


def test_summary_matches_the_generators_own_figures(capsys, tiny_dir):
    from pvtui.synth import generate

    expected = generate("tiny", seed=0).expected_summary()
    data = run_json(capsys, "summary", str(tiny_dir))
    target, memory = data["target"], data["memory"]
    assert target["num_tiles"] == expected["num_tiles"]
    assert target["tiles_per_ipu"] == expected["tiles_per_ipu"]
    assert target["bytes_per_tile"] == expected["bytes_per_tile"]
    assert target["num_ipus"] == expected["num_ipus"]
    assert target["architecture"] == "Ipu2" and target["type"] == "Ipu"
    assert target["clock_hz"] == pytest.approx(expected["clock_hz"])
    for key in (
        "total_including_gaps", "total_excluding_gaps", "max_tile", "max_tile_bytes",
        "tiles_over_limit", "always_live_bytes", "peak_not_always_live_bytes", "peak_step",
        "peak_step_name",
    ):
        assert memory[key] == expected[key], key
    assert data["programs"]["count"] == expected["programs"]
    assert data["programs"]["compute_sets"] == expected["compute_sets"]
    assert data["execution"] == {  # device time is checked against the truth in test_layers
        "runs": expected["runs"], "steps": expected["steps"], "report_total_cycles": expected["total_cycles"],
        "device_cycles": data["execution"]["device_cycles"],
    }
    assert data["poplar_version"] == expected["poplar_version"]
    assert data["files"] == {
        "profile.pop": True, "debug.cbor": True, "archive.a": True,
        "framework.json": True, "app.json": True,
    }
    assert data["file_states"]["profile.pop"] == "stood in"  # profile.pvtui, made from the stand-in, beside it
    assert set(data["readers"].values()) == {"stand-in"}


def test_memory_lists_tiles_largest_first(capsys, tiny_dir):
    from pvtui.synth import generate

    expected = generate("tiny", seed=0).expected_summary()
    data = run_json(capsys, "memory", str(tiny_dir), "--top", "5")
    sizes = [t["bytes"] for t in data["tiles"]]
    assert len(sizes) == 5 and sizes == sorted(sizes, reverse=True)
    assert data["tiles"][0]["tile"] == expected["max_tile"]
    assert sizes[0] == expected["max_tile_bytes"]
    assert data["categories"] == expected["category_totals"]


def test_memory_of_a_gcc_archive_matches_readelf(capsys, tmp_path):
    from test_archive import C_SOURCES, readelf_sizes, require

    require("gcc", "ar", "readelf")
    report = tmp_path / "report"
    report.mkdir()
    objects = []
    for name, source in C_SOURCES.items():
        (tmp_path / name).write_text(source)
        obj = tmp_path / name.replace(".c", ".o")
        subprocess.run(["gcc", "-c", "-O1", "-fno-common", "-o", str(obj), str(tmp_path / name)], check=True)
        objects.append(str(obj))
    subprocess.run(["ar", "rcs", str(report / "archive.a"), *objects], check=True)
    expected = readelf_sizes(report / "archive.a")
    data = run_json(capsys, "memory", str(report))
    got = {t["tile"]: t["bytes"] for t in data["tiles"]}
    assert got == {i: code + data_ + bss for i, (_, code, data_, bss) in enumerate(expected)}
    assert data["source"] == "archive"
    assert data["categories"] == {
        "code": sum(m[1] for m in expected), "data": sum(m[2] for m in expected),
        "bss": sum(m[3] for m in expected),
    }


def test_every_command_prints_tables_and_json(capsys, tiny_dir):
    for command in ("summary", "memory", "liveness", "programs", "trace"):
        assert main([command, str(tiny_dir)]) == 0
        assert capsys.readouterr().out.strip()
        run_json(capsys, command, str(tiny_dir))


def test_liveness_peak_agrees_with_summary(capsys, tiny_dir):
    summary = run_json(capsys, "summary", str(tiny_dir))["memory"]
    liveness = run_json(capsys, "liveness", str(tiny_dir))
    assert liveness["peak_step"] == summary["peak_step"]
    assert liveness["peak_not_always_live_bytes"] == summary["peak_not_always_live_bytes"]
    sizes = [v["bytes"] for v in liveness["peak_variables"]]
    assert sizes == sorted(sizes, reverse=True) and sizes


def test_export_opens_anywhere_with_the_same_figures(capsys, tiny_dir, tmp_path):
    out = tmp_path / "exported"
    assert main(["export", str(tiny_dir), str(out)]) == 0
    capsys.readouterr()
    original = run_json(capsys, "summary", str(tiny_dir))
    exported = run_json(capsys, "summary", str(out))
    assert exported.pop("name") == "exported" and original.pop("name") == "tiny"
    assert exported == original


def test_bad_paths_give_one_line_and_status_2(capsys, tmp_path):
    assert main(["summary", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "missing" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "framework.json").write_text("{}")
    assert main(["summary", str(tmp_path / "only")]) == 2
    assert "No graph profile found" in capsys.readouterr().err


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_commands_never_change_the_report_files(capsys, tiny_dir, tmp_path):
    before = digest(tiny_dir)
    for args in (["summary"], ["memory"], ["liveness"], ["programs"], ["trace"]):
        main([*args, str(tiny_dir), "--json"])
    main(["export", str(tiny_dir), str(tmp_path / "out")])
    capsys.readouterr()
    assert digest(tiny_dir) == before


def test_an_argument_the_command_does_not_take_points_to_that_commands_help(capsys, tiny_dir):
    with pytest.raises(SystemExit) as exited:
        main(["trace", str(tiny_dir), "--step", "3"])
    (line,) = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert line == "pvtui trace: unrecognized arguments: --step 3; see `pvtui trace --help`"


def test_synth_where_it_cannot_write_says_so_in_one_line(capsys, tmp_path):
    (tmp_path / "a-file").write_text("x")
    for out in ("/proc/pvtui-synth", str(tmp_path / "a-file"), str(tmp_path / "a-file" / "below")):
        assert main(["synth", out, "--scale", "tiny"]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("pvtui: ") and "Traceback" not in line


def test_synth_never_writes_over_a_report_it_did_not_write(capsys, tiny_dir, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "archive.a").write_bytes(b"!<arch>\n")
    assert main(["synth", str(real), "--scale", "tiny"]) == 2
    assert "did not synthesize" in capsys.readouterr().err
    assert (real / "archive.a").read_bytes() == b"!<arch>\n" and not (real / "profile.pvtui").exists()


@pytest.mark.parametrize("args", [("memory", "--top", "-3"), ("memory", "--top", "0"), ("synth", "--ipus", "0")])
def test_counts_below_one_are_refused_in_one_line(capsys, tiny_dir, args):
    command, *option = args
    with pytest.raises(SystemExit) as exited:
        main([command, str(tiny_dir), *option])
    captured = capsys.readouterr()
    assert exited.value.code == 2 and captured.out == ""
    (line,) = captured.err.splitlines()
    assert option[0] in line and repr(option[1]) in line and "1 or more" in line


def test_program_code_counts_each_leaf_once_within_the_code_categories(capsys, tiny_dir, tiny_report):
    programs = tiny_report.programs
    data = run_json(capsys, "programs", str(tiny_dir))
    leaves = np.asarray(programs.code_bytes)[programs.is_leaf]
    assert data["code_bytes"] == int(leaves.sum())
    code = ("controlCode", "internalExchangeCode", "globalExchangeCode", "hostExchangeCode")
    categories = dict(zip(tiny_report.memory.categories, np.asarray(tiny_report.memory.by_category).sum(axis=0)))
    assert data["code_bytes"] <= sum(int(categories[c]) for c in code)
    main(["programs", str(tiny_dir)])
    assert "Code (leaf programs)" in capsys.readouterr().out


@pytest.mark.parametrize("command, usage", [("memory", "--top N"), ("operations", "--top N"),
                                            ("liveness", "--step A] [--vs B]")])
def test_help_names_a_value_as_its_description_does(capsys, command, usage):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert usage in capsys.readouterr().out


@pytest.mark.parametrize("detail", [("--tile", "1"), ("--variable", "stack")])
def test_memory_top_with_one_tile_or_variable_is_refused_not_ignored(capsys, tiny_dir, detail):
    assert main(["memory", str(tiny_dir), *detail, "--top", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--top" in captured.err and detail[0] in captured.err


@pytest.mark.parametrize("argv, said", [
    (["sumary", "REPORT"], "pvtui: unknown command `sumary`; did you mean `summary`? (see `pvtui --help`)"),
    (["trce"], "pvtui: unknown command `trce`; did you mean `trace`? (see `pvtui --help`)"),
    (["nosuchthing"], "pvtui: nosuchthing: not a command, and no such file or directory here (see `pvtui --help`)"),
])
def test_a_word_that_is_no_command_and_no_path_says_which(capsys, tmp_path, monkeypatch, argv, said):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [said]


def test_a_directory_named_like_a_command_still_opens(capsys, tmp_path, monkeypatch):
    from pvtui.cli import not_a_command

    monkeypatch.chdir(tmp_path)
    (tmp_path / "sumary").mkdir()
    assert not_a_command("sumary") is None and not_a_command("summary") is None


def test_an_unknown_theme_lists_the_themes_there_are(tiny_dir):
    from pvtui.app import PvtuiApp, theme_problem

    line = theme_problem(PvtuiApp([]), "nosuch")
    assert line.startswith("pvtui: no theme named 'nosuch'; the themes are dark, high-contrast, light, ")
    assert "nord" in line and "themes/`" not in line


@pytest.mark.parametrize("command", ["memory", "trace", "liveness", "operations", "hotspots", "insights"])
def test_on_a_basic_console_the_tables_are_drawn_in_ascii(capsys, tiny_dir, monkeypatch, command):
    """As the screens are there (TERM=linux): Rich's heavy and light box lines would not show."""
    monkeypatch.setenv("TERM", "linux")
    assert main([command, str(tiny_dir)]) == 0
    out = capsys.readouterr().out
    lines = {c for c in out if 0x2500 <= ord(c) <= 0x257F}  # the box-drawing block
    assert not lines, sorted(lines)
    assert "|" in out or "-" in out
