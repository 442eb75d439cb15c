"""`reconverge asm` and `reconverge disasm`: the Gen9 assembler and disassembler on the command line.

    reconverge asm INPUT.asm -o OUT.krn [--compact]   (iga64 syntax in, raw Gen9 binary out)
    reconverge disasm INPUT.krn [-o OUT|-]           (iga64 -p=9 -d text out)

Bad input raises CompileError (printed by tools/cli.py as one line, exit 1); output is written to a
temporary file in the target directory and renamed, so a failure never leaves a partial file.
"""
from __future__ import annotations

import sys

from isa.gen9.errors import IsaError
from lowering.errors import CompileError
from lowering.output import write_output


def _read(path: str, binary: bool) -> bytes | str:
    try:
        if path == "-":
            return sys.stdin.buffer.read() if binary else sys.stdin.read()
        with open(path, "rb" if binary else "r", encoding=None if binary else "utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise CompileError(f"{path}: not a text file") from None
    except OSError as e:
        raise CompileError(f"{path}: cannot read: {e.strerror}") from None


def _asm(args) -> None:
    from isa.gen9.assembler import assemble
    text = _read(args.input, binary=False)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        binary = assemble(text, name, autocompact=args.compact)
    except IsaError as e:
        raise CompileError(str(e)) from None
    write_output(args.output, binary)


def _disasm(args) -> None:
    from isa.gen9.disassembler import disassemble
    data = _read(args.input, binary=True)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        text = disassemble(data)
    except IsaError as e:
        raise CompileError(f"{name}: {e}") from None
    except (KeyError, ValueError, IndexError) as e:
        raise CompileError(f"{name}: cannot decode: {e}") from None
    write_output(args.output, text.encode())


def add_commands(subparsers) -> None:
    """Register `asm` and `disasm` on the main CLI's subparsers."""
    a = subparsers.add_parser("asm", help="assemble Gen9 iga64-syntax text to a binary")
    a.add_argument("input", help="assembly file (iga64 -p=9 syntax), or - for stdin")
    a.add_argument("-o", "--output", required=True, help="output binary")
    a.add_argument("--compact", action="store_true", help="compact instructions where possible "
                   "(like iga64 -Xautocompact)")
    a.set_defaults(func=_asm)
    d = subparsers.add_parser("disasm", help="disassemble a Gen9 binary to iga64-syntax text")
    d.add_argument("input", help="binary file, or - for stdin")
    d.add_argument("-o", "--output", default="-", help="output text file (default: stdout)")
    d.set_defaults(func=_disasm)
