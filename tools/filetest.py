"""Filetests: IR text files (and Gen machine-IR text files) that say what to run on themselves and what
it must print.

    ; test: validate | pass NAME [for TARGET] | spirv-asm | print | divergence | gen-mir [simd N] [cf MODE]
    ;       | gen-asm [simd N] [cf MODE]                       (FILE.nir: the IR, as --emit nir prints it)
    ; test: regalloc [first N] | emit [first N]                (FILE.mir: machine IR, as --emit gen-mir prints it)
    ; run: --global 8 --arg out=zeros:8:int32 --arg n=3      (any number; on the interpreter)
    kernel @k(...) { ... }
    ; expect:
    ; <the output, one comment line per line>

`test` runs on every function of the file: `validate` prints "valid" or the function with each broken rule
marked; `pass NAME` runs one pass (for a target's capabilities: `pass lower_math_edges for spirv`; then
the validator) and prints the result; `spirv-asm` compiles to SPIR-V and disassembles it with spirv-dis;
`print` prints the function as read (a round trip); `divergence` prints it with the divergence analysis's
marks (`div`/`con`, lowering/analysis/divergence.py). `gen-mir` selects the Gen machine IR after the
target's lowerings (SIMD 8 or 16, default 16; control flow `structured` for structured IR, `blockip`, the
default for CFG IR, or `hybrid`); `gen-asm` compiles through register allocation and prints iga64
syntax. On a .mir file, `regalloc` allocates registers (GRFs from `first`, default 8) and prints the
function after it (with any spill code) and each register's home; `emit` allocates and prints the Gen9
assembly. Each `run:` line runs `reconverge run --target ir` with those arguments on the IR the test
printed (`pass`, `print`), else on the file itself, and prints every buffer after the run. The output
must equal the `; expect:` block; `--bless` rewrites that block with the output instead.

    python -m reconverge.tools.filetest [--bless] FILE.nir|FILE.mir ...
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import sys
import tempfile
from typing import Any

import numpy as np

EXPECT = "; expect:"


def split(text: str) -> tuple[str, list[str], str, str]:
    """(test command, run lines, the file's text before the expect block, the expected output)."""
    head, _, expected = text.partition("\n" + EXPECT + "\n")
    test, runs = "", []
    for line in head.splitlines():
        if line.startswith("; test:"):
            test = line[len("; test:"):].strip()
        elif line.startswith("; run:"):
            runs.append(line[len("; run:"):].strip())
    out = "\n".join(line[2:] if line.startswith("; ") else line[1:] for line in expected.splitlines())
    return test, runs, head.rstrip("\n") + "\n", out + "\n" if out else ""


def _functions(path: str, text: str):
    from reconverge.lowering.ir.parser import parse_module
    return list(parse_module(text, path).functions.values())


# control-flow mode -> (the pipeline whose IR it compiles, the selector's settings): backend.gen's modes
# that a file names (auto chooses between two pipelines' functions; a filetest holds one function)
GEN_CF: dict[str, tuple[str, dict[str, Any]]] = {
    "structured": ("gen", {}), "blockip": ("gen-blockip", {}), "hybrid": ("gen-blockip", {"regions": True})}


def _settings(path: str, test: str, allowed: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """`simd 8 cf hybrid` -> {"simd": "8", "cf": "hybrid"}, each key and value checked."""
    words = test.split()[1:]
    out: dict[str, str] = {}
    for key, value in zip(words[::2], words[1::2]):
        if key not in allowed or (allowed[key] and value not in allowed[key]):
            known = ", ".join(f"{k} {'|'.join(v) or 'N'}" for k, v in allowed.items())
            raise ValueError(f"{path}: '{test}': unknown setting '{key} {value}' (settings: {known})")
        out[key] = value
    if len(words) % 2:
        raise ValueError(f"{path}: '{test}': '{words[-1]}' has no value")
    return out


def run_gen_test(path: str, test: str, text: str) -> str:
    """gen-mir and gen-asm on IR text: what the Gen backend makes of every function of the file."""
    from reconverge.backend.gen import compile_gen_kernel, select_any
    from reconverge.backend.gen.mir_printer import print_mfunction
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.encoding import encode_program
    from reconverge.lowering.ir.validate import verify
    settings = _settings(path, test, {"simd": ("8", "16"), "cf": tuple(GEN_CF)})
    simd = int(settings.get("simd", "16"))
    out = []
    for func in _functions(path, text):
        verify(func, "reading")
        mode = settings.get("cf", "structured" if func.is_structured else "blockip")
        pipeline, options = GEN_CF[mode]
        if func.is_structured != (pipeline == "gen"):
            raise ValueError(f"{path}: @{func.name}: cf {mode} compiles "
                             f"{'structured' if pipeline == 'gen' else 'CFG'} IR; this function is not")
        if test.split()[0] == "gen-mir":
            out.append(print_mfunction(select_any(func, simd, **options)))
        else:
            code = encode_program(compile_gen_kernel(func, simd, **options).program)
            out.append(f"// kernel {func.name}: SIMD{simd} cf {mode}, {len(code)} bytes\n{disassemble(code)}")
    return _trimmed("".join(out))


def _trimmed(text: str) -> str:
    """Without the disassembler's column padding at line ends (an expect block keeps none)."""
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def run_mir_test(path: str, test: str, text: str) -> str:
    """regalloc and emit on machine-IR text: the register allocator's and the emitter's output."""
    from reconverge.backend.gen.emit import emit
    from reconverge.backend.gen.mir_parser import parse_mfunctions
    from reconverge.backend.gen.mir_printer import print_mfunction
    from reconverge.backend.gen.mir_verify import verify
    from reconverge.backend.gen.regalloc import allocate
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.encoding import encode_program
    first = int(_settings(path, test, {"first": ()}).get("first", "8"))
    out = []
    for func in parse_mfunctions(text, path):
        problems = verify(func)
        if problems:
            out.append(f"{func.name}: invalid machine IR: {problems[0]}\n")
            continue
        home, spilled = allocate(func, first)
        if test.split()[0] == "regalloc":
            out.append(print_mfunction(func) + f"spilled {spilled} bytes\n")
            out += [f"%v{i} -> r{home[i]}\n" for i in sorted(home)]
        else:
            out.append(disassemble(encode_program(emit(func, home))))
    return _trimmed("".join(out))


def run_test(path: str, test: str, text: str) -> str:
    """What the `test` command prints for the IR in `text`."""
    from reconverge.lowering.ir.printer import print_function
    from reconverge.lowering.ir.validate import annotated, check, verify
    word, _, rest = test.partition(" ")
    if word in ("regalloc", "emit"):
        return run_mir_test(path, test, text)
    if word in ("gen-mir", "gen-asm"):
        return run_gen_test(path, test, text)
    funcs = _functions(path, text)
    if word == "validate":
        out = []
        for func in funcs:
            problems = check(func)
            out.append(f"@{func.name}: valid\n" if not problems else annotated(func, problems))
        return "".join(out)
    if word == "print":
        return "".join(print_function(f) for f in funcs)
    if word == "divergence":
        from reconverge.lowering.analysis.divergence import analyze
        for func in funcs:
            verify(func, "reading")
        return "".join(print_function(f, analyze(f)) for f in funcs)
    if word == "pass":
        from reconverge.lowering.passes import PASSES
        from reconverge.lowering.target import CAPS
        name, _, target = rest.partition(" for ")
        if name not in PASSES or (target or "generic") not in CAPS:
            raise ValueError(f"{path}: unknown pass '{rest}' (passes: {', '.join(PASSES)}; "
                             f"'for TARGET' with TARGET one of {', '.join(CAPS)})")
        for func in funcs:
            verify(func, "reading")
            PASSES[name].run(func, CAPS[target or "generic"])
            verify(func, name)
        return "".join(print_function(f) for f in funcs)
    if word == "spirv-asm":
        from reconverge.backend.spirv import compile_spirv
        from reconverge.backend.spirv.tools import disassemble
        for func in funcs:
            verify(func, "reading")
        return disassemble(compile_spirv(funcs))
    raise ValueError(f"{path}: unknown test '{test}' (validate, print, divergence, pass NAME, spirv-asm, gen-mir, "
                     "gen-asm, regalloc, emit)")


def run_line(path: str, arguments: str) -> str:
    """`reconverge run PATH --target ir ARGUMENTS`, and every buffer it wrote, one line each."""
    from reconverge.tools.cli import main
    with tempfile.TemporaryDirectory() as out_dir:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["run", path, "--target", "ir", "--out", out_dir, *shlex.split(arguments)])
        if status != 0:
            return f"run {arguments}: exit {status}: {err.getvalue().strip()}\n"
        lines = [f"run {arguments}:"]
        for name in sorted(os.listdir(out_dir)):
            values = np.load(os.path.join(out_dir, name))
            lines.append(f"  {name[:-4]} = {np.array2string(values, separator=', ', max_line_width=10**6)}")
        return "\n".join(lines) + "\n"


def actual_output(path: str) -> tuple[str, str, str]:
    """(the file's text without its expect block, the expected output, the actual output)."""
    with open(path) as f:
        text = f.read()
    test, runs, head, expected = split(text)
    out = run_test(path, test, head) if test else ""
    if runs and test.split(" ")[0] in ("pass", "print"):
        # run the IR the pass produced, so the run: lines check what the pass did
        with tempfile.TemporaryDirectory() as tmp:
            produced = os.path.join(tmp, os.path.basename(path))
            with open(produced, "w") as f:
                f.write(out)
            for arguments in runs:
                out += run_line(produced, arguments)
        return head, expected, out
    for arguments in runs:
        out += run_line(path, arguments)
    return head, expected, out


def bless(path: str) -> bool:
    """Rewrite the expect block with the actual output; True if the file changed."""
    head, expected, out = actual_output(path)
    if out == expected:
        return False
    block = "".join(f"; {line}".rstrip() + "\n" for line in out.splitlines())
    with open(path, "w") as f:
        f.write(head + EXPECT + "\n" + block)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reconverge.tools.filetest",
                                     description="run or bless IR filetests")
    parser.add_argument("--bless", action="store_true", help="write the actual output into each file")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    from reconverge.lowering.errors import CompileError
    failed = 0
    for path in args.files:
        try:
            if args.bless:
                if bless(path):
                    print(f"blessed {path}")
                continue
            _, expected, out = actual_output(path)
        except (CompileError, OSError) as e:       # a malformed test file: its one line, not a traceback
            failed += 1
            print(f"FAIL {path}: {e}")
            continue
        if out != expected:
            failed += 1
            print(f"FAIL {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
