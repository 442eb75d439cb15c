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

import re

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

new_instr, new_const = Instr.__new__, Const.__new__
ICMP_PREDS = frozenset(("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"))
SCALAR_TYPE_NAMES = ("i1", "i8", "i16", "i32", "i64", "half", "float", "double")
FAST_LINES = True       # False: every line the general way (the tests' reference for the lines taken here)


class Forward(Value):
    """Stands for an instruction result used before the reader reached its definition."""
    __slots__ = ()


def read_lines(reader: FunctionReader, body: LineBody, lines: list[str], entry_label: str,
               binops: frozenset[str]) -> tuple[list, list[Instr], set[Block]]:
    """Read the body's lines into reader.func's blocks. Returns the phis to complete once every value is
    known ((incoming (value, block) name pairs, [phi], block label) for the ones read here, (record, lanes,
    label) for the general way's), and where placeholders may be used: the instructions read here that
    use one, the blocks where the general way read an instruction while some value was still awaited."""
    values, pending, blocks = reader.values, reader.pending, reader.blocks
    func = reader.func
    assert func is not None
    types = {t: scalar_type(reader.ctx.parse_type_text(t)) for t in SCALAR_TYPE_NAMES}
    block_named, general = reader.block_named, reader.general
    values_get, blocks_get = values.get, blocks.get
    phis: list = []
    forward_users: list[Instr] = []
    forward_blocks: set[Block] = set()
    blk: Block | None = None
    instrs: list[Instr] = []
    switch_lines: list[str] | None = None
    placed: set[str] = set()
    fast = FAST_LINES

    def operand(tok: str, t) -> Value | None:
        """A local (a placeholder if not read yet) or an integer literal; None for anything else."""
        if tok[0] == "%":
            lanes = values_get(tok)
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

    def switch(text: str) -> Instr | None:
        """`switch T v, label %d [ T c, label %b ... ]` (one line or LLVM's several, joined) as the general
        way's terminator() makes it; None for any other form (a type of several words, metadata after it)."""
        toks = text.replace("[", " [ ").replace("]", " ] ").replace('"', "").split()
        n = len(toks)
        t = types.get(toks[1]) if n >= 7 else None
        if t is None or not t.is_int or toks[0] != "switch" or toks[2][-1] != "," or toks[3] != "label" \
                or toks[5] != "[" or toks[-1] != "]" or (n - 7) % 4:
            return None
        tok = toks[2][:-1]
        lanes = values_get(tok) if tok[0] == "%" else None
        cond = lanes[0] if lanes is not None else operand(tok, t)
        if cond is None or toks[4][0] != "%":
            return None
        bits = t.bits
        cases = []
        tok = toks[4]
        targets = [blocks_get(tok) or block_named(tok, tok[1:])]
        for j in range(6, n - 1, 4):
            lit, tok = toks[j + 1][:-1], toks[j + 3]
            if toks[j] != toks[1] or toks[j + 1][-1] != "," or toks[j + 2] != "label" or tok[0] != "%":
                return None
            try:
                v = 1 if lit == "true" else 0 if lit == "false" else int(lit, 0)
            except ValueError:
                return None
            v &= (1 << bits) - 1
            cases.append(v - (1 << bits) if bits > 1 and v >> (bits - 1) else v)
            targets.append(blocks_get(tok) or block_named(tok, tok[1:]))
        made = Instr("switch", [cond], VOID, {"cases": cases}, targets)
        if cond.__class__ is Forward:
            forward_users.append(made)
        return made

    for line in lines:
        if switch_lines is not None:                     # a switch's case lines, up to its `]`
            switch_lines.append(line)
            if line.strip()[:1] == "]":
                assert blk is not None
                text = " ".join(switch_lines)
                joined = switch(text) if fast and "\\" not in text else None
                if joined is not None:
                    joined.block = blk
                    instrs.append(joined)
                else:
                    reader.block_label = blk.label           # (for its error messages)
                    general(line_record(body, switch_lines), blk, phis)
                    if pending:
                        forward_blocks.add(blk)
                switch_lines = None
            continue
        if line[:2] == "  " and line[2:3] != " ":
            if blk is None:                              # an unnamed entry block takes the slot after the arguments
                blk = block_named("%" + entry_label, entry_label)
                placed.add("%" + entry_label)
                func.blocks.append(blk)
                instrs = blk.instrs
            # the line's words; a quoted name's quotes dropped (its key, name_key), and a name with blanks
            # breaks the shapes below (one word too many): the general way reads it
            w = None
            if fast:
                if '"' not in line:
                    w = line.split()
                elif "\\" not in line:
                    w = line.replace('"', "").split()
            if w:
                n = len(w)
                made: Instr | None = None
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
                            tok = w[i + 1][:-1]
                            lanes = values_get(tok) if tok[0] == "%" else None
                            a = lanes[0] if lanes is not None else operand(tok, t)
                            tok = w[i + 2]
                            if tok[0] == "%":
                                lanes = values_get(tok)
                                b = lanes[0] if lanes is not None else operand(tok, t)
                            elif tok.isdecimal() and t.kind == "int":      # operand()'s literal, inlined (hot)
                                b = new_const(Const)              # (Const(t, int(tok)), without its call)
                                b.type, b.name, b.value = t, "", int(tok) & ((1 << t.bits) - 1)
                            else:
                                b = operand(tok, t)
                            if a is not None and b is not None:
                                # Instr(op, [a, b], a.type) or with I1 and {"pred": pred}, without the call
                                made = new_instr(Instr)
                                made.opcode, made.operands, made.name, made.targets, made.block = \
                                    op, [a, b], "", [], None
                                if pred is None:
                                    made.type, made.attrs = a.type, {}
                                else:
                                    made.type, made.attrs = I1, {"pred": pred}
                                if a.__class__ is Forward or b.__class__ is Forward:
                                    forward_users.append(made)
                    elif op == "phi":
                        pairs = _phi_pairs(w, n, types.get(w[3]))
                        if pairs is not None:
                            made = Phi(types[w[3]])
                            phis.append((pairs, [made], blk.label))
                    if made is not None:
                        made.block = blk
                        instrs.append(made)
                        res = w[0]
                        base = res[1:]
                        if not base.isdigit():
                            made.name = base
                        if res in pending:
                            reader.define_key(res, [made])
                        elif res in values:
                            raise NeedsRecords(f"{res} defined twice")
                        else:
                            values[res] = [made]
                        continue
                elif w[0] == "br":
                    if n == 3 and w[1] == "label":
                        tok = w[2]
                        target = blocks_get(tok)
                        if target is None:              # (reader.block_named, inlined: a call per block)
                            target = blocks[tok] = Block(tok[1:])
                        made = new_instr(Instr)         # (Instr("br", [], VOID, None, [target]), without the call)
                        made.type, made.name, made.opcode, made.operands, made.attrs, made.targets, made.block = \
                            VOID, "", "br", [], {}, [target], None
                    elif n == 7 and w[1] == "i1" and w[3] == "label" and w[5] == "label" \
                            and w[2][-1] == "," and w[4][-1] == ",":
                        tok = w[2][:-1]
                        lanes = values_get(tok) if tok[0] == "%" else None
                        cond = lanes[0] if lanes is not None else operand(tok, I1)
                        if cond is not None:
                            tok = w[4][:-1]
                            on_true = blocks_get(tok) or block_named(tok, tok[1:])
                            tok = w[6]
                            on_false = blocks_get(tok) or block_named(tok, tok[1:])
                            if on_true is on_false:
                                made = Instr("br", [], VOID, None, [on_true])
                            else:
                                made = new_instr(Instr)     # (Instr("cbr", [cond], VOID, None, [on_true, on_false]))
                                made.type, made.name, made.opcode, made.operands, made.attrs, made.targets, \
                                    made.block = VOID, "", "cbr", [cond], {}, [on_true, on_false], None
                                if cond.__class__ is Forward:
                                    forward_users.append(made)
                elif w[0] == "ret":
                    if n == 2 and w[1] == "void":
                        made = Instr("ret", [], VOID)
                elif w[0] == "switch" and w[-1][-1:] == "]":
                    made = switch(line)
                if made is not None:
                    made.block = blk
                    instrs.append(made)
                    continue
            if line.rstrip()[-1:] == "[" and line.split(None, 1)[0] == "switch":
                switch_lines = [line]
                continue
            reader.block_label = blk.label
            general(line_record(body, [line]), blk, phis)
            if pending:
                forward_blocks.add(blk)
            continue
        if not line or line[0] == ";" or line.isspace():
            continue
        if line[0] == "}":
            break
        m = _LABEL_LINE.match(line)
        if m is None:
            raise NeedsRecords(line)
        label = m.group(1)
        if '"' in label:
            k, label = name_key("%" + label), value_name(label)
        else:
            k = "%" + label
        if k in placed:
            raise NeedsRecords(f"block {k} labelled twice")
        placed.add(k)
        blk = blocks_get(k)
        if blk is None:                                  # (reader.block_named, inlined)
            blk = blocks[k] = Block(label)
        func.blocks.append(blk)
        instrs = blk.instrs
    if switch_lines is not None or len(func.blocks) != len(blocks):
        raise NeedsRecords("a block named but never labelled")
    return phis, forward_users, forward_blocks


