"""What a target's instructions do natively, and the passes each target runs.

A lowering pass reads only a TargetCaps (the role of Mesa's nir_shader_compiler_options): it rewrites what
the target lacks into IR the target has, so no backend restates a target-independent lowering. The
`generic` pipeline is what the interpreter runs and what `--emit nir` shows by default; every pipeline is
followed by the validator after each pass.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Function
from reconverge.records import record


@record(frozen=True)
class TargetCaps:
    name: str
    structured: bool = True         # needs the control-flow tree (False: Gen blockIP runs the CFG as it is)
    int_widths: tuple[int, ...] = ()    # the integer widths it computes in (empty: any width LLVM has)
    memory_widths: tuple[int, ...] = ()  # integer widths its loads and stores take, if not computed in
    bit_ops_max_bits: int = 64      # popcount/clz/ctz/bitreverse exist natively up to this width
    math_edges: bool = True         # math gives OpenCL's values at the edges (pow of a negative base, atan2(0, 0),
    #                                 round's halfway cases, NaN operands); False: only the relaxed forms exist
    math_functions: tuple[str, ...] = ()   # with math_edges False: the functions that exist natively (relaxed)
    global_id: bool = True          # a native global id (else group_id * local_size + local_id + global_offset)
    global_size: bool = True        # a native global size (else num_groups * local_size)
    fused_fma_widths: tuple[int, ...] = (16, 32, 64)    # float widths with a fused multiply-add (else lower_fma)


# GLSL.std.450 (Vulkan SPIR-V): 32-bit bit instructions, transcendental functions undefined at the edges,
# GlobalInvocationId but no global size, and an Fma that may round twice (Vulkan's precision table; lavapipe's
# does: fma(a, b, -(a*b)) was 0.0).
_GLSL_MATH = ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
              "sinh", "cosh", "tanh", "pow", "fabs", "floor", "ceil", "trunc", "rint", "ldexp")

GENERIC = TargetCaps("generic")
LEGAL_WIDTHS = (1, 8, 16, 32, 64)
SPIRV = TargetCaps("spirv", int_widths=LEGAL_WIDTHS, bit_ops_max_bits=32, math_edges=False,
                   math_functions=_GLSL_MATH, global_size=False, fused_fma_widths=())
# Gen9 (PRM vol. 7, "EU math function"): 32-bit cbit/fbh/fbl/bfrev, a math box without OpenCL's edges, and
# no global id or size in the thread payload (only the group id and the local ids). Bytes and words are
# computed in dwords (Gen's byte/word regions would need strided layouts per lane) and loaded and stored
# by byte scattered messages.
GEN_WIDTHS = (1, 32, 64)
GEN9 = TargetCaps("gen", int_widths=GEN_WIDTHS, memory_widths=(8, 16), bit_ops_max_bits=32, math_edges=False,
                  math_functions=("sqrt", "rsqrt", "exp2", "log2", "sin", "cos", "pow", "fabs", "floor", "ceil",
                                  "trunc", "rint"),
                  global_id=False, global_size=False, fused_fma_widths=())
GEN9_BLOCKIP = TargetCaps("gen-blockip", structured=False, int_widths=GEN_WIDTHS, memory_widths=(8, 16),
                          bit_ops_max_bits=32,
                          math_edges=False, math_functions=GEN9.math_functions, global_id=False,
                          global_size=False, fused_fma_widths=())

CAPS = {c.name: c for c in (GENERIC, SPIRV, GEN9, GEN9_BLOCKIP)}

_LOWERINGS = ("legalize_int_widths", "lower_workitem", "lower_math_edges", "lower_bitops64", "lower_fma")
PIPELINES: dict[str, tuple[str, ...]] = {
    "generic": ("convergence", "structurize", "split_private_selects", "promote"),
    "spirv": ("convergence", "structurize", "split_private_selects", "promote", *_LOWERINGS, "reroll",
              "hide_signed_zero_selects"),
    "gen": ("convergence", "structurize", "split_private_selects", "promote", *_LOWERINGS),
    # CFG form throughout: blockIP needs no tree; LLVM's SROA stood in for promote (pipeline.read_module_ref),
    # and the split variables stay in private memory, now each a known object
    "gen-blockip": ("convergence", "split_private_selects", *_LOWERINGS),
}


# Target passes whose output the validator checks in every compile, wherever they changed the function (all
# passes are checked under --verify-each). reroll rebuilds loops out of repeated straight-line code, and a
# slip there (fuzz program all-59946: a carried phi merging an i32 and an i1) left exit 0 and a module
# spirv-val refuses. It changes few kernels (10 of the corpus's 180 at -O2, none at -O0), and the validator
# takes about 7 us an instruction of those.
CHECKED_WHEN_CHANGED = frozenset(("reroll",))

# each pipeline's passes after the generic ones, with the mark each leaves in Function.target_passes: made
# once, as lower_for runs on every function a backend selects and is nearly always a no-op there (its
# loop over the pipeline making each mark's text was 4 us a call, three calls a kernel under Gen's auto)
_LOWERINGS_OF = {pipeline: tuple((name, f"{CAPS[pipeline].name}:{name}") for name in passes
                                 if name not in PIPELINES["generic"]) for pipeline, passes in PIPELINES.items()}


def lower_for(funcs: list[Function], pipeline: str, verify_each: bool = True) -> None:
    """Run the passes of `pipeline` that come after promote on functions that have been through the
    generic pipeline, in place (what each backend calls on its input, so that any caller gets target-ready
    IR). Each pass runs once per function (Function.target_passes records it; Gen's legalize_int_widths
    is not idempotent), so this is a no-op on IR that went through `pipeline` already (the driver's)."""
    caps = CAPS[pipeline]
    for name, done in _LOWERINGS_OF[pipeline]:
        for func in funcs:
            if done in func.target_passes:         # once only: a lowering need not be idempotent
                continue
            func.target_passes.add(done)
            from reconverge.lowering.passes import PASSES
            if PASSES[name].run(func, caps) and (verify_each or name in CHECKED_WHEN_CHANGED):
                from reconverge.lowering.ir.validate import ValidationError, check
                problems = check(func)
                if problems:
                    raise ValidationError(func, problems, f"pass '{name}'")
