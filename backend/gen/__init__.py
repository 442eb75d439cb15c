"""The Gen9 backend: structured IR -> Gen9 kernels that the simulator runs and iga64 reads.

    compile(program, kernel, GenOptions(simd=16, cf="auto")) -> GenKernel   (its .mode: the mode used)

The backend owns the choice of control-flow mode (choose_function: `auto` weighs the tree against the
hybrid per kernel) and asks the compile driver (lowering.program) for the function each mode takes.
Contract shared with backend/spirv: the backend runs its target's lowerings on its input itself
(lower_for_gen, in place; a no-op on the driver's already lowered functions), so any caller of
compile_gen_kernel or select_any gets target-ready IR.

`isel.py` selects the machine IR from the tree with structured branches, `isel_blockip.py` from the CFG
with per-lane blockIP, block by block or over `cf_regions.py`'s natural regions (the hybrid; `cost.py`
estimates which of tree and hybrid runs less) (`mir.py`: virtual registers with a type and a shape,
Gen opcodes, blocks in layout order; printed by `mir_printer.py`, checked by `mir_verify.py`), `abi.py` says where
arguments and memory objects are, `mir_liveness.py` and `regalloc.py` give every value its registers,
`emit.py` turns the result into isa/gen9 instructions, and `launch.py` is the `gen` run target over
isa/gen9/dispatch.py's thread payload.
"""
from __future__ import annotations

from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.errors import CompileError, IrreducibleCFG
from reconverge.lowering.ir.core import Function, nesting_depth
from reconverge.lowering.target import lower_for
from reconverge.records import field, record
from reconverge.typing_free import Protocol

# auto's weighing, imported with the backend (the region search is isel_blockip's anyway): import statements
# in _choose ran for every kernel, a relative one through importlib's ModuleSpec.parent
from .cf_regions import MAX_ROUNDS, RegionDepthError
from .cost import hybrid_may_win, prefers_hybrid, weigh

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from reconverge.isa.gen9.container import Kernel
    from reconverge.isa.gen9.model import Instruction

    from .abi import KernelLayout
    from .isel import Selection
    from .mir import MFunction


class Program(Protocol):
    """What the backend asks of the compile driver (lowering.program.Program): a kernel as a pipeline
    leaves it (`then`: the pipeline asked for next, which may share this one's read), and whether the
    input has a CFG to give the gen-blockip pipeline."""

    @property
    def structured_input(self) -> bool: ...

    def function(self, kernel: str, target_pipeline: str = "generic", then: str | None = None) -> Function: ...

    def shares_read(self, kernel: str, target_pipeline: str) -> bool: ...


@record(frozen=True)
class CFMode:
    """A way to compile control flow: the pipeline whose function it takes, and the selector's settings."""
    name: str
    pipeline: str               # lowering.target.PIPELINES: "gen" (the tree) or "gen-blockip" (the CFG)
    regions: bool = False       # the CFG's natural regions in structured branches inside blockIP (the hybrid)
    entry: str = "if"           # blockIP's entry sequence (isel_blockip.BlockIPDriver)


# `auto` picks structured or hybrid per kernel (choose_function); blockip-predicated is Beignet's scheme A
# entry sequence, measured against blockip's and not offered on the command line.
CF_MODES: dict[str, CFMode] = {m.name: m for m in (
    CFMode("structured", "gen"),
    CFMode("blockip", "gen-blockip"),
    CFMode("hybrid", "gen-blockip", regions=True),
    CFMode("blockip-predicated", "gen-blockip", entry="predicate"),
)}
COMMAND_LINE_CF = ("auto", "structured", "blockip", "hybrid")    # --cf
# the machine passes --print-after can show (compile_gen_kernel): the machine IR instruction selection
# made, and the machine IR after register allocation (its spill code) with each register's GRF
MACHINE_PASSES = ("isel", "regalloc")


@record(frozen=True)
class GenOptions:
    """What to compile a kernel for: the SIMD width, the control-flow mode (a CF_MODES name, or `auto`,
    the backend's own choice per kernel: choose_function) and whether the machine IR is verified after
    selection and allocation (mir_verify: a debug check, as the IR's validator after every pass; the
    command line's `compile` runs it under --verify-each). The emitted code is checked against the PRM's
    restrictions either way. Checked when made: a bad value is a one-line CompileError."""
    simd: int = 16
    cf: str = "auto"
    verify: bool = True
    uniform_branches: bool = True    # the tree's uniform ifs as scalar jmpi (isel_structured; tools/bench_uniform)

    def __post_init__(self) -> None:
        if self.simd not in (8, 16):
            raise CompileError(f"SIMD{self.simd}: the Gen backend compiles SIMD8 or SIMD16")
        if self.cf != "auto" and self.cf not in CF_MODES:
            raise CompileError(f"unknown control-flow mode '{self.cf}' (modes: auto, {', '.join(CF_MODES)})")


