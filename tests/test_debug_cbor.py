"""debug.cbor: every layout, the layers of real reports, and damaged files."""

from __future__ import annotations

import contextlib
import json
import tempfile
from unittest import mock
from pathlib import Path

import cbor2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bad_inputs import debug_read, read_or_report_error
from pvtui.errors import Cancelled, ReportError
from pvtui.model.bundle import BundleWriter
from pvtui.model.report import Report
from pvtui.sources.base import CancelToken, IngestContext
from pvtui.sources import debug_cbor
from pvtui.sources.debug_cbor import read_debug


def real_contexts() -> list[dict]:
    """One context of each layer and category that Poplar and the frameworks write."""
    return [
        {"id": 1, "layer": "poplar_driver", "class": "Engine"},
        {"id": 2, "parentId": 1, "layer": "poplibs", "api": "matMul",
         "args": {"A": {"shape": [128, 768], "type": "half"}, "options": {"partialsType": "float"}},
         "outputs": {"output": {"shape": [128, 768]}}, "output": "t1"},
        {"id": 3, "parentId": 1, "layer": "popart", "category": "op", "instanceId": 7,
         "opid": "ai.onnx.MatMul:9", "inputs": ["x", "w"], "outputs": ["y"],
         "attributes": {"pipelineStage": "1"}, "graphId": "", "discard": False},
        {"id": 4, "parentId": 3, "layer": "popart", "category": "tensor", "tensorId": "y:0",
         "shape": [128, 768], "elementType": "FLOAT16", "type": "ActGrad"},
        {"id": 5, "layer": "popartbuilder", "category": "api", "api": "matmul",
         "inputs": ["x"], "outputs": ["y"], "attributes": {}},
        {"id": 6, "layer": "onnx", "category": "op", "input": ["x", "w"], "output": ["y"],
         "opName": "layer0/MatMul", "opType": "MatMul", "domain": "ai.onnx"},
        {"id": 7, "layer": "poptorch", "torch_schema": "aten::matmul(Tensor self, Tensor other)",
         "op_type": "matmul", "op_name": "model.layer0.matmul"},
        {"id": 8, "layer": "xla_op", "category": "op", "op_name": "dense/MatMul", "op_type": "Dot"},
        {"id": 9, "parentId": 8, "layer": "hloinstruction", "hlo_name": "dot.3", "hlo_id": 3,
         "opcode": "dot", "signature": "f16[128,768]", "debug_string": "%dot.3 = dot(%a, %b)",
         "operand_count": 2, "operands": [1, 2], "users": [4], "computation": "cluster_1",
         "computation_id": 1, "location": {"fileName": "model.py", "lineNumber": 42}},
    ]  # fmt: skip


NAMES = ["Engine", "matMul", "ai.onnx.MatMul:9", "y:0", "matmul", "layer0/MatMul",
         "model.layer0.matmul", "dense/MatMul", "dot.3"]  # fmt: skip


def ingest(path: Path, out: Path, ctx_options: dict | None = None) -> Report:
    with BundleWriter(out) as writer:
        read_debug(path, IngestContext(writer, **(ctx_options or {})))
        writer.commit()
    return Report(out)


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "debug.cbor"
    path.write_bytes(data)
    return path


def indefinite_array(items: list) -> bytes:
    return b"\x9f" + b"".join(cbor2.dumps(item) for item in items) + b"\xff"


def layouts(contexts: list[dict]) -> dict[str, bytes]:
    return {
        "contexts map": cbor2.dumps({"contexts": contexts}),
        "array": cbor2.dumps(contexts),
        "stream": b"".join(cbor2.dumps(context) for context in contexts),
        "indefinite array": indefinite_array(contexts),
        "indefinite map, indefinite array": b"\xbf" + cbor2.dumps("contexts")
        + indefinite_array(contexts) + b"\xff",
        "other keys around": b"\xa3" + cbor2.dumps("version")
        + cbor2.dumps({"major": 1, "x": [1, 2]}) + cbor2.dumps("contexts") + cbor2.dumps(contexts)
        + cbor2.dumps("strings") + cbor2.dumps(["a", b"b"]),
    }  # fmt: skip


