"""`reconverge asm` and `reconverge disasm`: the Gen9 assembler and disassembler on the command line.

    reconverge asm INPUT.asm -o OUT.krn [--compact]   (iga64 syntax in, raw Gen9 binary out)
    reconverge disasm INPUT.krn [-o OUT|-] [--fields [--only NAME,..] [--all-fields]] [--format text|json]
                                                     (iga64 -p=9 -d text out, or the fields)
    reconverge disasm INPUT.krn --extract KERNEL -o OUT.krn   (one kernel's code alone, for iga64)
    reconverge disasm INPUT.krn --validate [-o OUT|-]  (the PRM restrictions each instruction breaks,
                                                     isa/gen9/validate.py; exit 1 when there are any)
    reconverge diff A.krn B.krn [--format text|json] [-o OUT|-]  (aligned by a longest common subsequence:
                                                     instructions inserted, deleted and changed, with the
                                                     fields that differ; exit 1 when anything does)

Bad input raises CompileError (printed by tools/cli.py as one line, exit 1); output is written to a
temporary file in the target directory and renamed, so a failure never leaves a partial file.
"""
from __future__ import annotations

import sys
from typing import Literal, overload

from reconverge.isa.gen9.errors import IsaError
from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import write_output
from reconverge.tools.commands import command_help
from reconverge.tools.usage import UsageError


@overload
def _read(path: str, binary: Literal[True]) -> bytes: ...
@overload
def _read(path: str, binary: Literal[False]) -> str: ...
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
    from reconverge.isa.gen9.assembler import assemble
    text = _read(args.input, binary=False)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        binary = assemble(text, name, autocompact=args.compact)
    except IsaError as e:
        raise CompileError(str(e)) from None
    write_output(args.output, binary, inputs=[args.input])


def _decoded(name: str, what):
    """Run a decoding step; whatever the bytes make it fail on is a one-line error naming the file."""
    try:
        return what()
    except IsaError as e:
        raise CompileError(f"{name}: {e}") from None
    except (KeyError, ValueError, IndexError) as e:
        raise CompileError(f"{name}: cannot decode: {e}") from None


def _disasm(args) -> None:
    import json

    from reconverge.isa.gen9.container import is_container, unpack_container
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.inspect import field_filter, format_fields, inspect
    if (args.only or args.all_fields) and not (args.fields or args.format == "json"):
        raise UsageError(f"{'--only' if args.only else '--all-fields'} applies to --fields and --format json")
    try:
        keep = field_filter([n.strip() for n in args.only.split(",") if n.strip()]) if args.only else None
    except ValueError as e:
        raise UsageError(f"--only {args.only}: {e}") from None
    data = _read(args.input, binary=True)
    name = "<stdin>" if args.input == "-" else args.input
    kernels = _decoded(name, lambda: unpack_container(data))
    many = is_container(data)
    if args.extract is not None:
        _extract(args, name, kernels)
        return
    if args.validate:
        _validate(args, name, kernels, many)
        return
    if args.format == "json":
        doc = {"schema": "reconverge-gen9-disasm/1", "input": name, "kernels": [
            {"name": k.name, "simd": k.simd, "size": len(k.code), "payload": k.payload,
             "instructions": [_filtered(v.as_dict(), keep)
                              for v in _decoded(f"{name}: {k.name}", lambda k=k: inspect(k.code))]}
            for k in kernels]}
        write_output(args.output, (json.dumps(doc, indent=1) + "\n").encode(), inputs=[args.input])
        return
    parts = []
    for k in kernels:
        where = f"{name}: {k.name}" if many else name
        text = _decoded(where, lambda k=k: format_fields(inspect(k.code), keep, args.all_fields) if args.fields
                        else disassemble(k.code))
        parts.append((f"// kernel {k.name}: SIMD{k.simd}, {len(k.code)} bytes\n" if many else "") + text)
    write_output(args.output, "\n".join(parts).encode(), inputs=[args.input])


