"""Debug contexts, as debug.cbor holds them: poptorch -> onnx -> popart op -> poplibs
calls for every forward operation, popart ops for the backward and weight update,
popart tensors, and the driver's own contexts. Built on demand, in id order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from pvtui.synth.arrays import csr
from pvtui.synth.graph import KIND_NAMES, Graph
from pvtui.synth.hostile import KEPT_LAYERS, hostile
from pvtui.synth.scales import Scale

DRIVER_CLASSES = ("Engine", "StreamCopy", "Executable")
SOURCE_FILE = "transformers/models/bert/modeling_bert.py"
# kind -> (ONNX op type, torch op, poplibs calls)
OP_TYPES = {
    "matmul": ("MatMul", "aten::matmul", ("matMul", "convolution", "createWeights", "reduce", "cast")),
    "add": ("Add", "aten::add", ("add", "broadcast")),
    "softmax": ("Softmax", "aten::softmax", ("softmax", "reduceMax", "exp", "reduceSum", "div")),
    "dropout": ("Dropout", "aten::dropout", ("dropout", "createSeed")),
    "layernorm": ("LayerNormalization", "aten::layer_norm", ("layerNormStatistics", "layerNormalise")),
    "gelu": ("Gelu", "aten::gelu", ("nonLinearity",)),
    "gather": ("Gather", "aten::embedding", ("multiSlice", "createSliceableTensor")),
    "scatter": ("Gather", "aten::embedding", ("multiUpdateAdd", "fill")),
    "loss": ("NllLoss", "aten::nll_loss", ("nllLoss", "reduce")),
    "adam": ("Adam", "poptorch::adam", ("scaledAddTo", "mul", "sqrt", "cast")),
    "lossscale": ("LossScaleUpdate", "poptorch::loss_scale_update", ("mul",)),
}
PASS_SUFFIX = ("", "Grad", "Updater")


@dataclass
class DebugContexts:
    graph: Graph
    scale: Scale
    hidden: int
    op_block: np.ndarray  # int64 [O]: id of the first context of each op
    op_head: np.ndarray  # int64 [O]: contexts before the poplibs calls: 4 forward, 2 otherwise
    op_compute_set_offsets: np.ndarray  # int64 [O + 1]: compute sets each op owns (CSR)
    op_compute_sets: np.ndarray  # int32
    count: int
    hostile: bool = False  # layers, APIs and ids carry escape sequences (synth/hostile.py)

    def named(self, name: str) -> str:
        return hostile(name) if self.hostile else name

    def layer(self, name: str) -> str:
        return hostile(name) if self.hostile and name not in KEPT_LAYERS else name

    def op_context_id(self, op: int) -> int:
        """The popart op context of OP: what its Operation's debugContext is."""
        return int(self.op_block[op] + self.op_head[op] - 2)

    def _tensor(self, name: str, rows: int) -> str:
        return f"{{name: {name}, shape: [{rows}, {self.hidden}], type: half, tiles: {self.scale.tiles_per_ipu}}}"

    def head(self, op: int) -> list[dict]:
        """The op's contexts before its poplibs calls, in id order."""
        g = self.graph
        name, kind, pass_ = g.op_name[op], KIND_NAMES[int(g.op_kind[op])], int(g.op_pass[op])
        onnx_type, torch_op, _ = OP_TYPES[kind]
        first = int(self.op_block[op])
        output = f"{name}/output"
        contexts = []
        if pass_ == 0:
            contexts.append({
                "id": first, "layer": self.layer("poptorch"), "op_name": name, "op_type": torch_op,
                "torch_schema": f"{torch_op}(Tensor self, Tensor other) -> Tensor",
                "location": {"fileName": self.named(SOURCE_FILE), "lineNumber": 200 + 7 * (op % 97)},
            })
            contexts.append({
                "id": first + 1, "parentId": first, "layer": self.layer("onnx"), "category": "op", "opName": name,
                "opType": onnx_type, "domain": "ai.onnx", "input": [f"{name}/input"], "output": [output],
                "attribute": [],
            })
        parent = first + 1 if pass_ == 0 else self._forward_parent(op)
        popart = self.op_context_id(op)
        opid = f"ai.onnx.{onnx_type}:11" if pass_ == 0 else f"ai.graphcore.{onnx_type}{PASS_SUFFIX[pass_]}:1"
        op_context = {
            "id": popart, "layer": "popart", "category": "op", "instanceId": op, "opid": self.named(opid),
            "inputs": [f"{name}/input"], "outputs": [output],
            "attributes": {"__ipu_number": str(int(g.op_ipu[op]))}, "graphId": "", "discard": False,
        }
        if parent >= 0:
            op_context["parentId"] = parent
        contexts.append(op_context)
        contexts.append({
            "id": popart + 1, "parentId": popart, "layer": "popart", "category": "tensor", "tensorId": output,
            "shape": [self.scale.tiles_per_ipu, self.hidden], "elementType": "FLOAT16", "type": "ActGrad",
        })
        return contexts

    def _forward_parent(self, op: int) -> int:
        forward = int(self.graph.op_forward[op])
        return self.op_context_id(forward) if forward >= 0 else -1

    def poplibs(self, op: int) -> Iterator[dict]:
        """The poplibs calls of each compute set of OP: one call, then the calls it made."""
        g = self.graph
        calls = OP_TYPES[KIND_NAMES[int(g.op_kind[op])]][2]
        next_id = int(self.op_block[op] + self.op_head[op])
        parent = self.op_context_id(op)
        sets = self.op_compute_sets[self.op_compute_set_offsets[op] : self.op_compute_set_offsets[op + 1]]
        for cs in sets:
            cs_name = g.compute_set_name[cs]
            top = next_id
            for j in range(self.scale.debug_per_compute_set):
                api = self.named(calls[j % len(calls)])
                yield {
                    "id": next_id, "parentId": parent if j == 0 else top, "layer": self.layer("poplibs"),
                    "api": api,
                    "args": {
                        "A": self._tensor(f"{cs_name}/in0", 64 + j),
                        "B": self._tensor(f"{cs_name}/in1", 64 + j),
                        "options": '{"availableMemoryProportion": "0.6", "partialsType": "float"}',
                    },
                    "outputs": {"output": self._tensor(f"{cs_name}/{api}", 64 + j)},
                    "output": f"{cs_name}/{api}",
                }
                next_id += 1

    def __iter__(self) -> Iterator[dict]:
        for i, cls in enumerate(DRIVER_CLASSES, start=1):
            yield {"id": i, "layer": self.layer("poplar_driver"), "class": self.named(cls)}
        for op in range(len(self.graph.op_name)):
            yield from self.head(op)
            yield from self.poplibs(op)


def build_debug(g: Graph, scale: Scale, hidden: int) -> DebugContexts:
    ote = np.flatnonzero((g.program_compute_set >= 0) & (g.program_op >= 0))
    order = np.argsort(g.program_op[ote], kind="stable")
    owner, sets = g.program_op[ote][order], g.program_compute_set[ote][order]
    n_ops = len(g.op_name)
    cs_counts = np.bincount(owner, minlength=n_ops)
    head = np.where(g.op_pass == 0, 4, 2).astype(np.int64)
    sizes = head + cs_counts * scale.debug_per_compute_set
    block = len(DRIVER_CLASSES) + 1 + csr(sizes)
    return DebugContexts(
        graph=g, scale=scale, hidden=hidden, op_block=block[:-1], op_head=head,
        op_compute_set_offsets=csr(cs_counts), op_compute_sets=sets.astype(np.int32),
        count=int(block[-1] - 1),
    )


def context_json(context: dict) -> str:
    """A context's fields as pva's DebugContext.json gives them."""
    return json.dumps({k: v for k, v in context.items() if k not in ("id", "parentId", "layer")})
