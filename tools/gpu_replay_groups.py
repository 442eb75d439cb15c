"""What each group of `gpu_replay record` launches: per launch, the program, kernel, arguments, sizes and
reference (tools/gpu_replay.py's docstring lists the groups). Kept apart from gpu_replay.py, whose replay
half must load nothing of the compiler."""
from __future__ import annotations

import json
import os
import re
from dataclasses import replace

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
LEVELS = ("-O0", "-O2")
CORPUS_SEED = 20261122      # tests/spirv/test_spirv_corpus.py's


def corpus():
    import glob

    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.float_policy import float_ulps
    from reconverge.tools.testing.kernel_spec import parse_specs
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
        sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))
    for path in paths:
        name = os.path.basename(path)[:-3]
        for level in LEVELS:
            program = load_program(path, level)
            for spec in parse_specs(path):
                yield {"id": f"corpus/{name}/{spec.kernel}{level}", "what": f"{name}.cl @{spec.kernel} {level}",
                       "program": program, "kernel": spec.kernel, "args": lambda s=spec: s.make_args(CORPUS_SEED),
                       "global": spec.global_size, "local": spec.local_size, "offset": spec.global_offset,
                       "reference": ("llvm", program), "ulps": float_ulps(program.functions[spec.kernel])}


def barrier():
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.barrier_cases import CASES, KERNELS, case_id, fresh_args
    for case in CASES:
        for level in LEVELS:
            program = load_program(os.path.join(KERNELS, case.file), level)
            yield {"id": f"barrier/{case_id(case)}{level}", "what": f"{case.file} @{case.kernel} {level}",
                   "program": program, "kernel": case.kernel, "args": lambda c=case: fresh_args(c),
                   "global": case.global_size, "local": case.local_size, "offset": 0,
                   "reference": ("numpy", case.expect), "ulps": 0}


def real():
    from tests.test_real_kernels import CASES, RNG_SEED, _program
    for name, case in CASES.items():
        for level in LEVELS:
            yield {"id": f"real/{name}{level}", "what": f"{case.file} {level}", "program": _program(case, level),
                   "kernel": case.file[:-3], "args": lambda c=case: c.make_args(np.random.default_rng(RNG_SEED)),
                   "global": case.global_size, "local": case.local_size, "offset": 0,
                   "reference": ("numpy", case.expect), "ulps": 0}


def cfg():
    import random

    from reconverge.tools.fuzz_structurize import spirv_launch
    from reconverge.tools.targets.harness import program_from_llvm
    from reconverge.tools.testing.cfggen import random_kernel
    from tests.spirv.test_spirv_random_cfg import EXECUTED
    for seed, blocks, depth in EXECUTED:
        program = program_from_llvm(str(random_kernel(random.Random(seed), blocks, max_loop_depth=depth)),
                                    "<cfggen>", "k")
        global_size, local_size, data = spirv_launch(seed)
        yield {"id": f"cfg/{seed}", "what": f"cfggen seed {seed}, {blocks} blocks, loop depth {depth}",
               "program": program, "kernel": "k",
               "args": lambda g=global_size, d=data: [np.zeros(g, np.int32), d.copy()],
               "global": (global_size,), "local": (local_size,), "offset": 0,
               "reference": ("llvm", program), "ulps": 0}


LONG_LOOP = """
kernel void longloop(global uint *out, uint base) {
    uint gid = get_global_id(0), x = gid;
    for (uint i = 0; i < base + gid * 1000u; i++) x = x * 1664525u + 1013904223u;
    out[gid] = x;
}
"""


def limits(scratch: str):
    """Loops longer than lavapipe runs (it refuses them; other drivers should be right)."""
    from reconverge.tools.targets.harness import load_program
    path = os.path.join(scratch, "longloop.cl")
    with open(path, "w", encoding="utf-8") as out:
        out.write(LONG_LOOP)
    program = load_program(path, "-O2")
    for base in (65000, 65536, 100000, 137000):
        yield {"id": f"limits/longloop_{base}", "what": f"a loop of {base}..{base + 63000} iterations -O2",
               "program": program, "kernel": "longloop", "args": lambda b=base: [np.zeros(64, np.uint32), np.uint32(b)],
               "global": (64,), "local": (64,), "offset": 0, "reference": ("llvm", program), "ulps": 0}


def random_program_launch(source: str, seed: int):
    """(global size, local size, arguments) for a random program of the evidence's generator."""
    m = re.search(r"__local\s+uint\s+lm\[(\d+)\]", source)
    local = int(m.group(1)) if m else 64
    global_size = 256 if 256 % local == 0 else 16 * local
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32)
    return global_size, local, [data, np.zeros(global_size, np.uint32), np.zeros(8, np.uint32),
                                np.uint32(global_size + 3)]


