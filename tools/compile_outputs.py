"""What `compile` writes besides the pipeline's output: the output kind -o's name implies (clang's and
llc's habit: `-o k.spv` is SPIR-V), --emit llvm (the LLVM IR we read, before any pass of ours), and the
passes --print-after/--print-before may name (the IR passes, and Gen's machine passes)."""
from __future__ import annotations

import os

from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import write_all
from reconverge.tools.source_args import load_source
from reconverge.tools.spirv_args import compile_spirv_given
from reconverge.tools.usage import UsageError

GEN_EMITS = ("gen", "gen-bin", "gen-asm", "gen-mir")
EMIT_KINDS = ("nir", "dot-cfg", "dot-tree", "spirv", "spirv-asm", "dot-spirv", "gen", "gen-bin", "gen-asm", "gen-mir",
              "llvm")                                       # compile's --emit
CF_CHOICES = ("auto", "structured", "blockip", "hybrid")    # --cf (backend.gen.COMMAND_LINE_CF)
# compile's output kind when --emit is not given: from the -o file's name (else nir)
EMIT_BY_SUFFIX = {".spv": "spirv", ".spvasm": "spirv-asm", ".krn": "gen", ".nir": "nir", ".s": "gen-asm",
                  ".asm": "gen-asm", ".ll": "llvm"}


def emit_kind(output: str) -> str:
    """The --emit an output file's name asks for ('-' and other names: nir)."""
    return EMIT_BY_SUFFIX.get(os.path.splitext(output)[1].lower(), "nir") if output != "-" else "nir"


def print_passes(names: list[str] | None, flag: str, gen: bool) -> set[str]:
    """--print-after/--print-before's passes: the IR passes, `all`, and for --emit gen* the machine
    passes (isel, regalloc; their machine IR)."""
    from reconverge.lowering import pipeline
    chosen = set(names or [])
    if not chosen:
        return chosen                     # nothing to check: the Gen backend stays unloaded for SPIR-V
    from reconverge.backend.gen import MACHINE_PASSES
    known = set(pipeline.PASS_NAMES) | {"all"} | (set(MACHINE_PASSES) if gen else set())
    unknown = chosen - known
    if unknown:
        name = sorted(unknown)[0]
        if name in MACHINE_PASSES:
            raise UsageError(f"{flag} {name}: a Gen machine pass (only with --emit {', '.join(GEN_EMITS)})")
        raise UsageError(f"{flag}: unknown pass '{name}' (passes: {', '.join(pipeline.PASS_NAMES)}, "
                         f"{', '.join(MACHINE_PASSES)} for --emit gen*, all)")
    return chosen


def emit_llvm(args) -> None:
    """--emit llvm: the LLVM IR reconverge reads (OpenCL C: what clang made of it; .ll/.bc: the module
    after LLVM's -O<n>), with none of our passes."""
    ignored = [flag for flag, given in (("--kernel", args.kernel), ("--dump-after", args.dump_after),
                                        ("--stop-after", args.stop_after), ("--print-after", args.print_after),
                                        ("--print-before", args.print_before), ("--pipeline", args.pipeline),
                                        ("--simd", args.simd), ("--cf", args.cf)) if given]
    if ignored or compile_spirv_given(args):
        raise UsageError(f"{(ignored or compile_spirv_given(args))[0]} does not apply to --emit llvm "
                         f"(the whole LLVM module, before any of reconverge's passes)")
    program = load_source(args)
    if not program.has_llvm:
        raise CompileError(f"{program.path}: reconverge IR text has no LLVM module (--emit llvm needs .cl, .ll "
                           f"or .bc input)")
    write_all({args.output: program.llvm_text}, inputs=[args.input])
