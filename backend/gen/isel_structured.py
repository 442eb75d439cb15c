"""The structured control-flow driver: the `gen` pipeline's tree -> the machine IR with Gen's structured
branches under the execution mask.

Ifs as if/else/endif, loops as do ... while with break and cont, early returns as halt; phis copied
where control comes from. The driver owns a SelectionContext and a ValueSelector (isel_values.py),
hands it every instruction of every block in tree order, and emits only the branches.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, CFNode, Function, If, Instr, Loop, Phi, first_block, last_block

from .isel_context import SelectionContext, gen_type
from .isel_values import ValueSelector
from .mir import MFunction

EXIT = "exit"                                        # the final halt's block, where returned lanes wait


class StructuredDriver:
    def __init__(self, func: Function, simd: int):
        self.cx = SelectionContext(func, simd)
        self.selector = ValueSelector(self.cx)
        self.loops: list[tuple[str, str, list[Phi], list[Phi]]] = []   # (latch, end, header phis, exit phis)
        self.returned = False                                 # an early return emitted a halt

    def run(self) -> MFunction:
        cx = self.cx
        self.cf_list(cx.func.body)
        if self.returned:
            cx.start(EXIT)
            eot = cx.m.new_label("eot")
            cx.branch("halt", [eot])
            cx.start(eot)
        cx.end_of_thread()
        return cx.m

    def cf_list(self, nodes: list[CFNode]) -> None:
        """A CF list: blocks in order, an if as Gen's if/else/endif with the execution mask (PRM vol. 7,
        "Structured control flow"); the phis of the block after an if are copied into at the end of each
        arm, where only that arm's lanes are enabled."""
        cx = self.cx
        for i, node in enumerate(nodes):
            if isinstance(node, Block):
                following = nodes[i + 1] if i + 1 < len(nodes) else None
                branch_on = following.cond if isinstance(following, If) else None
                for ins in node.instrs:
                    if ins is branch_on and cx.fusable(ins):
                        cx.deferred.add(ins)                # selected into the if's flag
                        continue
                    if ins.opcode == "phi":
                        continue                            # filled where control comes from
                    if ins.is_jump:
                        self._jump(ins, node)
                    else:
                        self.selector.select(ins)
            elif isinstance(node, If):
                after = nodes[i + 1]
                assert isinstance(after, Block)
                phis = list(after.phis())
                for phi in phis:
                    cx.values[phi] = cx.fresh(gen_type(phi.type))
                cx.condition_flag(node.cond)
                endif, other = cx.m.new_label("endif"), cx.m.new_label("else")
                cx.branch("if", [other], predicate=(0, 0, False))
                self.cf_list(node.then_list)
                cx.phi_copies(phis, last_block(node.then_list))
                cx.branch("else", [endif])
                cx.start(other)
                self.cf_list(node.else_list)
                cx.phi_copies(phis, last_block(node.else_list))
                cx.branch("endif", [])
                cx.start(endif)
            else:
                before, after = nodes[i - 1], nodes[i + 1]
                assert isinstance(node, Loop) and isinstance(before, Block) and isinstance(after, Block)
                self._loop(node, before, after)

    def _loop(self, loop: Loop, before: Block, after: Block) -> None:
        """An infinite loop as Gen's do ... while: `break` disables a lane until the loop ends, `cont`
        until the while, which runs the body again while any lane is enabled. The header's phis get
        their values where control enters (before the loop, at each continue and at the body's end),
        the phis after the loop at each break."""
        cx = self.cx
        header_phis, exit_phis = list(first_block(loop.body).phis()), list(after.phis())
        for phi in header_phis + exit_phis:
            cx.values[phi] = cx.fresh(gen_type(phi.type))
        cx.phi_copies(header_phis, before)
        head, latch, end = cx.m.new_label("loop"), cx.m.new_label("latch"), cx.m.new_label("endloop")
        cx.start(head)
        self.loops.append((latch, end, header_phis, exit_phis))
        self.cf_list(loop.body)
        last = last_block(loop.body)
        if last.jump is None:
            cx.phi_copies(header_phis, last)
        self.loops.pop()
        cx.start(latch)
        cx.branch("while", [head])
        cx.start(end)

    def _jump(self, ins: Instr, block: Block) -> None:
        """break and continue as Gen's; an early return as `halt`, whose lanes wait, disabled, at the
        final halt before the end of the thread (the placeholder HALT of Mesa's brw_fs_generator: every
        lane that halted to a UIP must reach it, and the last halt releases them all)."""
        cx = self.cx
        if ins.opcode == "return":
            self.returned = True
            cx.branch("halt", [EXIT])
            return
        latch, end, header_phis, exit_phis = self.loops[-1]
        if ins.opcode == "break":
            cx.phi_copies(exit_phis, block)
            cx.branch("break", [end])
        else:
            cx.phi_copies(header_phis, block)
            cx.branch("cont", [latch])
