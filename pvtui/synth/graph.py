"""The structure of the model: operations of a BERT-like stack, their compute sets,
and the program tree in execution order (which also gives the liveness steps)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pvtui.synth.arrays import calibrate, csr
from pvtui.synth.scales import Scale

PASSES = ("forward", "backward", "update")

LAYER_OPS = (
    ("attention/qkv/Conv_1", "matmul"), ("attention/qkv/Add", "add"),
    ("attention/scores/MatMul", "matmul"), ("attention/Softmax", "softmax"),
    ("attention/Dropout", "dropout"), ("attention/context/MatMul", "matmul"),
    ("attention/output/Conv_1", "matmul"), ("attention/output/Add", "add"),
    ("attention/LayerNorm", "layernorm"), ("ffn/dense1/Conv_1", "matmul"),
    ("ffn/Gelu", "gelu"), ("ffn/dense2/Conv_1", "matmul"), ("ffn/Add", "add"),
    ("ffn/LayerNorm", "layernorm"),
)
LAYER_WEIGHTS = ("attention/qkv", "attention/output", "attention/LayerNorm", "ffn/dense1", "ffn/dense2", "ffn/LayerNorm")
EMBEDDING_OPS = (
    ("embeddings/word/Gather", "gather"), ("embeddings/position/Gather", "gather"),
    ("embeddings/Add", "add"), ("embeddings/LayerNorm", "layernorm"), ("embeddings/Dropout", "dropout"),
)
EMBEDDING_WEIGHTS = ("embeddings/word", "embeddings/position", "embeddings/LayerNorm")
HEAD_OPS = (
    ("head/dense/Conv_1", "matmul"), ("head/Gelu", "gelu"), ("head/LayerNorm", "layernorm"),
    ("head/decoder/MatMul", "matmul"), ("loss/Softmax", "softmax"), ("loss/NllLoss", "loss"),
)
HEAD_WEIGHTS = ("head/dense", "head/LayerNorm", "head/decoder")
BACKWARD_KIND = {"gather": "scatter"}
SHARED_KINDS = {"layernorm", "gelu", "softmax"}  # Poplar functions: one body, many Calls

# kind -> (compute set stages, vertex types, share of the IPU's tiles used)
KINDS = {
    "matmul": (("Conv/Partials", "Conv/Reduce", "Conv/Cast", "Conv/Transpose", "Conv/WeightsRearrange"), (
        "poplin::ConvPartial1x1Out<half,float,true,false>", "poplin::ConvPartialHorizontalMac<half,float,true>",
        "popops::ReduceAdd<float,half>", "popops::Cast<float,half>", "poplin::Transpose2d<half>"), 0.9),
    "add": (("Op/Add", "Op/Add/Broadcast"), (
        "popops::BinaryOp2DInPlace<popops::expr::BinaryOpType::ADD,half>",
        "popops::BroadcastVectorInnerSupervisor<popops::expr::BinaryOpType::ADD,half>"), 0.4),
    "softmax": (("Softmax/ReduceMax", "Softmax/Exp", "Softmax/ReduceSum", "Softmax/Divide"), (
        "popops::Reduce<popops::ReduceMax,half,half,false,popops::ReductionSpecialisation::DEFAULT>",
        "popops::UnaryOp2DInPlace<popops::expr::UnaryOpType::EXPONENT,half>",
        "popops::Reduce<popops::ReduceAdd,half,float,false,popops::ReductionSpecialisation::DEFAULT>",
        "popnn::NonLinearity2D<half,popnn::NonLinearityType::SOFTMAX>"), 0.6),
    "dropout": (("Dropout/Mask", "Dropout/Apply"), ("poprand::DropoutSupervisor<half>", "poprand::SetSeedSupervisor"), 0.5),
    "layernorm": (("Norm/Statistics", "Norm/Whiten", "Norm/Scale"), (
        "popnn::LayerNormWhitening<half,float>",
        "popops::Reduce<popops::ReduceSquareAdd,half,float,false,popops::ReductionSpecialisation::DEFAULT>",
        "popops::ScaledAddSupervisor<half,half,half,true>"), 0.5),
    "gelu": (("Gelu/NonLinearity",), ("popnn::NonLinearity2D<half,popnn::NonLinearityType::GELU>",), 0.6),
    "gather": (("MultiSlice",), ("popops::MultiSlice<half>",), 0.7),
    "scatter": (("MultiUpdateAdd", "Zero"), ("popops::MultiUpdateAdd<half,true>", "popops::Fill<half>"), 0.7),
    "loss": (("NllLoss/Gather", "NllLoss/Reduce"), (
        "popnn::NllLoss<half,unsigned int>", "popops::ReduceAdd<float,float>"), 0.2),
    "adam": (("Adam/Moments", "Adam/Update", "Adam/Cast"), (
        "popops::ScaledAdd2D<float,float,float,true>",
        "popops::BinaryOp2DInPlace<popops::expr::BinaryOpType::MULTIPLY,float>",
        "popops::Cast<float,half>"), 0.8),
    "lossscale": (("LossScaling/Update",), ("popops::BinaryOp1DInPlace<popops::expr::BinaryOpType::MULTIPLY,float>",), 0.05),
}
KIND_NAMES = tuple(KINDS)
VERTEX_TYPE_NAMES = tuple(dict.fromkeys(v for _, vertices, _ in KINDS.values() for v in vertices))

# Raw per-tile cost scales by program type: own control code (bytes), estimated cycles.
CONTROL_BYTES = {"OnTileExecute": 24, "DoExchange": 16, "Sync": 8, "Repeat": 48, "If": 32, "Call": 16}
CYCLES = {
    "OnTileExecute": 2_500, "DoExchange": 900, "GlobalExchange": 9_000, "StreamCopyBegin": 120,
    "StreamCopyMid": 12_000, "StreamCopyEnd": 60, "Sync": 400,
}
EXCHANGE_CATEGORY = {
    "DoExchange": "internalExchangeCode", "GlobalExchange": "globalExchangeCode", "StreamCopyMid": "hostExchangeCode",
}
# Mean bytes a tile for each category built from program code.
CODE_MEANS = {"controlCode": 12_000, "internalExchangeCode": 40_000, "globalExchangeCode": 3_000, "hostExchangeCode": 4_000}


@dataclass
class Graph:
    """Programs (in creation order), compute sets and operations of one model."""

    program_type_names: list[str]
    program_type: np.ndarray  # int16 [P]
    program_name: list[str]
    child_offsets: np.ndarray  # int64 [P + 1]
    children: np.ndarray  # int32 [E]
    program_compute_set: np.ndarray  # int32 [P], -1 none
    program_op: np.ndarray  # int32 [P], -1 none
    program_lo: np.ndarray  # int32 [P]: the tiles [lo, hi) the program runs on
    program_hi: np.ndarray
    control_per_tile: np.ndarray  # int64 [P]: own control code on each of its tiles
    exchange_per_tile: np.ndarray  # int64 [P]: exchange code on each of its tiles (exchanges only)
    cycles_per_tile: np.ndarray  # int64 [P]: estimated cycles on each of its tiles
    root: int
    liveness_steps: np.ndarray  # int32 [N]: the leaf program of each liveness step
    body_start: int  # first liveness step of the main program's repeated body
    compute_set_name: list[str]
    compute_set_lo: np.ndarray  # int32 [S]
    compute_set_hi: np.ndarray
    compute_set_vertex_offsets: np.ndarray  # int64 [S + 1]
    compute_set_vertex_type: np.ndarray  # int32 [CV] index into VERTEX_TYPE_NAMES
    compute_set_vertex_per_tile: np.ndarray  # int64 [CV]: instances on each tile of the set
    op_name: list[str]
    op_kind: np.ndarray  # int16 [O] index into KIND_NAMES
    op_pass: np.ndarray  # int8 [O] index into PASSES
    op_layer: np.ndarray  # int16 [O], -1 embeddings, L head
    op_ipu: np.ndarray  # int16 [O]
    op_lo: np.ndarray  # int32 [O]
    op_hi: np.ndarray
    op_first_step: np.ndarray  # int32 [O]: first liveness step
    op_end_step: np.ndarray  # int32 [O]: one past the last
    op_forward: np.ndarray  # int32 [O]: the forward op a backward op differentiates, else -1
    op_program_offsets: np.ndarray  # int64 [O + 1]: the op's own programs (CSR)
    op_programs: np.ndarray  # int32
    weights: list[tuple[str, int]]  # (weight group, IPU) in download order

    @property
    def num_programs(self) -> int:
        return len(self.program_type)

    def program_children(self, p: int) -> np.ndarray:
        return self.children[self.child_offsets[p] : self.child_offsets[p + 1]]


@dataclass
class _Builder:
    rng: np.random.Generator
    scale: Scale
    num_tiles: int
    types: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    kids: list[list[int]] = field(default_factory=list)
    cs: list[int] = field(default_factory=list)
    op: list[int] = field(default_factory=list)
    lo: list[int] = field(default_factory=list)
    hi: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    cs_rows: list[tuple[str, int, int]] = field(default_factory=list)
    cs_vertices: list[tuple[int, int, int]] = field(default_factory=list)  # (set, type, per tile)
    ops: list[dict] = field(default_factory=list)
    functions: dict[tuple, tuple[int, list[int], int, int]] = field(default_factory=dict)
    ipu_now: int = 0

    def program(self, type_: str, name: str, lo: int, hi: int, children=(), cs: int = -1, op: int = -1) -> int:
        self.types.append(type_)
        self.names.append(name)
        self.kids.append(list(children))
        self.cs.append(cs)
        self.op.append(op)
        self.lo.append(lo)
        self.hi.append(hi)
        return len(self.types) - 1

    def leaf(self, type_: str, name: str, lo: int, hi: int, cs: int = -1, op: int = -1) -> int:
        p = self.program(type_, name, lo, hi, cs=cs, op=op)
        self.steps.append(p)
        return p

    def ipu_range(self, ipu: int) -> tuple[int, int]:
        tpi = self.scale.tiles_per_ipu
        return ipu * tpi, (ipu + 1) * tpi

    def stream_copy(self, stream: str, ipu: int) -> list[int]:
        lo, hi = self.ipu_range(ipu)
        return [self.leaf(t, f"{stream}/{t}", lo, hi) for t in ("StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd")]

    def sync(self, name: str) -> int:
        return self.leaf("Sync", name, 0, self.num_tiles)

    def compute_set(self, name: str, kind: str, stage: int, lo: int, hi: int) -> int:
        index = len(self.cs_rows)
        self.cs_rows.append((name, lo, hi))
        vertices = KINDS[kind][1]
        chosen = {stage % len(vertices)}
        if len(vertices) > 1 and self.rng.random() < 0.4:
            chosen.add(int(self.rng.integers(len(vertices))))
        for v in sorted(chosen):
            per_tile = int(self.rng.integers(1, 9))
            self.cs_vertices.append((index, VERTEX_TYPE_NAMES.index(vertices[v]), per_tile))
        return index

    def operation(self, name: str, kind: str, pass_: int, layer: int, ipu: int, forward: int = -1) -> int:
        """Add one operation's programs; the program that stands for it in its parent."""
        index = len(self.ops)
        first = len(self.steps)
        items = []
        if ipu != self.ipu_now:
            a, b = sorted((ipu, self.ipu_now))
            items.append(self.leaf("GlobalExchange", f"{name}/InterIpuCopy", a * self.scale.tiles_per_ipu,
                                   (b + 1) * self.scale.tiles_per_ipu, op=index))
            self.ipu_now = ipu
        key = (kind, pass_, ipu)
        if kind in SHARED_KINDS and key in self.functions:
            body, leaves, lo, hi = self.functions[key]
            self.steps.extend(leaves)
            items.append(self.program("Call", name, lo, hi, [body], op=index))
        else:
            lo, hi = self._tiles(kind, ipu)
            leaves = self._stages(name, kind, lo, hi, index)
            if kind in SHARED_KINDS:
                body = self.program("Sequence", f"{name}/function", lo, hi, leaves, op=index)
                self.functions[key] = (body, leaves, lo, hi)
                items.append(self.program("Call", name, lo, hi, [body], op=index))
            else:
                items.extend(leaves)
        self.ops.append(dict(name=name, kind=KIND_NAMES.index(kind), pass_=pass_, layer=layer, ipu=ipu,
                             lo=lo, hi=hi, first=first, end=len(self.steps), forward=forward))
        if len(items) == 1:
            return items[0]
        return self.program("Sequence", name, lo, hi, items, op=index)

    def _tiles(self, kind: str, ipu: int) -> tuple[int, int]:
        tpi = self.scale.tiles_per_ipu
        share = KINDS[kind][2] * self.rng.uniform(0.6, 1.0)
        span = max(1, int(tpi * share))
        start = int(self.rng.integers(0, tpi - span + 1))
        base = ipu * tpi
        return base + start, base + start + span

    def _sub_range(self, lo: int, hi: int) -> tuple[int, int]:
        """A compute set's tiles: part of its operation's, the smaller the bigger the graph."""
        span = max(1, int((hi - lo) * self.scale.compute_set_share * self.rng.uniform(0.3, 1.0)))
        start = lo + int(self.rng.integers(0, hi - lo - span + 1))
        return start, start + span

    def _stages(self, name: str, kind: str, lo: int, hi: int, op: int) -> list[int]:
        stages = KINDS[kind][0]
        leaves = []
        for i in range(1 + int(self.rng.poisson(self.scale.stages))):
            stage = stages[i % len(stages)] + (f"_{i // len(stages)}" if i >= len(stages) else "")
            cs_name = f"{name}/{stage}"
            if self.rng.random() < 0.3:
                leaves.append(self.leaf("DoExchange", f"{cs_name}/ExchangePre", lo, hi, op=op))
            cs_lo, cs_hi = self._sub_range(lo, hi)
            cs = self.compute_set(cs_name, kind, i, cs_lo, cs_hi)
            leaves.append(self.leaf("OnTileExecute", cs_name, cs_lo, cs_hi, cs=cs, op=op))
        return leaves


