"""Insights: the model's answers on the tiny report, the command's JSON and text, the
screen's keyboard flow, reports without a profile, and snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import open_screen, wait_for, wait_until_loaded

from pvtui.cli import main
from pvtui.render.insights import SECTIONS
from pvtui.model import insights as model
from pvtui.model.insights import insights
from pvtui.model.unavailable import Unavailable
from pvtui.screens.insights import InsightsScreen
from pvtui.units import format_bytes


@pytest.fixture(scope="module")
def tiny_insights(tiny_report):
    return insights(tiny_report)


@pytest.fixture(scope="module")
def no_profile_dir(tiny_dir, tmp_path_factory) -> Path:
    """The tiny report without its profile: archive.a, debug.cbor and the JSON files only."""
    out = tmp_path_factory.mktemp("no-profile") / "report"
    out.mkdir()
    for name in ("archive.a", "debug.cbor", "framework.json", "app.json"):
        os.link(tiny_dir / name, out / name)
    return out


def run_json(capsys, *args: str) -> dict:
    assert main(["insights", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# The model -------------------------------------------------------------------------


def test_capacity_and_fullest_tiles_name_the_worst_tile(tiny_report, tiny_insights):
    totals = np.asarray(tiny_report.memory.including_gaps)
    limit = tiny_report.target.bytes_per_tile
    capacity = tiny_insights["capacity"]
    assert capacity["status"] == ("out of memory" if (totals > limit).any() else "in capacity")
    assert capacity["tiles_over_limit"] == int((totals > limit).sum())
    assert capacity["proportion"] == pytest.approx(totals.sum() / (limit * len(totals)))
    assert sum(ipu["used_bytes"] for ipu in capacity["per_ipu"]) == int(totals.sum())
    tiles = tiny_insights["fullest_tiles"]["tiles"]
    assert [t["tile"] for t in tiles] == np.argsort(-totals, kind="stable")[: model.FULLEST].tolist()
    worst = tiles[0]
    assert worst["tile"] == int(np.argmax(totals))
    assert worst["ipu"] == int(tiny_report.memory.ipu[worst["tile"]])
    assert worst["over_by"] == max(int(totals.max()) - limit, 0)


def test_histogram_counts_every_tile_and_reaches_the_limit(tiny_report, tiny_insights):
    hist = tiny_insights["histogram"]
    assert sum(hist["counts"]) == tiny_report.memory.num_tiles
    assert len(hist["counts"]) == model.HISTOGRAM_BINS == len(hist["edges"]) - 1
    assert hist["edges"][0] == int(np.min(tiny_report.memory.including_gaps))
    assert hist["edges"][-1] >= tiny_report.target.bytes_per_tile


def test_a_tile_of_no_known_ipu_is_in_no_ipus_always_live_sum(tiny_dir, tmp_path):
    """tiles.ipu is -1 where the reader could not tell a tile's IPU: that tile is left out, not a crash."""
    import shutil

    from pvtui.model.report import Report

    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / "profile.pvtui", bundle)
    ipu = np.load(bundle / "tiles.ipu.npy")
    ipu[0] = -1
    np.save(bundle / "tiles.ipu.npy", ipu)
    report = Report(bundle)
    always = np.asarray(report.memory.always_live)
    per_ipu = insights(report)["liveness"]["per_ipu"]["ipus"]
    assert sum(entry["always_live_bytes"] for entry in per_ipu) == int(always.sum() - always[0])


def test_tiles_of_one_count_of_bytes_too_large_for_bins_are_said_so(tiny_report):
    memory = model.tile_memory(tiny_report)
    huge = np.full(memory.num_tiles, 2**63 - 1, np.int64)
    memory.including_gaps = huge
    section = model.histogram(tiny_report, memory, 20)
    assert isinstance(section, Unavailable) and "too large to count in bins" in section.reason


def test_largest_vertex_state_and_code(tiny_report, tiny_insights):
    from pvtui.model import schema as s

    programs = tiny_report.programs
    types = np.asarray(programs.col(s.COMPUTE_SET_VERTEX_TYPE))
    counts = np.asarray(programs.col(s.COMPUTE_SET_VERTEX_COUNT))
    state = np.asarray(programs.vertex_state_bytes)
    totals = [int(counts[types == t].sum()) * int(state[t]) for t in range(len(state))]
    largest = tiny_insights["vertices"]["state"]["types"][0]
    assert largest["total_bytes"] == max(totals)
    assert largest["name"] == programs.vertex_type_names[int(np.argmax(totals))]
    code = tiny_insights["vertices"]["code"]
    memory = tiny_report.memory
    assert code["total_bytes"] == int(np.sum(memory.col(s.TILE_VERTEX_CODE)))
    assert code["types"][0]["code_bytes"] >= code["types"][-1]["code_bytes"]


