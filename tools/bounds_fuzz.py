"""On demand: random kernels that access memory out of bounds, which every target must refuse in one line.

    python -m reconverge.tools.bounds_fuzz [-n N] [--seed S] [--time-budget 10m] [--save-dir DIR]

Why: `reconverge fuzz` generates programs free of undefined behaviour by construction, so no campaign
ever ran an access outside its object, and four targets answered such runs with exit 0 until a red-team
pass tried some by hand; this tool's first runs found two more (an overrun from one private or __local
array into its neighbour on gen, and lavapipe crashing on a checked module's negative __local index).

Each case is one kernel with one to three arrays in one memory space (a buffer argument, a private array,
a kernel-scope __local array, a __local parameter, a __constant table or a program-scope `global` variable)
of one element type and random lengths. One array is
written or read at an index taken from an input buffer, in straight code, under a data-dependent if, or in
a two-iteration loop; in the out-of-bounds run one work-item's index lies before the array's start or past
its end (by one element, into a neighbour, or far), and every configuration (llvm, ir, spirv and gen at
-O0 and -O2, gen at a random width and --cf mode, opencl) must exit 1 with one line naming an out-of-bounds
access (the llvm reference's fault, reported by its isolating child, names SIGSEGV), except where clang's
-O2 removed the access (it may assume an index inside its array: `a[i]` of a one-element array becomes
`a[0]`): where ir answers the -O2 module, every -O2 configuration must print what ir prints. The twin
run, every index inside its array, must exit 0 on every target with the buffers ir prints (a program-scope
variable: spirv and opencl refuse it in one line, Vulkan and PoCL having no writable program-scope memory,
where opencl's bounds check has not refused the bad run first). A case that fails is saved
as DIR/case-SEED.cl with the commands and what they printed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

SPACES = ("global", "private", "local", "local_param", "constant", "program")
NO_PROGRAM_SCOPE = ("spirv", "opencl")     # targets that refuse a writable program-scope variable
TYPES = {"int": "int32", "uchar": "uint8", "short": "int16", "float": "float32", "long": "int64"}
SHAPES = ("straight", "if", "loop")
LEVELS = ("-O0", "-O2")
ERROR_WORDS = ("out-of-bounds", "out of bounds", "SIGSEGV")


@dataclass
class Case:
    seed: int
    source: str
    items: int                      # one work-group of this many items
    args: list[str]                 # --arg values but the index buffer's
    good: np.ndarray | None         # every index inside its array (None: no index keeps a loop inside)
    bad: np.ndarray                 # one work-item's index outside it
    simd: int
    cf: str
    about: str
    space: str = "global"


def make_case(seed: int) -> Case:
    """The kernel and the two index buffers of case `seed`."""
    rng = random.Random(seed)
    space, ctype = rng.choice(SPACES), rng.choice(list(TYPES))
    lengths = [rng.randint(1, 9) for _ in range(rng.randint(1, 3))]
    which, write, shape = rng.randrange(len(lengths)), rng.random() < 0.6, rng.choice(SHAPES)
    write = write and space != "constant"
    items = rng.choice((4, 8, 16))
    bad_lane = rng.randrange(items)
    shared = space not in ("private", "constant")        # one item accesses it (else items would race)
    scope = {"constant": "constant", "program": "global"}.get(space)    # arrays at program scope
    names = [f"a{k}" for k in range(len(lengths))]
    params = ["global int *out", "global const int *idx"]
    args = [f"out=zeros:{items}:int32"]
    body = ["uint i = get_global_id(0); int s = 0;"]
    tables = "".join(f"{scope} {ctype} {n}[{length}] = {{{', '.join(str(j + 1) for j in range(length))}}};\n"
                     for n, length in zip(names, lengths)) if scope else ""
    if space == "global":
        params += [f"global {ctype} *{n}" for n in names]
        args += [f"{n}=zeros:{length}:{TYPES[ctype]}" for n, length in zip(names, lengths)]
    elif space == "local_param":
        params += [f"local {ctype} *{n}" for n in names]
        args += [f"{n}=local:{length}:{TYPES[ctype]}" for n, length in zip(names, lengths)]
    for n, length in zip(names, lengths):
        if scope:
            continue
        if space == "private":
            body.append(f"{ctype} {n}[{length}];")
        elif space == "local":
            body.append(f"local {ctype} {n}[{length}];")
        init = f"for (int j = 0; j < {length}; j++) {n}[j] = ({ctype})(j + 1);"
        body.append(init if space == "private" else f"if (i == 0) {{ {init} }}")
    if shared:
        body.append("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
    target = names[which]
    step = "k" if shape == "loop" else "0"
    access = f"{target}[idx[i] + {step}] = ({ctype})(7 + i);" if write else f"s += (int){target}[idx[i] + {step}];"
    if shape == "loop":
        access = f"for (int k = 0; k < 2; k++) {{ {access} }}"
    elif shape == "if":
        access = f"if (idx[i] > -1000000) {{ {access} }}"
    body.append(f"if (i == {bad_lane}) {{ {access} }}" if shared else access)
    if shared:
        body.append("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
    body.append("out[i] = s" + "".join(f" + (int){n}[(i + {k}) % {length}]"
                                       for k, (n, length) in enumerate(zip(names, lengths))) + ";")
    source = tables + f"kernel void k({', '.join(params)}) {{\n    " + "\n    ".join(body) + "\n}\n"
    span = lengths[which] - (1 if shape == "loop" else 0)   # indices whose every access is inside
    good = np.array([rng.randrange(max(span, 1)) for _ in range(items)], np.int32)
    if span < 1:                                          # (a one-element array in the loop: no good index)
        good[:] = 0
    bad = good.copy()
    past = rng.choice((span, span + rng.randint(1, 12), -1, -1 - rng.randint(1, 12), 1000))
    bad[bad_lane] = past
    about = (f"{space} {ctype}[{', '.join(map(str, lengths))}], {'write' if write else 'read'} {target} "
             f"({shape}), work-item {bad_lane} at index {past}")
    return Case(seed, source, items, args, good if span >= 1 else None, bad, rng.choice((8, 16)),
                rng.choice(("auto", "structured", "blockip", "hybrid")), about, space)


def _argv(path: str, case: Case, indices: str, target: str, level: str) -> list[str]:
    argv = ["run", path, level, "--target", target, "--global", str(case.items), "--local", str(case.items),
            "--arg", f"idx=@{indices}", "--print"]
    for a in case.args:
        argv += ["--arg", a]
    if target == "gen":
        argv += ["--simd", str(case.simd), "--cf", case.cf]
    return argv


def run(argv: list[str]) -> tuple[int, str, str]:
    """`reconverge ARGV`: in this process (the llvm target isolates itself in a child), except the
    opencl target, whose child would wait for an OpenCL driver's threads if this process started them."""
    if "opencl" in argv:
        done = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *argv], capture_output=True,
                              text=True, timeout=300)
        return done.returncode, done.stdout, done.stderr
    from reconverge.tools.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def configurations() -> list[tuple[str, str]]:
    return [(t, level) for t in ("ir", "llvm", "spirv", "gen") for level in LEVELS] + [("opencl", "-O0")]


