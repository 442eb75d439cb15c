"""`make demo`: the main job on the shipped examples, as a newcomer would first try it.

1. Each examples/*.cl kernel is compiled by clang-22 at -O0 and -O2, read, structurized and validated;
   the tree of the NIR document's example is printed; .nir and .dot files go to out/demo/ (and .svg
   pictures when GraphViz is installed).
2. Each kernel then runs on the IR interpreter and on llvmlite's JIT of the original LLVM IR, with the
   inputs its RUN header asks for, and the lanes are compared.
3. Each example is compiled to SPIR-V by the command line (checked by spirv-val), its disassembly is
   written to out/demo/, and it runs on Mesa's lavapipe Vulkan driver against the JIT, lane by lane.
4. Each example is compiled to Gen9 by the command line (a kernel container and its iga64-syntax
   text in out/demo/), and runs on the SIMD simulator in SIMD16 against the JIT, lane by lane.
5. The Gen9 example (examples/divergent_loop.asm) is assembled by reconverge, checked byte for byte
   against iga64, disassembled, and run on the SIMD simulator; its lanes are checked against a per-lane
   Python reading of the program, and the lane-activity picture is written.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
OUT = os.path.join(ROOT, "out", "demo")


def _section(title: str) -> None:
    print(f"\n=== {title} ===")


def _lowering() -> bool:
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.lowering.interp import run_kernel
    from reconverge.lowering.ir.printer import print_function
    from reconverge.lowering.pipeline import compile_llvm, dump_function
    from reconverge.tools.targets.jit_oracle import run_llvm_kernel
    from reconverge.tools.testing.kernel_spec import parse_specs

    ok = True
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl"))):
        name = os.path.basename(path)
        for level in ("-O0", "-O2"):
            llvm_text = compile_opencl(path, level)
            funcs = compile_llvm(llvm_text, path, verify_each=True)
            for func in funcs.values():
                for written in dump_function(func, OUT, f"{level[1:]}", inputs=[path]):
                    if written.endswith(".dot") and shutil.which("dot"):
                        subprocess.run(["dot", "-Tsvg", written, "-o", written[:-4] + ".svg"], check=False)
            if name == "seed.cl" and level == "-O0":
                _section("examples/seed.cl at -O0: the NIR document's example as a structured tree")
                print(print_function(funcs["seed"]), end="")
            for spec in parse_specs(path):
                want, got = spec.make_args(1), spec.make_args(1)
                run_llvm_kernel(llvm_text, spec.kernel, want, spec.global_size, spec.local_size)
                run_kernel(funcs[spec.kernel], got, spec.global_size, spec.local_size)
                same = all(np.array_equal(a, b) for a, b in zip(want, got) if isinstance(a, np.ndarray))
                ok &= same
                print(f"{name:24s} {level}  @{spec.kernel:20s} valid tree; interpreter vs JIT: "
                      f"{'all lanes agree' if same else 'MISMATCH'}")
    print(f"text IR, CFG and tree pictures: {os.path.relpath(OUT, ROOT)}/")
    return ok


def _examples_on(target: str, emits: tuple, flags: list[str], backend=None, ulps: bool = False) -> bool:
    """Each example compiled by the command line (`emits`: (emit kind, file suffix) pairs written to
    out/demo/), then run on `target` against the JIT lane by lane; floats exact unless `ulps` (the
    target's math-box tolerance). Returns whether every kernel agreed."""
    from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target
    from reconverge.tools.testing.float_policy import float_ulps
    from reconverge.tools.testing.kernel_spec import parse_specs

    cli = [sys.executable, "-m", "reconverge.tools.cli"]
    ok = True
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl"))):
        stem = os.path.join(OUT, os.path.basename(path)[:-3])
        for emit, suffix in emits:
            subprocess.run(cli + ["compile", path, "-O2", "--emit", emit, *flags, "-o", stem + suffix],
                           check=True, cwd=ROOT)
        program = load_program(path, "-O2")
        for spec in parse_specs(path):
            func = program.function(spec.kernel, target)
            ref = run_target("llvm", program, spec.kernel, spec.make_args(1), spec.global_size, spec.local_size)
            got = run_target(target, program, spec.kernel, spec.make_args(1), spec.global_size, spec.local_size,
                             backend)
            problems = compare(ref, got, [p.name for p in kernel_params(func)],
                               float_ulps=float_ulps(func) if ulps else 0, labels=("llvm", target))
            ok &= not problems
            what = f"{os.path.getsize(stem + '.spv') // 4} words, spirv-val ok; lavapipe" if target == "spirv" \
                else "simulator"
            print(f"{os.path.basename(path):24s} -O2  @{spec.kernel:20s} {what} vs JIT: "
                  f"{'all lanes agree' if not problems else '; '.join(problems)}")
    return ok


def _spirv() -> bool:
    _section("examples/*.cl -> SPIR-V (spirv-val), run on lavapipe against the JIT")
    ok = _examples_on("spirv", (("spirv", ".spv"), ("spirv-asm", ".spvasm")), ["--validate"])
    print(f"SPIR-V binaries and disassembly: {os.path.relpath(OUT, ROOT)}/*.spv, *.spvasm")
    return ok


def _gen_compile() -> bool:
    from reconverge.tools.targets.harness import GenRunOptions
    _section("examples/*.cl -> Gen9 (SIMD16), run on the simulator against the JIT")
    ok = _examples_on("gen", (("gen", ".gen"), ("gen-asm", ".gen.asm")), [], GenRunOptions(16), ulps=True)
    print(f"Gen9 kernel containers and their text: {os.path.relpath(OUT, ROOT)}/*.gen, *.gen.asm")
    return ok


def _divergent_loop_reference(lane: int) -> int:
    """examples/divergent_loop.asm written for one lane, to check the simulator's lanes against."""
    total, n = 0, lane
    while True:
        total += n
        total += 100 if total & 1 else -1
        if total > 300:
            break
        n -= 3
        if n <= 0:
            break
    return total


def _gen9() -> bool:
    from reconverge.isa.gen9.encoding import decode_program
    from reconverge.isa.gen9.simulator import Trace, run_program
    from reconverge.tools.lane_picture import trace_picture

    asm = os.path.join(ROOT, "examples", "divergent_loop.asm")
    _section("examples/divergent_loop.asm: Gen9 assembler vs iga64, disassembly, simulation")
    krn = os.path.join(OUT, "divergent_loop.krn")
    cli = [sys.executable, "-m", "reconverge.tools.cli"]
    subprocess.run(cli + ["asm", asm, "-o", krn], check=True, cwd=ROOT)
    ours = open(krn, "rb").read()
    ok = True
    if shutil.which("iga64"):
        ref = os.path.join(OUT, "divergent_loop.iga64.krn")
        subprocess.run(["iga64", "-p=9", "-a", asm, "-o", ref], check=True, capture_output=True)
        same = open(ref, "rb").read() == ours
        ok &= same
        print(f"{len(ours) // 16} instructions; bytes {'identical to' if same else 'DIFFER from'} iga64's")
    print(subprocess.run(cli + ["disasm", krn], check=True, cwd=ROOT, capture_output=True, text=True).stdout)
    surface = np.zeros(16, np.uint32)
    trace = Trace()
    trace.about.update(simd=16, threads=1)
    run_program(decode_program(ours), simd=16, surfaces={0: surface}, trace=trace)
    want = np.array([_divergent_loop_reference(i) for i in range(16)], np.int64).astype(np.uint32)
    same = np.array_equal(surface, want)
    ok &= same
    print(f"simulated SIMD16 lanes: {surface.view(np.int32).tolist()}")
    print(f"per-lane reference:     {'all lanes agree' if same else want.view(np.int32).tolist()}")
    png = os.path.join(OUT, "divergent_loop.png")
    with open(png, "wb") as f:
        f.write(trace_picture(trace, png, asm))
    print(f"lane-activity picture: {os.path.relpath(png, ROOT)}")
    return ok


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    ok = _lowering()
    ok &= _spirv()
    ok &= _gen_compile()
    ok &= _gen9()
    print("\ndemo:", "everything checked out" if ok else "SOMETHING DISAGREED (see above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