def test_vertex_type_names_are_whole_at_80_columns(tiny_insights):
    from rich.console import Console

    from pvtui.render.insights import vertices_renderables

    console = Console(width=80, record=True)
    for renderable in vertices_renderables(tiny_insights["vertices"], str):
        console.print(renderable)
    text = console.export_text()
    assert "…" not in text
    names: list[str] = []  # each row's first word, a line of a name alone continuing the one above
    for words in (line.split() for line in text.splitlines()):
        if len(words) == 1 and names:
            names[-1] += words[0]
        elif words:
            names.append(words[0])
    for part in ("state", "code"):
        assert all(row["name"] in names for row in tiny_insights["vertices"][part]["types"])


def test_liveness_peaks_of_the_model_each_ipu_and_the_worst_tiles(tiny_report, tiny_insights):
    live = tiny_report.liveness
    section = tiny_insights["liveness"]
    peak = section["model"]
    assert peak["peak_step"] == live.peak_step
    assert peak["not_always_live_bytes"] == int(np.max(live.not_always_live))
    assert peak["not_always_live_variables"]["bytes"] == sum(b for _, b in live.live_variables(live.peak_step))
    assert peak["always_live_variables"]["largest"][0]["bytes"] == int(np.max(live.always_live_sizes))
    by_ipu = np.asarray(live.by_ipu)
    assert [i["peak_step"] for i in section["per_ipu"]["ipus"]] == by_ipu.argmax(axis=0).tolist()
    by_tile = np.asarray(live.by_tile)
    for entry in section["worst_tiles"]["tiles"]:
        column = by_tile[:, entry["tile"]]
        assert (entry["peak_step"], entry["not_always_live_bytes"]) == (int(column.argmax()), int(column.max()))
    assert "whole model" in section["variables_note"]


def test_column_peaks_reads_in_chunks_and_stops_when_cancelled(monkeypatch):
    table = np.arange(30).reshape(10, 3) % 7
    monkeypatch.setattr(model, "ROWS_PER_READ", 3)
    steps, peaks = model.column_peaks(table, [0, 2], lambda: False)
    assert steps.tolist() == table[:, [0, 2]].argmax(axis=0).tolist()
    assert peaks.tolist() == table[:, [0, 2]].max(axis=0).tolist()
    from pvtui.errors import Cancelled

    with pytest.raises(Cancelled):
        model.column_peaks(table, [0], lambda: True)


def test_suggestions_state_their_saving_and_assumption(tiny_report, tiny_insights):
    items = tiny_insights["suggestions"]["items"]
    assert all(item["assumption"] for item in items)
    fit = [item for item in items if item["kind"] == "fit"]
    assert fit and fit[0]["saving_bytes"] == tiny_insights["capacity"]["bytes_over_limit"]
    assert f"tile {tiny_insights['fullest_tiles']['tiles'][0]['tile']} " in fit[0]["text"]
    assert all(item["saving_bytes"] for item in items)  # nothing numbered that saves nothing
    live = tiny_report.liveness
    series = np.asarray(live.not_always_live, dtype=np.int64)
    shorter = [i for i in items if i["kind"] == "shorter_life"]
    assert shorter
    for item in shorter:
        name = item["text"].split("Shorten the life of ")[1].split(" (")[0]
        size = int(live.variable_bytes[list(live.variable_names).index(name)])
        assert "upper bound" in item["text"]
        assert 0 < item["saving_bytes"] <= size
        alone = series.copy()
        alone[live.peak_step] -= size
        assert item["at_peak_step_only"]["saving_bytes"] == int(series.max() - alone.max()) <= item["saving_bytes"]


def test_no_fp32_variable_is_a_finding_not_a_suggestion(tiny_insights):
    section = tiny_insights["suggestions"]
    assert all(item["kind"] != "fp32" for item in section["items"])
    (fp32,) = [f for f in section["findings"] if f["kind"] == "fp32"]
    assert fp32["text"].startswith("No FP32 variables found among the ")
    assert "saving_bytes" not in fp32


def test_fp32_suggestion_halves_the_fp32_variables_debug_cbor_types(tiny_report, monkeypatch):
    live = tiny_report.liveness
    (first, size), *_ = live.live_variables(live.peak_step)
    name = live.variable_names[first]
    found = model.element_types(tiny_report, {name})
    assert found == {name: "FLOAT16"}  # the synthetic popart tensor contexts are all half
    monkeypatch.setattr(model, "element_types", lambda report, names: {name: model.FP32})
    fp32 = next(i for i in insights(tiny_report)["suggestions"]["items"] if i["kind"] == "fp32")  # a suggestion
    assert fp32["saving_bytes"] == size // 2
    assert name in fp32["text"]
    assert "tensorId" in fp32["needs"]  # the others have no element type in the report


