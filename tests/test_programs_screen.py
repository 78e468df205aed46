"""The Programs screen: search helpers, details, the lazy tree, and the search flow."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import open_screen, wait_until_loaded

from pvtui.model import schema as s
from pvtui.model.bundle import BundleWriter
from pvtui.model.program_search import NameSearch, chunk_around, step_match
from pvtui.model.report import Report
from pvtui.model.strings import StringTable
from pvtui.screens.base import Unavailable
from pvtui.screens.programs import ProgramsScreen, program_details
from pvtui.units import format_bytes
from pvtui.widgets.program_tree import CHUNK, MoreChildren, ProgramItem

pytestmark = pytest.mark.anyio

WIDE = 10_000  # children of the wide program in the hand-built bundle


def write_programs_bundle(path, debug: bool = True) -> None:
    """Program 0: a Sequence with WIDE children (1..WIDE); program 1 runs compute set 0.

    Program WIDE + 1 is a second root, a Repeat holding one leaf of an unknown type.
    """
    types = ["Sequence", "OnTileExecute", "DoExchange", "Repeat", "MysteryType"]
    n = WIDE + 3
    type_ = np.ones(n, np.int16)
    type_[0], type_[2], type_[WIDE + 1], type_[WIDE + 2] = 0, 2, 3, 4
    names = ["main"] + [f"layer{i // 100}/op{i}" for i in range(WIDE)] + ["loop", "odd/leaf"]
    parent = np.zeros(n, np.int32)
    parent[0], parent[WIDE + 1], parent[WIDE + 2] = -1, -1, WIDE + 1
    counts = np.zeros(n, np.int64)
    counts[0], counts[WIDE + 1] = WIDE, 1
    offsets = np.concatenate([[0], np.cumsum(counts)])
    children = np.concatenate([np.arange(1, WIDE + 1), [WIDE + 2]]).astype(np.int32)
    compute_set = np.full(n, -1, np.int32)
    compute_set[1] = 0
    context = np.full(n, -1, np.int64)
    context[1] = 70
    with BundleWriter(path) as w:
        w.meta.update(parts=["programs"] + (["debug"] if debug else []), programs={"types": types}, target={})
        w.array(s.PROGRAM_TYPE, type_)
        w.strings(s.PROGRAM_NAME, names)
        w.array(s.PROGRAM_PARENT, parent)
        w.array(s.PROGRAM_CHILD_OFFSETS, offsets)
        w.array(s.PROGRAM_CHILDREN, children)
        w.array(s.PROGRAM_ROOTS, np.array([0, WIDE + 1], np.int32))
        w.array(s.PROGRAM_COMPUTE_SET, compute_set)
        w.array(s.PROGRAM_CODE_BYTES, np.full(n, 2048, np.int64))
        w.array(s.PROGRAM_DEBUG_CONTEXT, context)
        w.strings(s.COMPUTE_SET_NAME, ["layer0/op0/cs"])
        w.array(s.COMPUTE_SET_VERTEX_OFFSETS, np.array([0, 2], np.int64))
        w.array(s.COMPUTE_SET_VERTEX_TYPE, np.array([0, 1], np.int32))
        w.array(s.COMPUTE_SET_VERTEX_COUNT, np.array([10, 1216], np.int64))
        w.strings(s.VERTEX_TYPE_NAME, ["popops::Fill", "poplin::ConvPartial1x1Out"])
        w.array(s.VERTEX_TYPE_STATE_BYTES, np.array([16, 48], np.int64))
        if debug:
            w.meta["debug"] = {"layers": ["poplar", "popart"], "categories": ["op"]}
            w.array(s.DEBUG_ID, np.array([7, 70], np.int64))
            w.array(s.DEBUG_PARENT, np.array([-1, 7], np.int64))
            w.array(s.DEBUG_LAYER, np.array([0, 1], np.int16))
            w.array(s.DEBUG_CATEGORY, np.array([-1, 0], np.int16))
            w.strings(s.DEBUG_NAME, ["root", "MatMul"])
            w.strings(s.DEBUG_FIELDS, ["{}", json.dumps({"opid": "MatMul:1", "inputs": ["a", "b"]})])
        w.commit()


@pytest.fixture(scope="module")
def programs_bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("programs") / "wide"
    write_programs_bundle(path)
    return path


# Pure helpers -------------------------------------------------------------------------


def test_name_search_finds_every_containing_name_case_insensitively():
    blob, offsets = StringTable.encode(["Alpha", "beta", "", "ALPHABET", "gamma/alp", "al", "pha"])
    search = NameSearch(StringTable(blob, offsets))
    assert search.matches("alp").tolist() == [0, 3, 4]
    assert search.matches("PHA").tolist() == [0, 3, 6]
    assert search.matches("zzz").tolist() == []
    assert search.matches("").tolist() == []


def test_name_search_ignores_hits_across_names():
    blob, offsets = StringTable.encode(["xa", "ab", "aab"])
    # "xa"+"ab" reads "xaab": "aa" only crosses names there; the real hit is the third name
    assert NameSearch(StringTable(blob, offsets)).matches("aa").tolist() == [2]


def test_name_search_agrees_with_string_table_find():
    names = [f"layer{i % 7}/op{i}/{'MatMul' if i % 3 else 'add'}" for i in range(500)]
    table = StringTable(*StringTable.encode(names))
    found = NameSearch(table).matches("matmul")
    assert int(found[0]) == table.find("matmul")
    assert found.tolist() == [i for i, name in enumerate(names) if "matmul" in name.lower()]


def test_step_match_wraps_both_ways():
    matches = np.array([3, 8, 20])
    assert step_match(matches, -1, True) == 3
    assert step_match(matches, 3, True) == 8
    assert step_match(matches, 20, True) == 3
    assert step_match(matches, 8, False) == 3
    assert step_match(matches, 3, False) == 20
    assert step_match(matches, 10, False) == 8
    assert step_match(np.array([], dtype=np.int64), 0, True) == -1


def test_chunk_around_aligns_to_the_range_start():
    assert chunk_around(0, 0, 10_000, 500) == (0, 500)
    assert chunk_around(9_500, 500, 10_000, 500) == (9_500, 10_000)
    assert chunk_around(9_999, 500, 10_000, 500) == (9_500, 10_000)
    assert chunk_around(620, 600, 700, 500) == (600, 700)


def test_details_show_compute_set_vertices_and_debug_context(programs_bundle):
    report = Report(programs_bundle)
    text = program_details(report, 1, lambda v: format_bytes(v, "bytes")).plain
    assert "OnTileExecute  compute" in text
    assert "layer0/op0" in text
    assert "Parent    0  Sequence main" in text
    assert "set 0  layer0/op0/cs" in text
    # largest instance count first, state = instances x bytes per vertex
    assert text.index("poplin::ConvPartial1x1Out") < text.index("popops::Fill")
    assert "1,216" in text and "58,368 B" in text
    assert "2,048 B" in text
    assert "context 70  popart · op" in text
    assert "MatMul" in text and '"opid": "MatMul:1"' in text


def test_details_say_plainly_when_debug_is_absent(programs_bundle, tmp_path):
    report = Report(programs_bundle)
    assert "no debug context linked to this program" in program_details(report, 2, str).plain
    write_programs_bundle(tmp_path / "nodebug", debug=False)
    plain = program_details(Report(tmp_path / "nodebug"), 1, str).plain
    assert "no debug data: it needs debug.cbor" in plain


def test_unknown_types_are_shown_in_the_other_phase(programs_bundle):
    plain = program_details(Report(programs_bundle), WIDE + 2, str).plain
    assert "MysteryType  other" in plain


# The tree -----------------------------------------------------------------------------


async def _programs_screen(pilot) -> ProgramsScreen:
    return await open_screen(pilot, "p", ProgramsScreen)


def _programs_of(node) -> list[int]:
    return [c.data.program for c in node.children if isinstance(c.data, ProgramItem)]


async def test_a_wide_node_expands_one_chunk_at_a_time(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        tree = screen.tree
        main, loop = tree.root.children
        assert main.is_expanded and not loop.is_expanded  # the first root opens
        assert len(loop.children) == 0  # created only when expanded
        assert len(main.children) == CHUNK + 1
        more = main.children[-1]
        assert more.data == MoreChildren(0, CHUNK, WIDE)
        tree.move_cursor(more)
        await pilot.press("enter")
        await pilot.pause()
        assert _programs_of(main) == list(range(1, 2 * CHUNK + 1))
        assert main.children[-1].data == MoreChildren(0, 2 * CHUNK, WIDE)


async def test_jumping_deep_loads_only_the_chunk_that_holds_the_target(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        assert screen.jump_to(9_600)
        await pilot.pause()
        main = screen.tree.root.children[0]
        kinds = [type(c.data).__name__ for c in main.children]
        assert kinds.count("ProgramItem") == 2 * CHUNK
        assert main.children[CHUNK].data == MoreChildren(0, CHUNK, 9_500)
        assert screen.selected_program() == 9_600


async def test_expand_children_is_capped_and_collapse_folds_the_subtree(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        loop = screen.tree.root.children[1]
        screen.tree.move_cursor(loop)
        await pilot.press("e")
        await pilot.pause()
        assert loop.is_expanded and _programs_of(loop) == [WIDE + 2]
        await pilot.press("c")
        await pilot.pause()
        assert not loop.is_expanded


async def test_search_flow_on_the_tiny_report(make_app, tiny_report):
    programs = tiny_report.programs
    target = _deep_named_leaf(programs)
    needle = programs.names[target]
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        await pilot.press("slash")
        await pilot.press(*needle)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        assert screen.selected_program() == target
        node = screen.tree.cursor_node
        while node.parent is not None and node.parent.data is not None:
            assert node.parent.is_expanded
            node = node.parent
        assert "match 1 of" in str(screen.query_one("#search-status").render())
        await pilot.press("escape")
        assert screen.tree.has_focus


def _deep_named_leaf(programs) -> int:
    """The last program with a unique name, no children and the deepest path."""
    best, best_depth = -1, -1
    for program in range(len(programs) - 1, -1, -1):
        name = programs.names[program]
        if not name or programs.num_children(program):
            continue
        depth = len(programs.path_to(program))
        if depth > best_depth and programs.names.find(name) == program:
            best, best_depth = program, depth
    assert best >= 0
    return best


# Snapshots ----------------------------------------------------------------------------


async def _press_p(pilot) -> None:
    await wait_until_loaded(pilot)
    await pilot.press("p")
    await pilot.pause()


def _search_for_deep_leaf(tiny_report):
    needle = tiny_report.programs.names[_deep_named_leaf(tiny_report.programs)]

    async def run_before(pilot) -> None:
        await _press_p(pilot)
        await pilot.press("slash", *needle, "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_programs(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=_press_p)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_programs_after_search(snap_compare, make_app, tiny_report, size):
    assert snap_compare(make_app(), terminal_size=size, run_before=_search_for_deep_leaf(tiny_report))


async def test_a_reload_keeps_the_selected_program(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        screen.jump_to(9_600)
        await pilot.pause()
        old_tree = screen.tree
        screen.report_changed()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.tree is not old_tree
        assert screen.selected_program() == 9_600


async def test_without_programs_the_screen_says_why(make_app, tmp_path):
    with BundleWriter(tmp_path / "empty") as w:
        w.meta.update(parts=[], target={})
        w.commit()
    async with make_app(tmp_path / "empty").run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        assert screen.tree is None
        assert "profile.pop" in str(screen.query_one(Unavailable).render())
        await pilot.press("slash", "e", "c")  # nothing to act on: no error


async def test_search_results_that_outlive_a_reload_are_ignored(make_app, tiny_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        old = screen.report
        pilot.app.report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        screen.report_changed()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen._found(old, "x", np.arange(3))  # the old report's matches arrive late
        assert len(screen.matches) == 0 and screen.tree.highlight_text == ""
        pilot.app.report.programs = None
        screen.report_changed()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.tree is None
        screen._found(screen.report, "x", np.arange(3))  # no tree to show them in: no error
        assert len(screen.matches) == 0