@pytest.mark.parametrize("layout", list(layouts([])))
def test_every_layout_gives_the_same_columns(tmp_path: Path, layout: str) -> None:
    contexts = real_contexts()
    report = ingest(write(tmp_path, layouts(contexts)[layout]), tmp_path / "bundle")
    debug = report.debug
    assert debug is not None and report.notes == []
    assert debug.ids.tolist() == list(range(1, 10))
    assert debug.parent.tolist() == [-1, 1, 1, 3, -1, -1, -1, -1, 8]
    assert list(debug.names) == NAMES
    layers = [debug.layer_names[i] for i in debug.layer.tolist()]
    assert layers == [c["layer"] for c in contexts]
    categories = [debug.category_names[i] if i >= 0 else None for i in debug.category.tolist()]
    assert categories == [c.get("category") for c in contexts]
    assert [json.loads(text) for text in debug.fields] == contexts
    assert report.meta["debug"]["contexts"] == 9
    assert debug.index_of(8) == 7 and debug.index_of(99) == -1


def test_ids_are_sorted_and_rows_follow(tmp_path: Path) -> None:
    contexts = [
        {"id": i, "layer": "onnx", "opName": f"op{i}", "parentId": i + 100} for i in (5, 3, 9, 1)
    ]
    contexts.append({"layer": "onnx", "opName": "no id"})
    debug = ingest(write(tmp_path, cbor2.dumps({"contexts": contexts})), tmp_path / "b").debug
    assert debug.ids.tolist() == [1, 3, 5, 9, 10]
    assert list(debug.names) == ["op1", "op3", "op5", "op9", "no id"]
    assert debug.parent.tolist() == [101, 103, 105, 109, -1]
    assert json.loads(debug.fields[2])["opName"] == "op5"


@pytest.mark.parametrize(
    "link, parent",
    [({"parentId": 4}, 4), ({"parent_id": 4}, 4), ({"parent": 4}, 4), ({"parents": [4, 2]}, 4),
     ({"parentIds": [4]}, 4), ({"parents": []}, -1), ({"parentId": "4"}, -1),
     ({"parent": 2**70}, -1)],
)  # fmt: skip
def test_parent_spellings(tmp_path: Path, link: dict, parent: int) -> None:
    data = cbor2.dumps([{"id": 9, "layer": "poplibs", **link}])
    assert ingest(write(tmp_path, data), tmp_path / "b").debug.parent.tolist() == [parent]


def test_odd_values_become_json_text(tmp_path: Path) -> None:
    context = {"id": 1, "layer": 7, "category": ["x"], "blob": b"\x01\xff", 3: "int key",
               (1, 2): "tuple key", "tag": cbor2.CBORTag(4000, [1]), "u": cbor2.undefined,
               "huge": 10**5000, "name": {"nested": True}}  # fmt: skip
    debug = ingest(write(tmp_path, cbor2.dumps([context])), tmp_path / "b").debug
    fields = json.loads(debug.fields[0])
    assert fields["blob"] == "01ff"
    assert fields["3"] == "int key" and fields["[1,2]"] == "tuple key"
    assert fields["tag"] == {"tag": 4000, "value": [1]}
    assert fields["u"] == "undefined" and fields["huge"].startswith("0x")
    assert debug.layer_names == ["7"] and debug.category_names == ['["x"]']
    assert debug.names[0] == '{"nested":true}'


def test_bad_utf8_and_shared_references_are_kept_safe(tmp_path: Path) -> None:
    bad_text = b"\xa2" + cbor2.dumps("id") + b"\x01" + cbor2.dumps("layer") + b"\x63a\xffb"
    shared = b"\xd8\x1c\x81\xd8\x1d\x00"  # an array holding a reference to itself
    cycle = b"\xa2" + cbor2.dumps("id") + b"\x02" + cbor2.dumps("loop") + shared
    debug = ingest(write(tmp_path, b"\x82" + bad_text + cycle), tmp_path / "b").debug
    assert debug.layer_names == ["a\ufffdb", ""]
    assert json.loads(debug.fields[1])["loop"] == [{"tag": 29, "value": 0}]


def test_truncated_file_keeps_what_was_read(tmp_path: Path) -> None:
    data = cbor2.dumps({"contexts": real_contexts()})
    report = ingest(write(tmp_path, data[: len(data) - 30]), tmp_path / "b")
    assert len(report.debug) == 8
    [note] = report.notes
    assert note.startswith("[debug] ") and "kept the 8 contexts" in note and "file ends" in note


def test_missing_break_is_noted(tmp_path: Path) -> None:
    report = ingest(write(tmp_path, indefinite_array(real_contexts())[:-1]), tmp_path / "b")
    assert len(report.debug) == 9 and len(report.notes) == 1