def _extract(args, name: str, kernels) -> None:
    """disasm --extract KERNEL: that kernel's code alone (what iga64 -p=9 -d reads), never to a terminal."""
    if args.fields or args.validate or args.only or args.format != "text":
        raise UsageError("--extract writes a binary: drop --fields, --only, --validate and --format")
    if args.output in (None, "-") and sys.stdout.isatty():
        raise UsageError("--extract writes a binary: name a file with -o (or pipe it)")
    found = [k for k in kernels if k.name == args.extract]
    if not found:
        raise CompileError(f"{name}: no kernel named {args.extract!r} (kernels: "
                           f"{', '.join(k.name for k in kernels)})")
    write_output(args.output, found[0].code, inputs=[args.input])


def _filtered(instruction: dict, keep) -> dict:
    """An instruction's JSON with only the fields `keep` (--only) names (all of them without --only)."""
    if keep is not None:
        instruction["fields"] = [f for f in instruction["fields"] if keep(f["name"])]
        if "compacted" in instruction:
            instruction["compacted"]["fields"] = [f for f in instruction["compacted"]["fields"] if keep(f["name"])]
    return instruction


def _validate(args, name: str, kernels, many: bool) -> None:
    """disasm --validate: one line per violation (kernel, instruction index and offset, text, rule,
    citation), then a count; exit 1 when there is any."""
    from reconverge.isa.gen9.validate import validate_binary
    if args.fields or args.format != "text" or args.only:
        raise UsageError("--validate prints text: drop --fields, --only and --format")
    lines, total = [], 0
    for k in kernels:
        found = validate_binary(k.code)
        total += len(found)
        lines += [f"{k.name}: {v}" if many else str(v) for v in found]
    lines.append(f"{total} violation{'s' * (total != 1)} in {len(kernels)} kernel{'s' * (len(kernels) != 1)}")
    write_output(args.output, "\n".join(lines) + "\n", inputs=[args.input])
    if total:
        raise SystemExit(1)


def _diff(args) -> None:
    import json

    from reconverge.isa.gen9.container import unpack_container
    from reconverge.isa.gen9.inspect import diff
    a, b = _read(args.a, binary=True), _read(args.b, binary=True)
    ka = {k.name: k.code for k in _decoded(args.a, lambda: unpack_container(a))}
    kb = {k.name: k.code for k in _decoded(args.b, lambda: unpack_container(b))}
    if len(ka) == len(kb) == 1:                  # two single kernels: compare them whatever their names
        ka, kb = {"kernel": next(iter(ka.values()))}, {"kernel": next(iter(kb.values()))}
    names = list(dict.fromkeys([*ka, *kb]))
    changes = {n: _decoded(f"{args.a}, {args.b}: {n}", lambda n=n: diff(ka.get(n, b""), kb.get(n, b"")))
               for n in names}
    only = [n for n in names if (n in ka) != (n in kb)]
    total = sum(len(c) for c in changes.values())
    if args.format == "json":
        text = json.dumps({"schema": "reconverge-gen9-diff/2", "a": args.a, "b": args.b,
                           "only_in_one": only,
                           "changes": [dict(c.as_dict(), kernel=n) for n, cs in changes.items() for c in cs]},
                          indent=1) + "\n"
    else:
        lines = [f"kernel {n}: only in {args.a if n in ka else args.b}" for n in only]
        for n, cs in changes.items():
            if len(names) > 1 and cs:
                lines.append(f"kernel {n}:")
            lines += _diff_lines(cs)
        kinds = [c.kind for cs in changes.values() for c in cs]
        how = ", ".join(f"{kinds.count(k)} {k}" for k in ("changed", "deleted", "inserted") if k in kinds)
        lines.append(f"{total} instruction{'s' * (total != 1)} differ" + (f" ({how})" if how else ""))
        text = "\n".join(lines) + "\n"
    write_output(args.output, text, inputs=[args.a, args.b])
    if total or only:
        raise SystemExit(1)


