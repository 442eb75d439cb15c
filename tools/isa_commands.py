"""`reconverge asm` and `reconverge disasm`: the Gen9 assembler and disassembler on the command line.

    reconverge asm INPUT.asm -o OUT.krn [--compact]   (iga64 syntax in, raw Gen9 binary out)
    reconverge disasm INPUT.krn [-o OUT|-] [--fields] [--format text|json]
                                                     (iga64 -p=9 -d text out, or every field)
    reconverge diff A.krn B.krn [--format text|json]  (the fields that differ; exit 1 when they do)

Bad input raises CompileError (printed by tools/cli.py as one line, exit 1); output is written to a
temporary file in the target directory and renamed, so a failure never leaves a partial file.
"""
from __future__ import annotations

import json
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


def _decoded(name: str, what):
    """Run a decoding step; whatever the bytes make it fail on is a one-line error naming the file."""
    try:
        return what()
    except IsaError as e:
        raise CompileError(f"{name}: {e}") from None
    except (KeyError, ValueError, IndexError) as e:
        raise CompileError(f"{name}: cannot decode: {e}") from None


def _disasm(args) -> None:
    from isa.gen9.disassembler import disassemble
    from isa.gen9.inspect import format_fields, inspect
    data = _read(args.input, binary=True)
    name = "<stdin>" if args.input == "-" else args.input
    if args.format == "json":
        views = _decoded(name, lambda: inspect(data))
        doc = {"schema": "reconverge-gen9-disasm/1", "input": name,
               "instructions": [v.as_dict() for v in views]}
        write_output(args.output, (json.dumps(doc, indent=1) + "\n").encode())
    elif args.fields:
        write_output(args.output, _decoded(name, lambda: format_fields(inspect(data))).encode())
    else:
        write_output(args.output, _decoded(name, lambda: disassemble(data)).encode())


def _diff(args) -> None:
    from isa.gen9.inspect import diff
    a, b = _read(args.a, binary=True), _read(args.b, binary=True)
    changes = _decoded(f"{args.a}, {args.b}", lambda: diff(a, b))
    if args.format == "json":
        text = json.dumps({"schema": "reconverge-gen9-diff/1", "a": args.a, "b": args.b,
                           "changes": [c.as_dict() for c in changes]}, indent=1) + "\n"
    else:
        lines = []
        for c in changes:
            where = f"#{c.index} @{c.offset_a if c.offset_a is not None else '-'}"
            lines.append(f"{where}: - {c.text_a or '(none)'}")
            lines.append(f"{' ' * len(where)}  + {c.text_b or '(none)'}")
            if c.form_a and c.form_b and c.form_a != c.form_b:
                lines.append(f"{' ' * len(where)}    form {c.form_a} -> {c.form_b}")
            lines += [f"{' ' * len(where)}    {n}: {_hex(x)} -> {_hex(y)}" for n, x, y in c.fields]
            lines += [f"{' ' * len(where)}    (expanded) {n}: {_hex(x)} -> {_hex(y)}" for n, x, y in c.expanded]
        lines.append(f"{len(changes)} instruction{'s' * (len(changes) != 1)} differ")
        text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    sys.stdout.flush()
    if changes:
        raise SystemExit(1)


def _hex(v: int | None) -> str:
    return "absent" if v is None else f"{v:#x}"


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
    d.add_argument("--fields", action="store_true",
                   help="show each instruction's offset, bytes and every field of its form: name, bit range, raw "
                        "value and meaning (compacted ones also their compact fields and expansion)")
    d.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: the --fields data as JSON (schema reconverge-gen9-disasm/1, see the README)")
    d.set_defaults(func=_disasm)
    f = subparsers.add_parser("diff", help="field-level difference of two Gen9 binaries (exit 1 if they differ)")
    f.add_argument("a", help="first binary")
    f.add_argument("b", help="second binary")
    f.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: the changes as JSON (schema reconverge-gen9-diff/1)")
    f.set_defaults(func=_diff)
