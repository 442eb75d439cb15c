"""The Gen9 backend: structured IR -> Gen9 kernels that the simulator runs and iga64 reads.

`isel.py` selects the machine IR from the tree with structured branches, `isel_blockip.py` from the CFG
with per-lane blockIP, block by block or over `cf_regions.py`'s natural regions (the hybrid; `cost.py`
estimates which of tree and hybrid runs less) (`mir.py`: virtual registers with a type and a shape,
Gen opcodes, blocks in layout order; printed by `mir_printer.py`, checked by `mir_verify.py`), `abi.py` says where
arguments and memory objects are, `mir_liveness.py` and `regalloc.py` give every value its registers,
`emit.py` turns the result into isa/gen9 instructions, and `launch.py` is the `gen` run target over
isa/gen9/dispatch.py's thread payload.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lowering.deepstack import depth_independent
from lowering.ir.core import Function

if TYPE_CHECKING:
    from isa.gen9.container import Kernel
    from isa.gen9.model import Instruction

    from .abi import KernelLayout

# control-flow mode -> (the pipeline whose function it compiles, compile_gen_kernel's options). `auto`
# picks structured or hybrid per kernel (tools/targets/harness.gen_function); blockip-predicated is
# Beignet's scheme A entry sequence, measured against blockip's and not offered on the command line.
CF_MODES: dict[str, tuple[str, dict]] = {
    "structured": ("gen", {}),
    "blockip": ("gen-blockip", {}),
    "hybrid": ("gen-blockip", {"regions": True}),
    "blockip-predicated": ("gen-blockip", {"entry": "predicate"}),
}


@dataclass
class GenKernel:
    name: str
    simd: int
    program: list[Instruction]
    layout: KernelLayout
    notes: dict[int, str]         # instruction index -> a comment for --emit gen-asm (blockIP labels, JOINs)

    def container_entry(self, code: bytes) -> Kernel:
        from isa.gen9.container import Kernel
        return Kernel(self.name, code, self.simd, self.layout.payload(self.simd))


@depth_independent          # selection walks the tree and the regions recursively: any nesting depth
def compile_gen_kernel(func: Function, simd: int = 16, verify: bool = True, regions: bool = False,
                       entry: str = "if") -> GenKernel:
    """A kernel of the `gen` pipeline's IR (structured branches) or the `gen-blockip` one's (blockIP;
    `regions`: with the natural regions in structured branches, the hybrid; `entry`: Beignet's entry
    sequence, isel_blockip.BlockIPSelector) -> Gen9 instructions and the ABI they expect."""
    from lowering.errors import CompileError

    from .emit import emit
    from .mir_verify import verify as verify_mir
    from .regalloc import allocate
    if simd not in (8, 16):
        raise CompileError(f"@{func.name}: SIMD{simd} (8 or 16)")

    def check(after: str) -> None:
        problems = verify_mir(mfunc) if verify else []
        if problems:
            raise CompileError(f"internal error: invalid machine IR after {after}: {problems[0]}")
    selector = _selector(func, simd, regions, entry)
    mfunc = selector.run()
    check("instruction selection")
    layout = selector.layout
    home, layout.spill_bytes = allocate(mfunc, layout.first_free_grf(), layout.spill_base(simd))
    check("register allocation")
    notes: dict[int, str] = {}
    return GenKernel(func.name, simd, emit(mfunc, home, notes), layout, notes)


def _selector(func: Function, simd: int, regions: bool = False, entry: str = "if"):
    """Structured branches for a tree (the gen pipeline), blockIP for a CFG (gen-blockip)."""
    from .isel import Selector
    from .isel_blockip import BlockIPSelector
    return Selector(func, simd) if func.is_structured else BlockIPSelector(func, simd, regions, entry)


@depth_independent
def select_any(func: Function, simd: int = 16, regions: bool = False, entry: str = "if"):
    """The machine IR of either kind of function, before register allocation."""
    return _selector(func, simd, regions, entry).run()


def compile_gen(func: Function, simd: int = 16, verify: bool = True, regions: bool = False,
                entry: str = "if") -> list:
    """compile_gen_kernel's Gen9 instructions (isa.gen9.model.Instruction)."""
    return compile_gen_kernel(func, simd, verify, regions, entry).program