def test_too_deep_context_is_skipped(tmp_path: Path) -> None:
    deep = b"\xa2" + cbor2.dumps("id") + b"\x05" + cbor2.dumps("x") + b"\x81" * 200 + b"\x00"
    data = b"\x83" + cbor2.dumps({"id": 1, "layer": "a"}) + deep
    data += cbor2.dumps({"id": 2, "layer": "b"})
    report = ingest(write(tmp_path, data), tmp_path / "b")
    assert report.debug.ids.tolist() == [1, 2]
    [note] = report.notes
    assert "skipped 1 unreadable contexts" in note and "depth" in note


def test_declared_length_beyond_the_file(tmp_path: Path) -> None:
    huge_array = b"\xa1" + cbor2.dumps("contexts") + b"\x9b" + (2**40).to_bytes(8, "big")
    with pytest.raises(ReportError, match="declared length 1,099,511,627,776"):
        ingest(write(tmp_path, huge_array + cbor2.dumps({"id": 1})), tmp_path / "b")


def test_non_maps_are_skipped(tmp_path: Path) -> None:
    report = ingest(write(tmp_path, cbor2.dumps([1, {"id": 1, "layer": "x"}, "s"])), tmp_path / "b")
    assert len(report.debug) == 1
    assert "skipped 2 items that are not context maps" in report.notes[0]


def test_empty_contexts_is_an_empty_part(tmp_path: Path) -> None:
    report = ingest(write(tmp_path, cbor2.dumps({"contexts": []})), tmp_path / "b")
    assert report.debug is not None and len(report.debug) == 0 and report.notes == []


@pytest.mark.parametrize(
    "data, problem",
    [(b"", "empty file"), (b"hello world, not cbor", "no debug contexts"),
     (cbor2.dumps(42), "not context maps"), (b"\x9f", "file ends"),
     (cbor2.dumps({"contexts": 5}), "'contexts' is not an array"), (b"\x1c", "invalid CBOR header"),
     (cbor2.dumps({"contexts": real_contexts()})[:20], "file ends")],
)  # fmt: skip
def test_unusable_files_raise_one_line(tmp_path: Path, data: bytes, problem: str) -> None:
    with pytest.raises(ReportError) as error:
        ingest(write(tmp_path, data), tmp_path / "b")
    assert problem in str(error.value) and "\n" not in str(error.value)
    assert not (tmp_path / "b").exists()


def test_progress_and_cancel(tmp_path: Path) -> None:
    contexts = [{"id": i, "layer": "poplibs", "api": "add"} for i in range(20_000)]
    path = write(tmp_path, cbor2.dumps({"contexts": contexts}))
    calls = []
    ingest(path, tmp_path / "b", {"progress": lambda *args: calls.append(args)})
    assert calls and calls[-1] == ("debug.cbor", path.stat().st_size, path.stat().st_size)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        ingest(path, tmp_path / "c", {"cancel": token})
    assert not (tmp_path / "c").exists()


def test_large_unsorted_file_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(debug_cbor, "ROWS_PER_CHUNK", 777)
    rng = np.random.default_rng(0)
    ids = rng.permutation(5000).tolist()
    contexts = [{"id": i, "layer": "onnx", "opName": f"op{i}" * (i % 4)} for i in ids]
    debug = ingest(write(tmp_path, cbor2.dumps(contexts)), tmp_path / "b").debug
    assert debug.ids.tolist() == list(range(5000))
    assert all(debug.names[i] == f"op{i}" * (i % 4) for i in range(0, 5000, 7))
    assert json.loads(debug.fields[4321]) == {"id": 4321, "layer": "onnx", "opName": "op4321"}
    assert not list((tmp_path / "b").glob(".*"))  # the rows in file order were scratch: gone


scalars = (
    st.none() | st.booleans() | st.integers() | st.floats()
    | st.text(max_size=8) | st.binary(max_size=8)
)  # fmt: skip
keys = st.sampled_from(["id", "layer", "category", "parentId", "parents", "name", "x"])
cbor_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(keys | st.integers(), children, max_size=5),
    max_leaves=20,
)
documents = cbor_values.map(cbor2.dumps) | st.lists(cbor_values, max_size=4).map(
    lambda items: cbor2.dumps({"contexts": items})
)