def check_case(case: Case, work: str) -> list[str]:
    """What went wrong with `case` (nothing: every target refused the bad run and agreed on the good one)."""
    path = os.path.join(work, f"case-{case.seed}.cl")
    with open(path, "w") as f:
        f.write(case.source)
    problems = []
    indices = {}
    for name, values in (("bad", case.bad), ("good", case.good)):
        if values is not None:
            indices[name] = os.path.join(work, f"{name}-{case.seed}.npy")
            np.save(indices[name], values)
    printed: dict[str, str] = {}
    answered: dict[str, str] = {}           # level -> what ir printed where LLVM's -O2 removed the access
    for target, level in configurations():
        code, out, err = run(_argv(path, case, indices["bad"], target, level))
        lines = err.strip().splitlines()
        if _no_program_scope(case, target, code, lines):
            continue
        if target == "ir" and level != "-O0" and code == 0:
            answered[level] = _buffers(out)      # (UB: LLVM may assume the index in bounds and fold it)
        if level in answered:
            if code != 0 or _buffers(out) != answered[level]:
                problems.append(f"{target} {level} (out of bounds, removed at {level}): exit {code}, not ir's "
                                f"answer: {' | '.join(lines)[:300] or out[:200]}")
        elif code != 1 or len(lines) != 1 or not lines[0].startswith("reconverge: error:") or \
                "internal error" in lines[0] or not any(w in lines[0] for w in ERROR_WORDS):
            problems.append(f"{target} {level} (out of bounds): exit {code}: {' | '.join(lines)[:300] or out[:200]}")
        if "good" not in indices:
            continue
        code, out, err = run(_argv(path, case, indices["good"], target, level))
        if _no_program_scope(case, target, code, err.strip().splitlines()):
            continue
        if code != 0:
            problems.append(f"{target} {level} (in bounds): exit {code}: {err.strip()[:300]}")
            continue
        printed[f"{target} {level}"] = _buffers(out)
    answers = set(printed.values())
    if len(answers) > 1:
        reference = printed.get("ir -O0")
        problems += [f"{c} (in bounds) printed {text!r}, ir -O0 {reference!r}" for c, text in printed.items()
                     if text != reference]
    return problems


def _no_program_scope(case: Case, target: str, code: int, lines: list[str]) -> bool:
    """Whether `target` refused the case's program-scope variables in one line, as it must."""
    return case.space == "program" and target in NO_PROGRAM_SCOPE and code == 1 and len(lines) == 1 and \
        "program scope" in lines[0].replace("-", " ") and "internal error" not in lines[0]


def _buffers(printed: str) -> str:
    """What `run --print` printed but its last line (the target's name and time)."""
    return "\n".join(line for line in printed.splitlines() if not line.startswith("@"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bounds_fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="cases (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="the first case's seed (default 0)")
    ap.add_argument("--time-budget", default=None, help="stop starting cases after this long (e.g. 10m)")
    ap.add_argument("--save-dir", default="bounds-fuzz-failures", help="where failing cases go")
    args = ap.parse_args(argv)
    budget = None if args.time_budget is None else float(args.time_budget.rstrip("ms")) * (
        60 if args.time_budget.endswith("m") else 1)
    start, failing, done = time.monotonic(), 0, 0
    with tempfile.TemporaryDirectory() as work:
        for seed in range(args.seed, args.seed + args.n):
            if budget is not None and time.monotonic() - start > budget:
                break
            case = make_case(seed)
            problems = check_case(case, work)
            done += 1
            if problems:
                failing += 1
                os.makedirs(args.save_dir, exist_ok=True)
                with open(os.path.join(args.save_dir, f"case-{seed}.cl"), "w") as f:
                    f.write(f"// {case.about}\n// bad indices {case.bad.tolist()}\n" +
                            "".join(f"// {p}\n" for p in problems) + case.source)
            print(f"[{done}] case {seed}: {case.about}: {'; '.join(problems) if problems else 'ok'}", flush=True)
    print(f"{done} cases, {failing} failing ({time.monotonic() - start:.0f} s)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
