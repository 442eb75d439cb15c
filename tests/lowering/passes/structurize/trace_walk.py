"""A minimal executor for the random shape tests: it records the values stored, up to a limit.

It knows just what random_cfg emits (store, phi, cbr, switch, br, ret; after structurizing also icmp,
xor, or, select-free i32/i1 arithmetic the structurizer adds, if/loop/break/continue/return), so the
CFG form and the tree can be compared store by store even when a loop never ends.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, Const, Function, If, Instr, Phi, Undef


class _Stop(Exception):
    pass


class TraceWalker:
    def __init__(self, func: Function, args: dict, limit: int = 300):
        self.func, self.limit = func, limit
        self.env: dict = {a: args.get(a.name, 0) for a in func.args}
        self.trace: list[int] = []
        self.prev: Block | None = None

    def value(self, v):
        if isinstance(v, Const):
            return v.value
        if isinstance(v, Undef):
            return 0
        return self.env[v]

    def run(self) -> list[int]:
        try:
            if self.func.is_structured:
                self._list(self.func.body)
            else:
                self._cfg()
        except _Stop:
            pass
        return self.trace

    def _exec_block(self, b: Block) -> Instr | None:
        phis = {p: self.value(p.value_for(self.prev)) for p in b.phis()} if self.prev is not None else {}
        self.env.update(phis)
        for ins in b.instrs:
            op = ins.opcode
            if isinstance(ins, Phi):
                continue
            if op == "store":
                self.trace.append(self.value(ins.operands[0]))
                if len(self.trace) >= self.limit:
                    raise _Stop
            elif op == "icmp":
                a, c = (self.value(x) for x in ins.operands)
                self.env[ins] = int(a == c) if ins.attrs["pred"] == "eq" else int(a != c)
            elif op == "xor":
                self.env[ins] = self.value(ins.operands[0]) ^ self.value(ins.operands[1])
            elif op == "or":
                self.env[ins] = self.value(ins.operands[0]) | self.value(ins.operands[1])
            elif op == "and":
                self.env[ins] = self.value(ins.operands[0]) & self.value(ins.operands[1])
            elif op in ("br", "cbr", "switch", "ret", "break", "continue", "return"):
                self.prev = b
                return ins
            else:
                raise NotImplementedError(op)
        self.prev = b
        return None

    def _cfg(self) -> None:
        b = self.func.blocks[0]
        while True:
            t = self._exec_block(b)
            assert t is not None, "a CFG-form block ends in its terminator"
            if t.opcode == "ret":
                return
            if t.opcode == "br":
                b = t.targets[0]
            elif t.opcode == "cbr":
                b = t.targets[0] if self.value(t.operands[0]) else t.targets[1]
            else:
                v = self.value(t.operands[0])
                cases = [c & 0xFFFFFFFF for c in t.attrs["cases"]]
                b = t.targets[1 + cases.index(v)] if v in cases else t.targets[0]

    def _list(self, nodes: list) -> str | None:
        """Run a CF list; returns the jump that left it ("break", "continue", "return") or None."""
        for node in nodes:
            if isinstance(node, Block):
                j = self._exec_block(node)
                if j is not None:
                    return j.opcode
            elif isinstance(node, If):
                r = self._list(node.then_list if self.value(node.cond) else node.else_list)
                if r is not None:
                    return r
            else:
                while True:
                    r = self._list(node.body)
                    if r == "break":
                        break
                    if r == "return":
                        return r
        return None
