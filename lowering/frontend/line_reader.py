"""A printed function body read in one pass, line by line, straight into IR.

Why: the two-pass way (llvm_text.read_function_text made a record of every instruction from its regex
tokens, then the reader read the records) cost about 20 us per instruction: 5 of the 6.6 CPU s of reading
the 100,000-block generated kernel. Here the commonest lines (integer and float binary operators but fdiv,
icmp, br, phi, on one-token scalar types over locals and integer literals: 97% of that kernel's lines) are
split at blanks and become instructions at once; any other line becomes one record (llvm_text.line_record)
read the reader's general way, as before.

Locals and blocks are keyed by name (llvm_text.name_key), so a use may come before its definition: a value
gets the placeholder the general way gives (lanes()), patched when the definition is read; a block is made
at its first mention and placed in order when its label is reached. Where the records would need llvmlite's
values (an instruction form they do not read) they raise NeedsRecords and the reader reads the function
the two-pass way instead: the same IR either way.
"""
from __future__ import annotations

from reconverge.lowering.frontend.llvm_text import (
    DECIMAL,
    FLAGS,
    LineBody,
    NeedsRecords,
    line_record,
    name_key,
    value_name,
)
from reconverge.lowering.frontend.scalar import scalar_type
from reconverge.lowering.ir.core import Block, Const, Instr, Phi, Value
from reconverge.lowering.ir.types import I1, VOID

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from reconverge.lowering.frontend.llvm_reader import FunctionReader

ICMP_PREDS = frozenset(("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"))
SCALAR_TYPE_NAMES = ("i1", "i8", "i16", "i32", "i64", "half", "float", "double")
FAST_LINES = True       # False: every line the general way (the tests' reference for the lines taken here)


class Forward(Value):
    """Stands for an instruction result used before the reader reached its definition."""
    __slots__ = ()


def read_lines(reader: FunctionReader, body: LineBody, lines: list[str], entry_label: str,
               binops: frozenset[str]) -> list:
    """Read the body's lines into reader.func's blocks; returns the phis to complete once every value is
    known: (incoming (value, block) name pairs, [phi], block label) for the ones read here, (record, lanes,
    label) for the general way's."""
    values, pending, blocks = reader.values, reader.pending, reader.blocks
    func = reader.func
    assert func is not None
    types = {t: scalar_type(reader.ctx.parse_type_text(t)) for t in SCALAR_TYPE_NAMES}
    block_named = reader.block_named
    phis: list = []
    blk: Block | None = None
    instrs: list[Instr] = []
    switch_lines: list[str] | None = None
    placed: set[str] = set()
    fast = FAST_LINES

    def operand(tok: str, t) -> Value | None:
        """A local (a placeholder if not read yet) or an integer literal; None for anything else."""
        if tok[0] == "%":
            lanes = values.get(tok)
            if lanes is None:
                forward = Forward(t)
                pending.setdefault(tok, []).append(forward)
                values[tok] = [forward]
                return forward
            return lanes[0] if len(lanes) == 1 else None
        if t.is_int:
            if tok == "true" or tok == "false":
                return Const(t, tok == "true")
            if DECIMAL.match(tok):
                return Const(t, int(tok))
        return None

    def define(res: str, made: Instr) -> None:
        base = res[1:]
        if not base.isdigit():
            made.name = base
        if res in pending:
            reader.define_key(res, [made])
        else:
            values[res] = [made]

    for line in lines:
        if switch_lines is not None:                     # a switch's case lines, up to its `]`
            switch_lines.append(line)
            if line.strip()[:1] == "]":
                assert blk is not None
                reader.general(line_record(body, switch_lines), blk, phis)
                switch_lines = None
            continue
        if line[:2] == "  " and line[2:3] != " ":
            w = line.split()
            if not w:
                continue
            if blk is None:                              # an unnamed entry block takes the slot after the arguments
                blk = block_named("%" + entry_label, entry_label)
                placed.add("%" + entry_label)
                func.blocks.append(blk)
                reader.block_label = blk.label
                instrs = blk.instrs
            n = len(w)
            made: Instr | None = None
            if fast and '"' not in line:                 # (a quoted name may hold blanks: the general way)
                if n > 3 and w[1] == "=":
                    op = w[2]
                    i = 3
                    if op in binops or op == "icmp":
                        while w[i] in FLAGS:
                            i += 1
                        pred = None
                        if op == "icmp":
                            pred = w[i]
                            i += 1
                        t = types.get(w[i])
                        if t is not None and n == i + 3 and w[i + 1][-1] == "," \
                                and (pred is None or pred in ICMP_PREDS):
                            a = operand(w[i + 1][:-1], t)
                            b = operand(w[i + 2], t) if a is not None else None
                            if a is not None and b is not None:
                                made = Instr(op, [a, b], a.type, None) if pred is None else \
                                    Instr(op, [a, b], I1, {"pred": pred})
                    elif op == "phi":
                        t = types.get(w[3])
                        if t is not None and n >= 8 and (n - 4) % 4 == 0 and w[n - 1] == "]":
                            pairs = []
                            for j in range(4, n, 4):
                                v, b_tok, close = w[j + 1], w[j + 2], w[j + 3]
                                if w[j] != "[" or v[-1] != "," or b_tok[0] != "%" \
                                        or close != ("]" if j + 4 == n else "],"):
                                    break
                                v = v[:-1]
                                if v[0] != "%" and not (t.is_int and (v == "true" or v == "false" or DECIMAL.match(v))):
                                    break
                                pairs.append((v, b_tok))
                            else:
                                made = Phi(t)
                                made.block = blk
                                instrs.append(made)
                                define(w[0], made)
                                phis.append((pairs, [made], blk.label))
                                continue
                    if made is not None:
                        made.block = blk
                        instrs.append(made)
                        define(w[0], made)
                        continue
                elif w[0] == "br":
                    if n == 3 and w[1] == "label":
                        target = block_named(w[2], w[2][1:])
                        made = Instr("br", [], VOID)
                        made.targets = [target]
                    elif n == 7 and w[1] == "i1" and w[3] == "label" and w[5] == "label" \
                            and w[2][-1] == "," and w[4][-1] == ",":
                        cond = operand(w[2][:-1], I1)
                        if cond is not None:
                            on_true = block_named(w[4][:-1], w[4][1:-1])
                            on_false = block_named(w[6], w[6][1:])
                            if on_true is on_false:
                                made = Instr("br", [], VOID)
                                made.targets = [on_true]
                            else:
                                made = Instr("cbr", [cond], VOID)
                                made.targets = [on_true, on_false]
                    if made is not None:
                        made.block = blk
                        instrs.append(made)
                        continue
            assert blk is not None
            if w[0] == "switch" and line.rstrip()[-1:] == "[":
                switch_lines = [line]
                continue
            reader.general(line_record(body, [line]), blk, phis)
            continue
        if not line or line[0] == ";" or line[0] == " ":
            continue
        if line[0] == "}":
            break
        colon = line.find(":")
        if line[0] == '"':
            colon = line.find('":', 1) + 1
        if colon <= 0:
            raise NeedsRecords(line)
        label_tok = "%" + line[:colon]
        k = name_key(label_tok)
        if k in placed:
            raise NeedsRecords(f"block {label_tok} labelled twice")
        placed.add(k)
        blk = block_named(k, value_name(label_tok))
        func.blocks.append(blk)
        reader.block_label = blk.label
        instrs = blk.instrs
    if switch_lines is not None or len(func.blocks) != len(blocks):
        raise NeedsRecords("a block named but never labelled")
    return phis