# a block's label, alone on its line but for a comment (LLVM's `; preds = ...`)
_LABEL_LINE = re.compile(r'("[^"]*"|[-\w.$]+):\s*(?:;.*)?$')


def _phi_pairs(w: list[str], n: int, t) -> list[tuple[str, str]] | None:
    """The (value, block) names of a phi's words, `[ %v, %b ], ...` as LLVM prints it or `[%v, %b], ...`
    as llvmlite.ir does, when each value is a local or an integer literal of the one-token type `t`."""
    if t is None or n < 6:
        return None
    pairs = []
    if w[4] == "[":                                      # [ v, b ], [ v, b ]
        if (n - 4) % 4:
            return None
        for j in range(4, n, 4):
            v, b, close = w[j + 1], w[j + 2], w[j + 3]
            if w[j] != "[" or v[-1] != "," or b[0] != "%" or close != ("]" if j + 4 == n else "],"):
                return None
            pairs.append((v[:-1], b))
    else:                                                # [v, b], [v, b]
        if (n - 4) % 2:
            return None
        for j in range(4, n, 2):
            v, b = w[j], w[j + 1]
            end = "]" if j + 2 == n else "],"
            if v[:1] != "[" or v[-1:] != "," or b[:1] != "%" or not b.endswith(end):
                return None
            pairs.append((v[1:-1], b[:-len(end)]))
    for v, _b in pairs:
        if v[:1] != "%" and not (t.kind == "int" and (v == "true" or v == "false" or DECIMAL.match(v))):
            return None
    return pairs