def ingest_or_error(data: bytes) -> None:
    read_or_report_error(read_debug, data, "debug.cbor", "debug", debug_read)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_random_cbor_gives_a_bundle_or_report_error(data: bytes) -> None:
    ingest_or_error(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64), st.sampled_from([b"", b"\xa1\x68contexts", b"\x9f", b"\xbf"]))
def test_random_bytes_give_a_bundle_or_report_error(tail: bytes, head: bytes) -> None:
    ingest_or_error(head + tail)


BAD_UTF8_CONTEXT = b"\xa2" + cbor2.dumps("id") + b"\x07" + cbor2.dumps("layer") + b"\x63a\xffb"
TOO_DEEP_CONTEXT = b"\xa1" + cbor2.dumps("x") + b"\x81" * 100 + b"\x00"
field_values = (
    st.integers(-3, 3) | st.sampled_from(["a", "b", "c", "d"]) | st.lists(st.integers(-3, 3), max_size=2)
    | cbor_values
)  # fmt: skip
context_keys = st.sampled_from(["id", "layer", "category", "x", *debug_cbor.PARENT_KEYS, *debug_cbor.NAME_KEYS])
context_maps = st.builds(
    lambda layer, fields: cbor2.dumps({"layer": layer, **fields}),
    st.sampled_from(["a", "b", "c", "d"]) | field_values,
    st.dictionaries(context_keys | st.integers(), field_values, max_size=6),
)
pieces = st.one_of(
    context_maps, context_maps, context_maps, scalars.map(cbor2.dumps),
    st.sampled_from([BAD_UTF8_CONTEXT, TOO_DEEP_CONTEXT]),
)  # fmt: skip


def bundle_files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(pieces, max_size=12), st.sampled_from(["array", "contexts map", "stream", "indefinite array"]),
    st.integers(1, 5), st.sampled_from([2, debug_cbor.MAX_NAMES]),
)  # fmt: skip
def test_batches_give_what_one_at_a_time_gives(items: list[bytes], layout: str, batch: int, max_names: int) -> None:
    """Contexts decoded a batch at a time make the same bundle, byte for byte, as one at a time."""
    body = b"".join(items)
    data = {
        "array": b"\x9b" + len(items).to_bytes(8, "big") + body,
        "contexts map": b"\xa1" + cbor2.dumps("contexts") + b"\x9f" + body + b"\xff",
        "stream": cbor2.dumps({"id": 0, "layer": "first"}) + body,
        "indefinite array": b"\x9f" + body + b"\xff",
    }[layout]
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(debug_cbor, "MAX_NAMES", max_names):
        path = write(Path(tmp), data)
        bundles = []
        for one_at_a_time in (False, True):
            out = Path(tmp) / str(one_at_a_time)
            with mock.patch.object(debug_cbor, "BATCH", batch), one_at_a_time_only(one_at_a_time):
                try:
                    ingest(path, out)
                except ReportError as error:
                    bundles.append(str(error))
                else:
                    bundles.append(bundle_files(out))
        assert bundles[0] == bundles[1]


def one_at_a_time_only(yes: bool):
    """No batch decodes (each item then read on its own), if YES."""
    if not yes:
        return contextlib.nullcontext()
    return mock.patch.object(debug_cbor._CborInput, "decode_many", lambda self, count: None)


def test_contexts_are_decoded_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(debug_cbor, "BATCH", 4)
    sizes = []
    decode_many = debug_cbor._CborInput.decode_many

    def recorded(self, count):
        items = decode_many(self, count)
        sizes.append(None if items is None else len(items))
        return items

    monkeypatch.setattr(debug_cbor._CborInput, "decode_many", recorded)
    report = ingest(write(tmp_path, cbor2.dumps({"contexts": real_contexts()})), tmp_path / "b")
    assert sizes == [4, 4, 1]
    assert list(report.debug.names) == NAMES and report.notes == []


@pytest.mark.parametrize("kind", ["layer", "category"])
def test_too_many_names_keeps_the_contexts_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.setattr(debug_cbor, "MAX_NAMES", 2)
    contexts = [{"id": i, "layer": "x", kind: name} for i, name in enumerate("aaba")]
    contexts.append({"id": 4, "layer": "y", kind: "c"})  # a third name: the reading stops before it
    report = ingest(write(tmp_path, cbor2.dumps(contexts)), tmp_path / "b")
    assert report.debug.ids.tolist() == [0, 1, 2, 3]
    assert report.debug.layer_names == (["a", "b"] if kind == "layer" else ["x"])
    [note] = report.notes
    assert f"more than 2 distinct {kind} names" in note