@record
class GenKernel:
    name: str
    simd: int
    program: list[Instruction]
    layout: KernelLayout
    notes: dict[int, str]         # instruction index -> a comment for --emit gen-asm (blockIP labels, JOINs)
    mode: str = ""                # the CF_MODES name it was compiled in (compile: what auto chose)
    # send index -> the private or __local object it must stay in (isel_memory._tag_object; launch.py)
    bounds: dict[int, tuple[str, int, int | None]] = field(default_factory=dict)

    def container_entry(self, code: bytes) -> Kernel:
        from reconverge.isa.gen9.container import Kernel
        return Kernel(self.name, code, self.simd, self.layout.payload(self.simd))


@record(frozen=True)
class GenBinary:
    """One kernel compiled for Gen9 (reconverge.to_gen's answer): its code (what `iga64 -d -p=9` reads),
    iga64-syntax text, SIMD width, and the control-flow mode it was compiled in (the one `cf="auto"` chose)."""
    name: str
    code: bytes
    asm: str
    simd: int
    mode: str


def choose_function(program: Program, kernel: str, cf: str = "auto",
                    uniform_branches: bool = True) -> tuple[Function, CFMode]:
    """The kernel as the mode compiles it (from the driver, lowering.program), and the mode. `auto` (the
    role of Mesa's brw_simd_selection, for control flow): the hybrid where the structurizer cannot take
    the CFG (a sub-group operation in an irreducible cycle; other irreducible cycles get a guard loop,
    lowering.guard_irreducible, and are weighed like any tree), or where the hybrid's machine IR is
    estimated to run clearly less than the tree's (cost.py); else the tree. The tree is selected first:
    where the hybrid would be made from the same read and the tree's branches and moves (without guard
    variables: the ifs around its loop exits) are too small a part of it for the hybrid to win
    (cost.hybrid_may_win), the hybrid is neither made nor selected. The
    tree too where the region search would refuse the nesting, and for IR text in structured form, which
    has no CFG to take."""
    func, mode, _ = _choose(program, kernel, cf, uniform_branches)
    return func, mode


def _choose(program: Program, kernel: str, cf: str,
            uniform_branches: bool) -> tuple[Function, CFMode, Selection | None]:
    """choose_function, and the chosen mode's SIMD16 selection when weighing made it (compile and select
    reuse it: selecting again made auto select every kernel three times)."""
    if cf != "auto":
        GenOptions(cf=cf)                    # the one-line refusal of an unknown mode
        mode = CF_MODES[cf]
        return program.function(kernel, mode.pipeline), mode, None
    try:
        tree = program.function(kernel, "gen", then="gen-blockip")    # one read for both, where they agree
    except IrreducibleCFG:
        return program.function(kernel, "gen-blockip"), CF_MODES["hybrid"], None
    if program.structured_input or 2 * nesting_depth(tree) > MAX_ROUNDS:   # no CFG, or too deep to search
        return tree, CF_MODES["structured"], None
    structured = selection(tree, WEIGHING_SIMD, uniform_branches=uniform_branches)
    weighed = None                           # the tree's (estimated_cost, control_cost): one walk for both tests
    if program.shares_read(kernel, "gen-blockip"):
        weighed = weigh(structured.mfunc)
        if not hybrid_may_win(structured.mfunc, weighed, guarded=bool(tree.guard_variables)):
            return tree, CF_MODES["structured"], structured  # (neither the CFG's pipeline nor its selection)
    cfg = program.function(kernel, "gen-blockip")
    try:
        hybrid = selection(cfg, WEIGHING_SIMD, regions=True)
    except RegionDepthError:                 # nested deeper than the region search goes
        return tree, CF_MODES["structured"], structured
    if prefers_hybrid(structured.mfunc, hybrid.mfunc, None if weighed is None else weighed[0]):
        return cfg, CF_MODES["hybrid"], hybrid
    return tree, CF_MODES["structured"], structured


WEIGHING_SIMD = 16          # the width auto weighs the modes at (whatever width it compiles for)


def compile(program: Program, kernel: str, options: GenOptions | None = None,
            print_after: frozenset[str] | set[str] = frozenset(), printed: list[str] | None = None) -> GenKernel:
    """A kernel of a program, in options.cf's mode (auto: choose_function's), as Gen9 instructions; the
    GenKernel says the mode. The machine IR after the MACHINE_PASSES in `print_after` goes to `printed`."""
    options = options or GenOptions()
    func, mode, weighed = _choose(program, kernel, options.cf, options.uniform_branches)
    compiled = compile_gen_kernel(func, options.simd, options.verify, mode.regions, mode.entry, print_after,
                                  printed, options.uniform_branches,
                                  selected=weighed if options.simd == WEIGHING_SIMD else None)
    compiled.mode = mode.name
    return compiled