def subgroups(scratch: str):
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing import subgroup_kernels as sk

    def kernel(name: str, text: str):
        path = os.path.join(scratch, f"{name}.nir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return load_program(path)
    yield {"id": "subgroups/layout", "what": "sub-group ids of a (5, 3) work-group",
           "program": kernel("layout", sk.LAYOUT), "kernel": "layout", "args": lambda: [np.zeros(15, np.int32)],
           "global": (5, 3), "local": (5, 3), "offset": 0, "ulps": 0,
           "reference": ("numpy-width", lambda w: {0: sk.expected_layout(15, w)})}
    n, local = 160, 80
    for t in sk.DTYPES:
        x, y = sk.inputs(t, n, seed=int(t[1:]), wide=True)
        count = len(sk.every_op_list(t)) * n
        yield {"id": f"subgroups/every_{t}", "what": f"every sub-group operation on {t}, work-groups of {local}",
               "program": kernel(f"every_{t}", sk.every_op_kernel(t, n)), "kernel": f"every_{t}",
               "args": lambda x=x, y=y, c=count: [x.copy(), y.copy(), np.zeros(c, x.dtype), np.zeros(c, np.int32)],
               "global": n, "local": local, "offset": 0, "ulps": 0,
               "reference": ("numpy-width", lambda w, t=t, x=x, y=y: sk.expected_buffers(t, x, y, local, w))}
    for n, local in ((160, 80), (40, 20)):
        x = np.random.default_rng(local).integers(0, 1000, n).astype(np.int32)
        yield {"id": f"subgroups/divergent-{local}", "what": f"sub-group operations under an if and in a loop, "
               f"work-groups of {local}", "program": kernel("divergent", sk.divergent_kernel(n)),
               "kernel": "divergent", "args": lambda x=x, n=n: [x.copy(), np.zeros(sk.DIVERGENT_ROWS * n, np.uint32)],
               "global": n, "local": local, "offset": 0, "ulps": 0,
               "reference": ("numpy-width", lambda w, x=x, local=local: {1: sk.expected_divergent(x, local, w)})}


def irreducible():
    from reconverge.tools.fuzz_structurize import spirv_launch
    from reconverge.tools.targets.harness import program_from_llvm
    from tests.spirv.test_irreducible import SEEDS, _module
    for seed in SEEDS:
        program = program_from_llvm(str(_module(seed)), "<cfggen>", "k")
        global_size, local_size, data = spirv_launch(seed)
        yield {"id": f"irreducible/{seed}", "what": f"irreducible CFG seed {seed} "
               f"({program.function('k').guarded_cycles} guarded cycles)", "program": program, "kernel": "k",
               "args": lambda g=global_size, d=data: [np.zeros(g, np.int32), d.copy()],
               "global": (global_size,), "local": (local_size,), "offset": 0,
               "reference": ("llvm", program), "ulps": 0}


def fuzz(seed: int, count: int, modes: tuple[str, ...], scratch: str, sources: tuple[str, ...] = ()):
    """The fuzz campaign's programs seed .. seed+count-1 (`modes` in turn, as a campaign takes them), at -O0
    and -O2; then each OpenCL C file of `sources` as program `seed` of the first mode (its arguments, sizes
    and references), named after the file."""
    from reconverge.lowering.errors import CompileError
    from reconverge.tools.fuzz import MODES
    from reconverge.tools.fuzz.generator import generate
    from reconverge.tools.fuzz.runner import REFERENCE, Config, ProgramRun
    from reconverge.tools.testing.float_policy import FLOAT_ULPS_APPROXIMATE

    def buffers(results: list) -> dict:
        return {i: r for i, r in enumerate(results) if isinstance(r, np.ndarray)}

    def once(run: ProgramRun) -> list:      # llvm -O0's buffers, run once for both levels
        if run.reference is None:
            run.reference = run.execute(REFERENCE)
        return run.reference
    modes = modes or MODES
    programs = [generate(s, modes[s % len(modes)]) for s in range(seed, seed + count)]
    if sources:
        base = generate(seed, modes[0])     # whose arguments, sizes and references each file takes
        for path in sources:
            with open(path, encoding="utf-8") as f:
                programs.append(replace(base, source=f.read(), mode=os.path.splitext(os.path.basename(path))[0]))
    for fuzz_program in programs:
        run = ProgramRun(fuzz_program, os.path.join(scratch, "fuzz"))
        for level in LEVELS:
            if fuzz_program.uses_subgroups:     # (at the campaign's level for it: runner.reference_level)
                at = run.reference_level(Config("spirv", level))
                reference: tuple = ("numpy-width", lambda w, run=run, at=at: buffers(run.reference_for(w, at)))
            else:
                reference = ("numpy", lambda _args, run=run: buffers(once(run)))
            try:
                program = run.load(level)
            except CompileError as exc:
                print(f"fuzz/{fuzz_program.name}{level}: not recorded: {exc}")
                continue
            yield {"id": f"fuzz/{fuzz_program.name}{level}", "what": f"fuzz {fuzz_program.name} {level}",
                   "program": program, "kernel": fuzz_program.kernel, "args": fuzz_program.make_args,
                   "global": (fuzz_program.global_size,), "local": (fuzz_program.local_size,), "offset": 0,
                   "reference": reference, "ulps": FLOAT_ULPS_APPROXIMATE if fuzz_program.uses_approx else 0}


def _fresh(args: list) -> list:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def random_programs(cases_path: str | None, scratch: str):
    from reconverge.tools.targets.harness import load_program
    if cases_path is None:
        return
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    seen = set()
    for case in cases:
        source = case.get("source")
        if not source or source in seen:
            continue
        seen.add(source)
        number = re.search(r"(\d+)", case.get("id", "")) or re.search(r"(\d+)", str(len(seen)))
        assert number is not None       # the second search finds the count's digits
        seed = int(number.group(1))
        path = os.path.join(scratch, f"random_{seed}.cl")
        with open(path, "w", encoding="utf-8") as out:
            out.write(source)
        global_size, local, args = random_program_launch(source, seed)
        yield {"id": f"random/{seed}", "what": f"{case.get('id', path)} -O2 (reference llvm -O0)",
               "program": load_program(path, "-O2"), "kernel": "k", "args": lambda a=args: _fresh(a),
               "global": (global_size,), "local": (local,), "offset": 0,
               "reference": ("llvm", load_program(path, "-O0")), "ulps": 0}
