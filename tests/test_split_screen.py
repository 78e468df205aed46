"""Pipeline splits on the Insights screen: the split of the open report over N IPUs, the keys
that change N and their bounds, the palette, and a snapshot of the section at 80x24."""

from __future__ import annotations

import os

import pytest
from conftest import open_screen, wait_for, wait_until_loaded

from pvtui.app import ScreenActions
from pvtui.model.splits import DEFAULT_LAYER_PATTERN, split_data
from pvtui.screens.insights import InsightsScreen
from pvtui.units import format_bytes


async def wait_for_split(pilot, ipus: int) -> InsightsScreen:
    """The Insights screen once its sections and the split over IPUS IPUs are shown."""
    screen = pilot.app.screen
    await wait_for(pilot, lambda: screen.nav.data is not None and screen.nav.split is not None
                   and screen.nav.split.get("ipus") == ipus)
    await pilot.pause()
    assert screen.query("#split-body")
    return screen


async def open_split(pilot) -> InsightsScreen:
    await open_screen(pilot, "i", InsightsScreen)
    return await wait_for_split(pilot, 2)


def split_lines(screen: InsightsScreen) -> list[str]:
    """The split section as the screen renders it, 78 columns wide."""
    from rich.console import Console

    console = Console(width=78, record=True, file=open(os.devnull, "w"))
    console.print(screen.query_one("#split-body").content)
    return [line.rstrip() for line in console.export_text().splitlines()]


def stage_rows(lines: list[str]) -> list[list[str]]:
    """The cells of the stages table whose first cell is an IPU number, split on runs of two spaces."""
    start = next(i for i, line in enumerate(lines) if line.startswith("Stages on "))
    rows = []
    for line in lines[start + 2:]:
        cells = [cell.strip() for cell in line.split("  ") if cell.strip()]
        if not cells or line.startswith("Split after"):
            break
        if cells[0].isdigit():
            rows.append(cells)
    return rows


@pytest.mark.anyio
async def test_plus_splits_the_report_over_three_ipus(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_split(pilot)
        assert "Pipeline splits" in str(screen.query_one("#heading-splits").content)
        assert split_lines(screen)[0].startswith("Stages on 2 IPUs")
        await pilot.press("plus")
        screen = await wait_for_split(pilot, 3)
        expected = split_data(tiny_report, 3, DEFAULT_LAYER_PATTERN)
        assert screen.nav.split == expected
        lines = split_lines(screen)
        assert lines[0] == f"Stages on 3 IPUs (tile memory {format_bytes(expected['bytes_per_tile'])})"
        rows = stage_rows(lines)
        assert len(rows) == 3
        for cells, stage in zip(rows, expected["stages"]):
            worst = stage["estimated_worst_tile_bytes"]
            assert cells[0] == str(stage["ipu"])
            assert cells[-4:] == [format_bytes(stage["memory"]), format_bytes(worst),
                                  f"{100 * worst / expected['bytes_per_tile']:.0f}%",
                                  {True: "yes", False: "no"}[stage["fits"]]]
        assert f"Split after: {', '.join(expected['split_after'])}" in lines
        text = "\n".join(lines)
        for layer in expected["layers"]:
            assert format_bytes(layer["memory"]) in text
        assert "pvtui split PATH --ipus N --layer-pattern REGEX takes another" in " ".join(text.split())
        assert DEFAULT_LAYER_PATTERN in text and "(the default)" in text


@pytest.mark.anyio
async def test_the_ipu_count_stays_within_one_and_the_layers(make_app, tiny_report):
    layers = len(split_data(tiny_report, 1)["layers"])
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_split(pilot)
        await pilot.press("minus")
        screen = await wait_for_split(pilot, 1)
        assert screen.check_action("split_ipus", (-1,)) is None  # shown dimmed
        await pilot.press("minus")
        assert screen.nav.ipus == 1
        await pilot.press(*["plus"] * (layers + 3))
        screen = await wait_for_split(pilot, min(layers, 16))
        assert screen.nav.ipus == min(layers, 16) and len(screen.nav.split["stages"]) == screen.nav.ipus
        assert screen.check_action("split_ipus", (1,)) is None
        await pilot.press("u")  # other units: the section is drawn again in them
        assert " kB" in "\n".join(split_lines(screen))


@pytest.mark.anyio
async def test_the_palette_offers_more_and_fewer_ipus(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_split(pilot)
        names = {str(hit.display) async for hit in ScreenActions(screen).discover()}
        assert {"More IPUs", "Fewer IPUs"} <= names
        await pilot.press("minus")
        screen = await wait_for_split(pilot, 1)
        names = {str(hit.display) async for hit in ScreenActions(screen).discover()}
        assert "More IPUs" in names and "Fewer IPUs" not in names


async def _split_section(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("i")
    await wait_for_split(pilot, 2)
    await pilot.press("plus")  # shows the splits, the last section
    await wait_for_split(pilot, 3)
    await pilot.pause()


def test_snapshot_split_section_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_split_section)


@pytest.mark.anyio
async def test_plus_and_minus_bring_the_splits_into_view(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_split(pilot)
        scroll = screen.query_one("#insights")
        assert scroll.scroll_y == 0
        await pilot.press("plus")
        screen = await wait_for_split(pilot, 3)
        await pilot.pause()
        heading = screen.query_one("#heading-splits")
        assert scroll.scroll_target_y > 0 and scroll.scroll_target_y == min(
            heading.virtual_region_with_margin.y, scroll.max_scroll_y)
        await pilot.press("n")  # sections go on from the splits: wraps to the first
        await pilot.pause()
        assert screen.nav.section == 0