def select(program: Program, kernel: str, options: GenOptions | None = None) -> tuple[MFunction, str]:
    """The machine IR of a kernel before register allocation (--emit gen-mir), and the mode's name."""
    options = options or GenOptions()
    func, mode, weighed = _choose(program, kernel, options.cf, options.uniform_branches)
    if weighed is not None and options.simd == WEIGHING_SIMD:
        return weighed.mfunc, mode.name
    return select_any(func, options.simd, mode.regions, mode.entry, options.uniform_branches), mode.name


@depth_independent          # selection walks the tree and the regions recursively: any nesting depth
def compile_gen_kernel(func: Function, simd: int = 16, verify: bool = True, regions: bool = False,
                       entry: str = "if", print_after: frozenset[str] | set[str] = frozenset(),
                       printed: list[str] | None = None, uniform_branches: bool = True,
                       selected: Selection | None = None, check_code: bool = True) -> GenKernel:
    """A kernel of the `gen` pipeline's IR (structured branches) or the `gen-blockip` one's (blockIP;
    `regions`: with the natural regions in structured branches, the hybrid; `entry`: Beignet's entry
    sequence, isel_blockip.BlockIPDriver) -> Gen9 instructions and the ABI they expect. The function is
    first lowered for Gen in place (lower_for_gen). `selected`: the instruction selection already made
    with these settings (auto's weighing), taken instead of selecting again. `verify`: the machine IR
    verified after selection and allocation; `check_code`: the emitted code checked against the PRM
    (isa/gen9/validate.py) before anything encodes it."""

    from .emit import emit
    from .mir_verify import verify as verify_mir
    from .regalloc import allocate
    if simd not in (8, 16):
        raise CompileError(f"@{func.name}: SIMD{simd} (8 or 16)")
    lower_for_gen(func, verify)

    def check(after: str) -> None:
        problems = verify_mir(mfunc) if verify else []
        if problems:
            raise CompileError(f"internal error: invalid machine IR after {after}: {problems[0]}")
    if selected is None:
        from .isel import select
        selected = select(func, simd, regions, entry, uniform_branches)
    mfunc = selected.mfunc
    check("instruction selection")
    if "isel" in print_after and printed is not None:
        from .mir_printer import print_mfunction
        printed.append(f"; after isel (SIMD{simd})\n{print_mfunction(mfunc)}")
    layout = selected.layout
    home, layout.spill_bytes = allocate(mfunc, layout.first_free_grf(), layout.spill_base(simd))
    check("register allocation")
    if "regalloc" in print_after and printed is not None:
        from .mir_printer import print_mfunction, vreg_name
        homes = ", ".join(f"{vreg_name(mfunc.vregs[v])} r{grf}" for v, grf in sorted(home.items())
                          if v in mfunc.vregs)
        printed.append(f"; after regalloc (SIMD{simd}, {layout.spill_bytes} bytes spilled)\n"
                       f"{print_mfunction(mfunc)}; registers: {homes}\n")
    notes: dict[int, str] = {}
    bounds: dict[int, tuple[str, int, int | None]] = {}
    program = emit(mfunc, home, notes, bounds)
    if check_code:
        _check_encodable(func.name, program)
    return GenKernel(func.name, simd, program, layout, notes, bounds=bounds)


def _check_encodable(name: str, program: list) -> None:
    """The emitted instructions against the PRM's restrictions (isa/gen9/validate.py), before anything
    encodes them: a violation is a backend bug, reported as an internal error."""
    from reconverge.isa.gen9.validate import validate_program
    from reconverge.lowering.errors import CompileError
    found = validate_program(program)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise CompileError(f"internal error: @{name}: invalid Gen code: {found[0]}{more}")


def lower_for_gen(func: Function, verify: bool = True) -> None:
    """The target lowerings, run by the backend on its input (the contract of both backends: any caller
    gets target-ready IR): the gen pipeline's for a tree, gen-blockip's for a CFG, in place; a no-op on a
    function that went through that pipeline already (the driver's)."""
    lower_for([func], "gen" if func.is_structured else "gen-blockip", verify)


def select_any(func: Function, simd: int = 16, regions: bool = False, entry: str = "if",
               uniform_branches: bool = True) -> MFunction:
    """The machine IR of either kind of function, before register allocation (lowered for Gen first,
    legalized: cost.prefers_hybrid counts its instructions)."""
    return selection(func, simd, regions, entry, uniform_branches).mfunc


@depth_independent
def selection(func: Function, simd: int = 16, regions: bool = False, entry: str = "if",
              uniform_branches: bool = True) -> Selection:
    """select_any's machine IR with the kernel's layout (isel.Selection): what compile_gen_kernel takes."""
    from .isel import select
    lower_for_gen(func)
    return select(func, simd, regions, entry, uniform_branches)


def compile_gen(func: Function, simd: int = 16, verify: bool = True, regions: bool = False,
                entry: str = "if") -> list:
    """compile_gen_kernel's Gen9 instructions (isa.gen9.model.Instruction)."""
    return compile_gen_kernel(func, simd, verify, regions, entry).program