def _diff_lines(changes) -> list[str]:
    """A kernel's aligned changes: `-` an instruction only in A, `+` one only in B (each with its index and
    offset), and a changed pair as both lines followed by the fields that differ with their meanings."""
    lines = []
    for c in changes:
        if c.kind == "deleted":
            lines.append(f"- #{c.index_a} @{c.offset_a:#06x}  {c.text_a}")
        elif c.kind == "inserted":
            lines.append(f"+ #{c.index_b} @{c.offset_b:#06x}  {c.text_b}")
        else:
            lines.append(f"~ #{c.index_a} @{c.offset_a:#06x} -> #{c.index_b} @{c.offset_b:#06x}")
            lines.append(f"  - {c.text_a}")
            lines.append(f"  + {c.text_b}")
            if c.form_a != c.form_b:
                lines.append(f"      form {c.form_a} -> {c.form_b} (the fields only one of them has: --format json)")
            for (f, x, y), (mx, my) in zip(c.fields, c.meanings):
                if x is None or y is None:
                    continue
                meant = f" ({mx} -> {my})" if (mx or my) and (mx, my) != (str(x), str(y)) else ""
                lines.append(f"      {f}: {_hex(x)} -> {_hex(y)}{meant}")
            lines += [f"      (expanded) {f}: {_hex(x)} -> {_hex(y)}" for f, x, y in c.expanded]
    return lines


def _hex(v: int | None) -> str:
    return "absent" if v is None else f"{v:#x}"


def add_commands(subparsers) -> None:
    """Register `asm` and `disasm` on the main CLI's subparsers."""
    a = subparsers.add_parser("asm", help=command_help("asm"))
    a.add_argument("input", help="assembly file (iga64 -p=9 syntax), or - for stdin")
    a.add_argument("-o", "--output", required=True, help="output binary")
    a.add_argument("--compact", action="store_true", help="compact instructions where possible "
                   "(like iga64 -Xautocompact)")
    a.set_defaults(func=_asm)
    d = subparsers.add_parser("disasm", help=command_help("disasm"))
    d.add_argument("input", help="a kernel binary or a kernel container (isa/gen9/container.py), or - for stdin")
    d.add_argument("-o", "--output", default="-", help="output text file (default: stdout)")
    d.add_argument("--fields", action="store_true",
                   help="show each instruction's offset, bytes and the fields of its form it uses: name, bit "
                        "range, raw value and meaning (compacted ones also their compact fields and expansion)")
    d.add_argument("--only", metavar="NAME,..",
                   help="with --fields or --format json: only these fields (dst, src0, src1, src2 for all of an "
                        "operand's, or field names such as exec_size,dst_type)")
    d.add_argument("--all-fields", action="store_true",
                   help="with --fields: also the fields the instruction does not use (a unary mov's src1_*)")
    d.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: the --fields data as JSON (schema reconverge-gen9-disasm/1, see the README)")
    d.add_argument("--extract", metavar="KERNEL",
                   help="write that kernel's code alone (a bare binary, what iga64 -p=9 -d reads) to -o; a bare "
                        "binary's one kernel is named 'kernel'")
    d.add_argument("--validate", action="store_true",
                   help="check every instruction against the PRM's region, type, execution-size, register, send "
                        "and branch restrictions (isa/gen9/validate.py); print the violations, exit 1 if any")
    d.set_defaults(func=_disasm)
    f = subparsers.add_parser("diff", help=command_help("diff"),
                              description="Align the two instruction sequences as diff aligns two iga64 listings "
                                          "(a longest common subsequence of their texts, then of their opcodes "
                                          "between those anchors) and print the instructions only in A (-), only "
                                          "in B (+) and changed (~, with each differing field and its meaning).")
    f.add_argument("a", help="first binary")
    f.add_argument("b", help="second binary")
    f.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: the changes as JSON (schema reconverge-gen9-diff/2)")
    f.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    f.set_defaults(func=_diff)