# The command -----------------------------------------------------------------------


def test_json_names_the_worst_tile_and_the_peak(capsys, tiny_dir, tiny_report):
    data = run_json(capsys, str(tiny_dir))
    assert set(data) >= {"capacity", "fullest_tiles", "histogram", "vertices", "liveness", "suggestions"}
    assert data["fullest_tiles"]["tiles"][0]["tile"] == int(np.argmax(tiny_report.memory.including_gaps))
    assert data["liveness"]["model"]["peak_step"] == tiny_report.liveness.peak_step


def test_text_names_the_worst_tile_and_the_peak(capsys, tiny_dir, tiny_report):
    assert main(["insights", str(tiny_dir)]) == 0
    out = capsys.readouterr().out
    worst = int(np.argmax(tiny_report.memory.including_gaps))
    assert "Out of memory" in out
    assert f"Worst tile: {worst} on IPU" in out
    assert f"Liveness peak: step {tiny_report.liveness.peak_step:,}," in out
    assert f"Tile {worst} " in out
    assert f"peak at step {tiny_report.liveness.peak_step:,} of" in out
    assert "Suggestions" in out
    assert "the tallest column holds" in out
    always = tiny_report.liveness.always_live_bytes - int(np.sum(tiny_report.liveness.always_live_sizes))
    words = " ".join(out.split())
    assert f"The other {format_bytes(always)} of the" in words and "under no variable name" in words


def test_without_a_profile_the_archive_still_gives_capacity(capsys, no_profile_dir):
    data = run_json(capsys, str(no_profile_dir))
    assert data["capacity"]["available"] and data["capacity"]["source"] == "archive"
    assert data["fullest_tiles"]["tiles"]
    assert not data["liveness"]["available"]
    assert "profile.pop" in data["liveness"]["reason"]
    assert not data["vertices"]["state"]["available"]
    assert any(item["needs"] and "profile.pop" in item["needs"] for item in data["suggestions"]["findings"])
    assert all(tile["ipu"] is None for tile in data["fullest_tiles"]["tiles"])  # archive.a does not say
    assert data["capacity"]["per_ipu"] == [] and "IPU unknown" in data["capacity"]["per_ipu_reason"]
    assert main(["insights", str(no_profile_dir)]) == 0
    out = capsys.readouterr().out
    assert "profile.pop" in out
    assert "(IPU unknown)" in out and "IPU 0" not in out


def test_an_empty_report_says_what_each_section_needs(capsys, empty_bundle):
    data = run_json(capsys, str(empty_bundle))
    for key in ("capacity", "fullest_tiles", "histogram", "liveness"):
        assert not data[key]["available"]
        assert "profile.pop" in data[key]["reason"]
    assert main(["insights", str(empty_bundle)]) == 0
    assert "profile.pop" in capsys.readouterr().out


# The screen ------------------------------------------------------------------------


async def wait_for_insights(pilot) -> InsightsScreen:
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.nav.data is not None and screen.query("#heading-suggestions"))
    await pilot.pause()
    return screen


async def open_insights(pilot) -> InsightsScreen:
    await open_screen(pilot, "i", InsightsScreen)
    return await wait_for_insights(pilot)


def screen_text(screen: InsightsScreen, selector: str = "Static") -> str:
    from rich.console import Console

    console = Console(width=78, record=True, file=open(os.devnull, "w"))
    for widget in screen.query(selector):
        console.print(widget.content)
    return console.export_text()


@pytest.mark.anyio
async def test_screen_names_the_worst_tile_and_the_peak(make_app, tiny_report):
    worst = int(np.argmax(tiny_report.memory.including_gaps))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_insights(pilot)
        text = screen_text(screen)
        assert "Out of memory" in text
        assert f"Worst tile: {worst} on IPU" in text
        assert f"Liveness peak: step {tiny_report.liveness.peak_step:,}," in text
        assert f"Tile {worst} " in text
        assert f"peak at step {tiny_report.liveness.peak_step:,} of" in text
        table = screen.export_table()
        first = dict(zip(table.columns, list(table.rows)[0]))
        assert first["tile"] == worst
        name, size = max(zip(tiny_report.memory.categories, tiny_report.memory.by_category[worst]), key=lambda c: c[1])
        assert (first["largest_category"], first["largest_category_bytes"]) == (name, int(size))
        assert "Pipeline splits" in text