def _forward_ops(scale: Scale) -> list[tuple[str, str, int, int]]:
    """(name, kind, layer, ipu) of the forward pass, in order."""
    last = scale.ipus - 1
    ops = [(name, kind, -1, 0) for name, kind in EMBEDDING_OPS]
    for layer in range(scale.layers):
        ipu = layer * scale.ipus // scale.layers
        ops += [(f"layer{layer}/{name}", kind, layer, ipu) for name, kind in LAYER_OPS]
    ops += [(name, kind, scale.layers, last) for name, kind in HEAD_OPS]
    return ops


def _weights(scale: Scale) -> list[tuple[str, int, int]]:
    """(weight group, layer, IPU) in download order."""
    weights = [(w, -1, 0) for w in EMBEDDING_WEIGHTS]
    for layer in range(scale.layers):
        ipu = layer * scale.ipus // scale.layers
        weights += [(f"layer{layer}/{w}", layer, ipu) for w in LAYER_WEIGHTS]
    return weights + [(w, scale.layers, scale.ipus - 1) for w in HEAD_WEIGHTS]


def build_graph(scale: Scale, rng: np.random.Generator) -> Graph:
    num_tiles = scale.ipus * scale.tiles_per_ipu
    b = _Builder(rng, scale, num_tiles)
    weights = _weights(scale)
    download = [p for w, _, ipu in weights for p in b.stream_copy(w, ipu)]
    download_seq = b.program("Sequence", "WeightsFromHost", 0, num_tiles, download)
    body_start = len(b.steps)

    last = scale.ipus - 1
    items = [b.sync("External"), *b.stream_copy("input_ids", 0), *b.stream_copy("labels", last)]
    forward = _forward_ops(scale)
    forward_index = []
    for name, kind, layer, ipu in forward:
        forward_index.append(len(b.ops))
        items.append(b.operation(name, kind, 0, layer, ipu))
    then = b.operation("loss/lossScaling/Update", "lossscale", 0, scale.layers, last)
    orelse = b.program("Sequence", "loss/lossScaling/Else", 0, 0)
    items.append(b.program("If", "loss/lossScaling/If", *b.ipu_range(last), [then, orelse]))
    for (name, kind, layer, ipu), fwd in zip(reversed(forward), reversed(forward_index)):
        items.append(b.operation(f"{name}Grad", BACKWARD_KIND.get(kind, kind), 1, layer, ipu, fwd))
    for w, layer, ipu in reversed(weights):
        items.append(b.operation(f"{w}/AdamUpdater", "adam", 2, layer, ipu))
    items += [b.sync("External"), *b.stream_copy("loss", last)]
    step = b.program("Sequence", "main/step", 0, num_tiles, items)
    repeat = b.program("Repeat", "main/Repeat", 0, num_tiles, [step])
    main = b.program("Sequence", "main", 0, num_tiles, [repeat])
    root = b.program("OnEveryTileSwitch", "top", 0, num_tiles, [download_seq, main])
    return _finish(b, root, body_start, [(w, ipu) for w, _, ipu in weights])


