"""The Gen9 machine IR: between the structured IR and the encoder, what instruction selection produces
and register allocation consumes.

Values are virtual registers (`VReg`) with a Gen data type and a shape: per lane (one element per SIMD
lane: a SIMD16 :d value is 64 bytes, two GRFs; a SIMD16 :q value four) or uniform (one element for
all lanes, a subregister). Instructions name Gen opcodes with the mnemonics isa/gen9 uses, an execution
size, a destination and sources (a register at a byte offset with a region, or an immediate), an
optional predicate and conditional modifier on a flag subregister, branch targets by block label, and a
send's message (SFID, descriptor, EOT). Blocks are in layout order; a block without a branch at its end
falls through to the next. Physical registers (`PReg`) appear only for the thread payload (r0, the local
ids, the cross-thread data: isa/gen9/dispatch.py) and the EOT copy.
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType, Region
from reconverge.records import field, record

GRF_BYTES = 32
FLAGS = ((0, 0), (0, 1), (1, 0), (1, 1))          # f0.0 f0.1 f1.0 f1.1
BRANCHES = ("jmpi", "if", "else", "endif", "while", "break", "cont", "halt")
SENDS = ("send", "sends")


@record(frozen=True, slots=True)
class VReg:
    id: int
    type: DataType
    uniform: bool = False                           # one value for every lane (a scalar)
    count: int = 1                                  # elements per lane (a message payload's blocks)

    def size(self, simd: int) -> int:
        """Bytes the value occupies in the register file."""
        return self.type.size * (1 if self.uniform else simd) * self.count

    def grfs(self, simd: int) -> int:
        return -(-self.size(simd) // GRF_BYTES)

    def __str__(self) -> str:
        return f"%v{self.id}{'.u' if self.uniform else ''}:{self.type.value}"


@record(frozen=True, slots=True)
class PReg:
    """A fixed register: payload input or a register an ABI rule names (r127 for the EOT header)."""
    reg: int
    subreg: int = 0                                 # in elements of `type`
    type: DataType = DataType.UD

    def __str__(self) -> str:
        return f"r{self.reg}.{self.subreg}:{self.type.value}"


@record(frozen=True, slots=True)
class Imm:
    value: int | float
    type: DataType

    def __str__(self) -> str:
        return f"{self.value}:{self.type.value}"


@record(frozen=True, slots=True)
class Operand:
    """A source or destination: a register (virtual or fixed) at a byte offset with a region, or an
    immediate. Region None: the natural one (a lane's element, or a uniform's broadcast <0;1,0>)."""
    value: VReg | PReg | Imm
    offset: int = 0                                 # bytes into the register value
    region: Region | None = None
    neg: bool = False
    abs: bool = False

    @property
    def type(self) -> DataType:
        return self.value.type


@record(slots=True)
class MInstr:
    opcode: str
    exec_size: int
    dst: Operand | None = None
    srcs: list[Operand] = field(default_factory=list)
    predicate: tuple[int, int, bool] | None = None        # (flag, subflag, inverted)
    pred_control: str = ""                                  # "" or jmpi's group test: "any16h", "all8h" ...
    cond_mod: str | None = None
    flag: tuple[int, int] = (0, 0)                          # the flag a cond_mod writes
    math_fc: str | None = None
    no_mask: bool = False                                   # (W): all channels, whatever the mask
    targets: list[str] = field(default_factory=list)        # branch targets (block labels)
    sfid: int | None = None
    desc: int | None = None
    eot: bool = False
    ex_desc: int | None = None                              # a split send's extended descriptor
    # a private or __local access's own object (isel_memory._tag_object): (kind, offset or argument, size)
    bounds: tuple[str, int, int | None] | None = None

    def defs(self) -> list[VReg]:
        return [self.dst.value] if self.dst is not None and type(self.dst.value) is VReg else []

    def uses(self) -> list[VReg]:
        return [s.value for s in self.srcs if type(s.value) is VReg]     # (VReg has no subclasses)


def register_counts(func: MFunction) -> tuple[dict[int, int], dict[int, int]]:
    """How many times each virtual register is written (a destination) and read (a source), through any
    view of it: what mir_cse and mir_coalesce decide by (one walk for both, isel.select)."""
    writes: dict[int, int] = {}
    reads: dict[int, int] = {}
    for block in func.blocks:
        for ins in block.instrs:                  # (defs() and uses(), inline: no lists made)
            dst = ins.dst
            if dst is not None:
                v = dst.value
                if type(v) is VReg:
                    writes[v.id] = writes.get(v.id, 0) + 1
            for s in ins.srcs:
                v = s.value
                if type(v) is VReg:
                    reads[v.id] = reads.get(v.id, 0) + 1
    return writes, reads


@record
class MBlock:
    label: str
    instrs: list[MInstr] = field(default_factory=list)

    def append(self, ins: MInstr) -> MInstr:
        self.instrs.append(ins)
        return ins


@record
class MFunction:
    name: str
    simd: int
    blocks: list[MBlock] = field(default_factory=list)
    vregs: dict[int, VReg] = field(default_factory=dict)
    labels_made: int = 0

    def vreg(self, type: DataType, uniform: bool = False, count: int = 1) -> VReg:
        v = VReg(len(self.vregs), type, uniform, count)
        self.vregs[v.id] = v
        return v

    def new_label(self, stem: str) -> str:
        self.labels_made += 1
        return f"{stem}{self.labels_made}"

    def block(self, label: str) -> MBlock:
        b = MBlock(label)
        self.blocks.append(b)
        return b

    def successors(self) -> dict[str, list[str]]:
        """Control flow between blocks: branch targets, plus the next block unless the last instruction
        always leaves (an unpredicated jmpi, or the EOT send)."""
        out: dict[str, list[str]] = {}
        for i, b in enumerate(self.blocks):
            last = b.instrs[-1] if b.instrs else None
            succ = list(last.targets) if last is not None and last.opcode in BRANCHES else []
            leaves = last is not None and (last.eot or (last.opcode in ("jmpi", "else") and last.predicate is None))
            if not leaves and i + 1 < len(self.blocks):
                succ.append(self.blocks[i + 1].label)
            out[b.label] = list(dict.fromkeys(succ))
        return out