@pytest.mark.anyio
async def test_sections_units_and_reload(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_insights(pilot)
        scroll = screen.query_one("#insights")
        await pilot.press("n", "n")
        await pilot.pause()
        assert screen.nav.section == 2
        assert scroll.scroll_y == screen.query_one("#heading-histogram").virtual_region_with_margin.y
        await pilot.press("N", "N", "N")
        assert screen.nav.section == len(SECTIONS)  # the pipeline splits, after the sections the command prints
        assert scroll.scroll_target_y > screen.query_one("#heading-suggestions").virtual_region_with_margin.y
        await pilot.press("u")
        assert " kB" in screen_text(screen) and "KiB" not in screen_text(screen)
        screen.report_changed()
        await wait_for_insights(pilot)
        assert screen.query("#heading-suggestions")


@pytest.mark.anyio
async def test_screen_without_a_profile_says_so_and_shows_the_rest(make_app, no_profile_dir):
    async with make_app(no_profile_dir).run_test(size=(80, 24)) as pilot:
        screen = await open_insights(pilot)
        text = screen_text(screen)
        assert "profile.pop" in text
        assert "archive.a" in text  # capacity comes from the archive
        assert "IPU unknown" in text and "IPU 0" not in text
        assert [row[1] for row in screen.export_table().rows] == [None] * model.FULLEST
        await wait_for(pilot, lambda: screen.nav.split is not None)
        split = " ".join(screen_text(screen, "#split-body").split())
        assert split == pilot.app.report.missing("operations")  # one sentence, as from pvtui split
        assert screen.check_action("split_ipus", (1,)) is None  # nothing to split: + and - are dimmed


@pytest.mark.anyio
async def test_screen_of_an_empty_report(make_app, empty_bundle):
    async with make_app(empty_bundle).run_test(size=(80, 24)) as pilot:
        screen = await open_insights(pilot)
        assert "profile.pop" in screen_text(screen)
        assert list(screen.export_table().rows) == []
        await pilot.press("n", "u")  # harmless


# Snapshots -------------------------------------------------------------------------


async def _press_i(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("i")
    await wait_for_insights(pilot)


async def _press_i_liveness(pilot):
    await _press_i(pilot)
    await pilot.press(*["n"] * 4)
    await pilot.pause()


def test_snapshot_insights_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_press_i)


def test_snapshot_insights_liveness_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_press_i_liveness)


def test_a_saving_capped_by_a_neighbouring_step_names_that_step(tiny_report, tiny_insights):
    from pvtui.render.insights import suggestions_renderables

    series = np.asarray(tiny_report.liveness.not_always_live, dtype=np.int64)
    peak = tiny_report.liveness.peak_step
    for item in (i for i in tiny_insights["suggestions"]["items"] if i["kind"] == "shorter_life"):
        alone = item["at_peak_step_only"]
        other = alone["capped_by_step"]
        if other is not None:
            assert other != peak and series[peak] - alone["saving_bytes"] == series[other]
        assert ("still at step" in item["assumption"]) or ("to step" in item["assumption"])
    capped = {"kind": "shorter_life", "text": "Shorten the life of x", "saving_bytes": 100, "needs": None,
              "assumption": "…", "at_peak_step_only": {"step": 1173, "saving_bytes": 0, "capped_by_step": 1174}}
    (table,) = suggestions_renderables({"items": [capped], "findings": []}, str)
    text = "".join(str(cell) for row in table.columns for cell in row._cells)
    assert "it saves nothing: step 1,174 is just as high" in text and "it saves 0" not in text


def test_cli_figures_have_thousands_separators(capsys):
    from rich.console import Console

    from pvtui.render.facts import fact_rows
    from pvtui.render.tables import facts_table, render_liveness

    render_liveness({"steps": 2483, "always_live_bytes": 1, "peak_step": 1173, "peak_step_name": "p",
                     "peak_not_always_live_bytes": 2, "peak_total_bytes": 3, "per_ipu": False, "per_tile": False,
                     "peak_variables": []})
    out = capsys.readouterr().out
    assert "2,483" in out and "1,173" in out and "2483" not in out
    console = Console(width=200, record=True)
    console.print(facts_table("Programs", [("Programs", 2359)]))
    assert "2,359" in console.export_text()
    memory = {"peak_step": 1173, "peak_not_always_live_bytes": 5, "peak_step_name": "p"}
    data = {"target": {"clock_hz": None, "total_memory": None, "num_ipus": None, "tiles_per_ipu": None,
                       "num_tiles": None, "num_replicas": None, "bytes_per_tile": None, "bytes_per_ipu": None,
                       "type": None, "architecture": None},
            "memory": dict.fromkeys(("total_including_gaps", "total_excluding_gaps", "max_tile", "max_tile_bytes",
                                     "tiles_over_limit", "always_live_bytes")) | memory,
            "programs": {"count": None, "compute_sets": None}, "execution": None, "instrumentation": None,
            "poplar_version": None, "debug_contexts": None}
    facts = dict(fact_rows(data, str)[1][1])  # the Memory section
    assert facts["Peak not-always-live"].startswith("5 at step 1,173 ")