def _finish(b: _Builder, root: int, body_start: int, weights: list[tuple[str, int]]) -> Graph:
    rng, num_tiles = b.rng, b.num_tiles
    type_names = list(dict.fromkeys(b.types))
    types = np.array([type_names.index(t) for t in b.types], np.int16)
    lo, hi = np.array(b.lo, np.int32), np.array(b.hi, np.int32)
    n = len(types)
    noise = rng.lognormal(0.0, 0.35, n)
    raw_control = np.array([CONTROL_BYTES.get(t, 8) for t in b.types]) * noise
    control = calibrate(raw_control, lo, hi, num_tiles, CODE_MEANS["controlCode"])
    exchange = np.zeros(n, np.int64)
    for type_name, category in EXCHANGE_CATEGORY.items():
        mask = np.array([t == type_name for t in b.types])
        if mask.any():
            exchange[mask] = calibrate(noise[mask] * 100, lo[mask], hi[mask], num_tiles, CODE_MEANS[category])
    cycles = (np.array([CYCLES.get(t, 0) for t in b.types]) * rng.lognormal(0.0, 0.6, n)).astype(np.int64)
    counts = np.array([len(k) for k in b.kids])
    cs_vertices = np.array(b.cs_vertices, np.int64).reshape(-1, 3)
    op_programs = [[] for _ in b.ops]
    for p, o in enumerate(b.op):
        if o >= 0:
            op_programs[o].append(p)
    ops = b.ops
    return Graph(
        program_type_names=type_names,
        program_type=types,
        program_name=b.names,
        child_offsets=csr(counts),
        children=np.array([c for k in b.kids for c in k], np.int32),
        program_compute_set=np.array(b.cs, np.int32),
        program_op=np.array(b.op, np.int32),
        program_lo=lo,
        program_hi=hi,
        control_per_tile=control,
        exchange_per_tile=exchange,
        cycles_per_tile=cycles,
        root=root,
        liveness_steps=np.array(b.steps, np.int32),
        body_start=body_start,
        compute_set_name=[r[0] for r in b.cs_rows],
        compute_set_lo=np.array([r[1] for r in b.cs_rows], np.int32),
        compute_set_hi=np.array([r[2] for r in b.cs_rows], np.int32),
        compute_set_vertex_offsets=csr(np.bincount(cs_vertices[:, 0], minlength=len(b.cs_rows))),
        compute_set_vertex_type=cs_vertices[:, 1].astype(np.int32),
        compute_set_vertex_per_tile=cs_vertices[:, 2],
        op_name=[o["name"] for o in ops],
        op_kind=np.array([o["kind"] for o in ops], np.int16),
        op_pass=np.array([o["pass_"] for o in ops], np.int8),
        op_layer=np.array([o["layer"] for o in ops], np.int16),
        op_ipu=np.array([o["ipu"] for o in ops], np.int16),
        op_lo=np.array([o["lo"] for o in ops], np.int32),
        op_hi=np.array([o["hi"] for o in ops], np.int32),
        op_first_step=np.array([o["first"] for o in ops], np.int32),
        op_end_step=np.array([o["end"] for o in ops], np.int32),
        op_forward=np.array([o["forward"] for o in ops], np.int32),
        op_program_offsets=csr(np.array([len(p) for p in op_programs])),
        op_programs=np.array([p for ps in op_programs for p in ps], np.int32),
        weights=weights,
    )
