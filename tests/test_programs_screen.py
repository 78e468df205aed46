"""The Programs screen: search helpers, details, the tree's rows, and the search flow."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from conftest import open_screen, wait_until_loaded

from pvtui.model import schema as s
from pvtui.model.bundle import BundleWriter
from pvtui.model.program_search import NameSearch, display_order, in_display_order, step_match
from pvtui.model.report import Report
from pvtui.model.strings import StringTable
from pvtui.screens.base import UnavailableNotice
from pvtui.render.programs import program_details
from pvtui.screens.programs import ProgramsScreen
from pvtui.units import format_bytes
from pvtui.model.navigators.programs import TreeRows
from pvtui.widgets.program_tree import ProgramTree

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


@given(st.lists(st.text(alphabet="aAbB/é", max_size=6), max_size=12), st.text(alphabet="aAbB/é", max_size=4))
def test_name_search_finds_exactly_the_names_that_contain_the_needle(names, needle):
    """Array passes over the blob agree with asking each name (ASCII letters compared in either case)."""
    table = StringTable(*StringTable.encode(names))
    wanted = [i for i, name in enumerate(names) if needle and needle.encode().lower() in name.encode().lower()]
    assert NameSearch(table).matches(needle).tolist() == wanted


def test_step_match_wraps_both_ways():
    matches = np.array([3, 8, 20])
    assert step_match(matches, -1, True) == 3
    assert step_match(matches, 3, True) == 8
    assert step_match(matches, 20, True) == 3
    assert step_match(matches, 8, False) == 3
    assert step_match(matches, 3, False) == 20
    assert step_match(matches, 10, False) == 8
    assert step_match(np.array([], dtype=np.int64), 0, True) == -1


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


@pytest.mark.parametrize("width", [40, 62, 78])
def test_vertex_types_are_whole_after_their_figures_at_any_width(programs_bundle, width):
    report = Report(programs_bundle)
    lines = program_details(report, 1, lambda v: format_bytes(v, "bytes"), width=width).plain.splitlines()
    assert all(len(line) <= width for line in lines) and not any(line.endswith("…") for line in lines)
    heading = next(i for i, line in enumerate(lines) if line.split() == ["instances", "state", "vertex", "type"])
    names, rows = [], lines[heading + 1:]
    for line in rows:
        if not line.startswith(" " * 26):  # a row: its figures, then its name's first line
            if not line[:2] == "  " or not line.split()[0].replace(",", "").isdigit():
                break
            names.append(line[26:])
        else:
            names[-1] += line.strip()
    programs = report.programs
    vertices = sorted(programs.compute_set_vertices(int(programs.compute_set[1])), key=lambda v: -v[1])
    assert names == [programs.vertex_type_names[v] for v, _ in vertices]


def test_debug_fields_fold_onto_more_lines_rather_than_end_in_an_ellipsis(programs_bundle):
    text = program_details(Report(programs_bundle), 1, str, width=20).plain
    fields = text[text.index("{"):]
    assert all(len(line) <= 20 for line in fields.splitlines()) and "…" not in fields
    assert '"opid":"MatMul:1"' in fields.replace("\n", "").replace(" ", "")  # every character, on more lines


def test_details_say_plainly_when_debug_is_absent(programs_bundle, tmp_path):
    report = Report(programs_bundle)
    assert "no debug context linked to this program" in program_details(report, 2, str).plain
    write_programs_bundle(tmp_path / "nodebug", debug=False)
    plain = program_details(Report(tmp_path / "nodebug"), 1, str).plain
    assert "no debug data: it needs debug.cbor" in plain


def test_unknown_types_are_shown_in_the_other_phase(programs_bundle):
    plain = program_details(Report(programs_bundle), WIDE + 2, str).plain
    assert "MysteryType  other" in plain


# The tree's rows ---------------------------------------------------------------------


def _rows(children: dict[int, list[int]], roots: list[int], n: int) -> TreeRows:
    counts = [len(children.get(p, [])) for p in range(n)]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    ids = np.array([c for p in range(n) for c in children.get(p, [])], np.int32)
    return TreeRows(offsets, ids, np.array(roots))


# roots 0 and 7; 0 holds 1 and 2, 1 holds 3 and 4, 2 holds 5, 3 holds 6, 7 holds 8
SMALL = {0: [1, 2], 1: [3, 4], 2: [5], 3: [6], 7: [8]}


def _shown(rows: TreeRows) -> list[tuple[int, str]]:
    """Each row's program and guides; parents must point at the row of each program's parent."""
    for row, parent in enumerate(rows.parent.tolist()):
        if parent >= 0:
            assert int(rows.program[row]) in SMALL[int(rows.program[parent])]
    return [(int(p), rows.guides(row)) for row, p in enumerate(rows.program.tolist())]


def test_rows_expand_after_their_node_and_collapse_as_one_slice():
    rows = _rows(SMALL, [0, 7], 9)
    assert _shown(rows) == [(0, ""), (7, "")]
    assert rows.expand(0) == 2
    assert rows.expand(1) == 2
    assert rows.expand(2) == 1  # the row of program 3
    assert _shown(rows) == [
        (0, ""), (1, "├─ "), (3, "│  ├─ "), (6, "│  │  └─ "), (4, "│  └─ "), (2, "└─ "), (7, ""),
    ]
    assert rows.expand(0) == 0 and rows.expand(3) == 0  # open already; a leaf
    assert rows.is_open(1) and not rows.is_open(3) and rows.end_of(1) == 5
    assert rows.collapse(1) == -3
    assert _shown(rows) == [(0, ""), (1, "├─ "), (2, "└─ "), (7, "")]


def test_reexpanding_reopens_what_was_open_below_unless_collapsed_with_forget():
    rows = _rows(SMALL, [0, 7], 9)
    assert rows.reveal([0, 1, 3, 6]) == 3
    assert rows.reveal([7, 8]) == 7
    rows.collapse(0)
    assert _shown(rows) == [(0, ""), (7, ""), (8, "└─ ")]  # the parent of 8 follows the shift
    rows.expand(0)
    assert [p for p, _ in _shown(rows)] == [0, 1, 3, 6, 4, 2, 7, 8]
    rows.collapse(0, forget=True)
    rows.expand(0)
    assert [p for p, _ in _shown(rows)] == [0, 1, 2, 7, 8]
    assert rows.expanded == {0, 7}


def test_the_cursor_stays_on_its_program_or_moves_to_the_collapsed_node():
    rows = _rows(SMALL, [0, 7], 9)
    rows.cursor = 1  # program 7
    rows.reveal([0, 1, 3, 6])
    assert int(rows.program[rows.cursor]) == 7
    rows.cursor = 3  # program 6, inside 1's subtree
    rows.collapse(1)
    assert rows.cursor == 1
    rows.cursor = 0
    rows.expand(1)
    assert rows.cursor == 0  # rows added after the cursor do not move it


def test_reveal_of_a_path_not_in_the_tree_finds_nothing():
    rows = _rows(SMALL, [0, 7], 9)
    assert rows.reveal([1, 3]) is None  # 1 is no root
    assert rows.reveal([0, 5]) is None  # 5 is no child of 0
    assert rows.reveal([]) is None


def test_siblings_skip_open_subtrees():
    rows = _rows(SMALL, [0, 7], 9)
    rows.reveal([0, 1, 3, 6])
    assert rows.next_sibling(1) == 5 and rows.previous_sibling(5) == 1
    assert rows.next_sibling(5) is None and rows.previous_sibling(1) is None
    assert rows.next_sibling(0) == 6  # the second root


def test_expand_children_stops_before_the_cap_and_says_how_far_it_got():
    rows = _rows({0: [1, 2, 3], 1: [4, 5], 2: [6], 3: [7, 8, 9]}, [0], 10)
    assert rows.expand_children(0, cap=3) == (2, 3, 6)  # 1 and 2 (3 rows), not 3 (3 more)
    assert [p for p, _ in _shown_any(rows)] == [0, 1, 4, 5, 2, 6, 3]
    assert rows.expand_children(0, cap=100) == (3, 3, 3)


def _shown_any(rows: TreeRows) -> list[tuple[int, str]]:
    return [(int(p), rows.guides(row)) for row, p in enumerate(rows.program.tolist())]


def test_a_cycle_in_the_child_lists_is_not_reopened_forever():
    rows = _rows({0: [1], 1: [0]}, [0], 2)
    rows.expand(0)
    rows.expand(1)  # shows 0 again, under 1
    rows.collapse(0)
    assert rows.expand(0) == 2  # 1 reopened, the 0 below it not
    assert [p for p, _ in _shown_any(rows)] == [0, 1, 0]


# The tree -----------------------------------------------------------------------------


async def _programs_screen(pilot) -> ProgramsScreen:
    return await open_screen(pilot, "p", ProgramsScreen)


def _visible(tree: ProgramTree, row: int) -> bool:
    return int(tree.scroll_y) <= row < int(tree.scroll_y) + tree.scrollable_content_region.height


async def test_a_wide_node_shows_all_its_children(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        tree = screen.tree
        assert tree.rows.program.tolist() == [0, *range(1, WIDE + 1), WIDE + 1]  # the first root opens
        assert screen.selected_program() == 0
        await pilot.press("end")
        assert screen.selected_program() == WIDE + 1 and not tree.rows.is_open(tree.cursor_row)
        await pilot.press("up")
        assert screen.selected_program() == WIDE and tree.rows.guides(tree.cursor_row) == "└─ "
        assert _visible(tree, tree.cursor_row)
        await pilot.press("left")  # a leaf: to its parent
        assert screen.selected_program() == 0 and _visible(tree, 0)
        await pilot.press("left")  # open: closes
        assert len(tree.rows) == 2 and screen.selected_program() == 0
        await pilot.press("space")
        assert len(tree.rows) == WIDE + 2
        await pilot.press("right")  # open: into the first child
        assert screen.selected_program() == 1
        assert "layer0/op0" in str(screen.query_one("#details").render())


async def test_jumping_deep_selects_and_shows_the_target(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        assert screen.jump_to(WIDE + 2)  # in the closed second root
        await pilot.pause()
        tree = screen.tree
        assert screen.selected_program() == WIDE + 2 and _visible(tree, tree.cursor_row)
        assert screen.jump_to(9_600)
        await pilot.pause()
        assert screen.selected_program() == 9_600 and _visible(tree, tree.cursor_row)


async def test_expand_children_and_collapse_fold_the_subtree(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        tree = screen.tree
        await pilot.press("left", "down")  # close main, onto the loop
        assert screen.selected_program() == WIDE + 1
        await pilot.press("e")
        assert tree.rows.program.tolist() == [0, WIDE + 1, WIDE + 2]
        await pilot.press("home", "e")  # main: its 10,000 leaves, none to expand further
        assert len(tree.rows) == WIDE + 3
        await pilot.press("c")
        assert tree.rows.program.tolist() == [0, WIDE + 1, WIDE + 2]


async def test_a_click_selects_the_row_and_one_on_its_arrow_toggles_it(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        tree = screen.tree
        await pilot.press("left")  # rows: main, loop
        await pilot.click(ProgramTree, offset=(10, 1))
        assert screen.selected_program() == WIDE + 1 and len(tree.rows) == 2
        await pilot.click(ProgramTree, offset=(0, 1))
        assert tree.rows.is_open(1) and len(tree.rows) == 3


async def test_a_toggle_draws_again_only_the_lines_from_its_row_down(make_app, programs_bundle):
    async with make_app(programs_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        tree = screen.tree
        await pilot.press("left", "down")  # rows: main, loop; onto the loop
        await pilot.pause()
        drawn = []
        render_line = tree.render_line
        tree.render_line = lambda y: drawn.append(y) or render_line(y)
        for rows in (3, 2):  # open the loop, then close it
            drawn.clear()
            await pilot.press("space")
            await pilot.pause()
            assert len(tree.rows) == rows
            assert drawn and min(drawn) == 1  # main's line, above, is kept as drawn
        assert "odd/leaf" not in "".join(s.text for s in render_line(2))


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
        tree = screen.tree
        assert screen.selected_program() == target and _visible(tree, tree.cursor_row)
        shown = [int(tree.rows.program[row]) for row in _ancestor_rows(tree.rows, tree.cursor_row)]
        assert shown == programs.path_to(target)[:-1]
        assert "match 1 of" in str(screen.query_one("#search-status").render())
        assert tree.highlight_text == needle
        await pilot.press("escape")
        assert tree.has_focus and tree.highlight_text == ""


def test_display_order_is_the_trees_preorder_along_first_parents():
    # 0 ─┬ 4 ── 2        program 3 is also a child of 4, but shown under its first parent 1
    #    └ 1 ─┬ 3
    #         └ 5        program 6 is reached from no root
    offsets = np.array([0, 2, 4, 4, 4, 6, 6, 6])
    children = np.array([4, 1, 3, 5, 2, 3])
    parent = np.array([-1, 0, 4, 1, 0, 1, -1])
    order = display_order(offsets, children, np.array([0]), parent)
    assert np.argsort(order).tolist() == [0, 4, 2, 1, 3, 5, 6]
    assert in_display_order(np.array([1, 2, 3, 6]), order).tolist() == [2, 1, 3, 6]
    matches = in_display_order(np.array([1, 2, 5]), order)
    assert step_match(matches, 2, True, order) == 1
    assert step_match(matches, 4, True, order) == 2  # not a match: the next one below it
    assert step_match(matches, 5, True, order) == 2  # wraps
    assert step_match(matches, 2, False, order) == 5


async def test_next_match_moves_down_the_screen(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        await pilot.press("slash", *"softmax", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        count = len(screen.nav.finder.matches)
        assert count > 2
        tree, rows = screen.tree, []
        for _ in range(count):
            rows.append(tree.cursor_row)
            await pilot.press("n")
        assert rows == sorted(rows) and len(set(rows)) == count
        assert tree.cursor_row == rows[0]  # wrapped to the first
        await pilot.press("N")
        assert tree.cursor_row == rows[-1]
        assert f"match {count} of {count}" in str(screen.query_one("#search-status").render())


def _ancestor_rows(rows: TreeRows, row: int) -> list[int]:
    """The rows above ROW, a root first; each one open."""
    above = []
    while (row := int(rows.parent[row])) >= 0:
        assert rows.is_open(row)
        above.append(row)
    return above[::-1]


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


async def test_without_programs_the_screen_says_why(make_app, empty_bundle):
    async with make_app(empty_bundle).run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        assert screen.tree is None
        assert "profile.pop" in str(screen.query_one(UnavailableNotice).render())
        await pilot.press("slash", "e", "c")  # nothing to act on: no error


async def test_search_results_that_outlive_a_reload_are_ignored(make_app, tiny_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _programs_screen(pilot)
        old = screen.report
        pilot.app.a.report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        screen.report_changed()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen._found(old, "x", np.arange(3))  # the old report's matches arrive late
        assert len(screen.nav.finder.matches) == 0 and screen.tree.highlight_text == ""
        pilot.app.report.programs = None
        screen.report_changed()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.tree is None
        screen._found(screen.report, "x", np.arange(3))  # no tree to show them in: no error
        assert len(screen.nav.finder.matches) == 0
