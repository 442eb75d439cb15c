"""The structured control-flow driver: the `gen` pipeline's tree -> the machine IR with Gen's structured
branches under the execution mask.

Ifs as if/else/endif, loops as do ... while with break and cont, early returns as halt; phis copied
where control comes from. An if whose condition is uniform (the divergence analysis: the same in every
active lane) is a scalar jmpi over the arm not taken instead (`uniform_branches`). The driver owns a
SelectionContext and a ValueSelector (isel_values.py), hands it every instruction of every block in
tree order, and emits only the branches.
"""
from __future__ import annotations

from itertools import repeat
from operator import attrgetter

from reconverge.isa.gen9.model import DataType as T
from reconverge.lowering.analysis.divergence import Divergence, analyze
from reconverge.lowering.analysis.divergence_tree import leading_phis
from reconverge.lowering.ir.core import (
    Block,
    CFNode,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
    first_block,
    last_block,
)
from reconverge.lowering.ir.opcodes import JUMPS

from .isel_context import SCALAR, SelectionContext, _reg_id, one_cmp
from .isel_flags import NEGATED_MOD, FlagLeaf
from .isel_uniform import scalar_values, select_scalar
from .isel_values import ValueSelector
from .mir import Imm, MFunction, MInstr, Operand, PReg, VReg

_VALUE = attrgetter("value")
EXIT = "exit"                                        # the final halt's block, where returned lanes wait


class StructuredDriver:
    def __init__(self, func: Function, simd: int, uniform_branches: bool = True):
        self.cx = SelectionContext(func, simd)
        self.divergence: Divergence | None = analyze(func, self.cx.instrs) if uniform_branches else None
        self.scalars = scalar_values(func, self.divergence, self.cx.instrs) if self.divergence is not None else set()
        self.selector = ValueSelector(self.cx, None if self.divergence is None else self.divergence.users)
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
        deferred, scalars, select = cx.deferred, self.scalars, self.selector.select
        for i, node in enumerate(nodes):
            if isinstance(node, Block):
                following = nodes[i + 1] if i + 1 < len(nodes) else None
                if isinstance(following, If):           # (defer_condition of None: nothing, without the call)
                    cx.defer_condition(following.cond, node)
                for ins in node.instrs:
                    if ins in deferred:
                        continue                            # selected into the if's flag
                    op = ins.opcode
                    if op == "phi":
                        continue                            # filled where control comes from
                    if op in JUMPS:                         # (is_jump, inline)
                        self._jump(ins, node)
                    elif ins in scalars:
                        select_scalar(cx, ins)
                    else:
                        select(ins)
            elif isinstance(node, If):
                after = nodes[i + 1]
                assert isinstance(after, Block)
                phis = leading_phis(after)
                for phi in phis:
                    cx.values[phi] = self._phi_register(phi, node)
                if self._predicated_jump(node, phis):
                    continue
                if self.divergence is not None and node not in self.divergence.branches:
                    self._uniform_if(node, phis)
                    continue
                cx.condition_flag(node.cond)
                endif, other = cx.m.new_label("endif"), cx.m.new_label("else")
                cx.branch("if", [other], predicate=(0, 0, False))
                self.cf_list(node.then_list)
                cx.phi_copies(phis, last_block(node.then_list))
                if self._else_code(node, phis):          # an empty else arm needs no else: the if's JIP is the endif
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

    def _uniform_if(self, node: If, phis: list[Phi]) -> None:
        """An if whose condition every active lane agrees on: one scalar jump, no change of the execution
        mask, so no if/else/endif. jmpi tests a group of flag bits, the disabled channels' too, whose bits
        are stale (a compare under the mask writes only the enabled channels' bits: PRM vol. 7, "Flag
        Register"); so f0.0 is cleared on every channel first ((W) x != x), the condition written under
        the mask, and `.anyNh` is true exactly when the active lanes' (common) condition is. The arm not
        taken is jumped over; lanes waiting elsewhere (parked by break, cont or halt) are not involved, as
        a jmpi changes no mask. Cost: the clearing compare, the jmpi, and a jmpi over the else arm when
        it has code; against if, else and endif (PRM vol. 2a "jmpi"; Beignet tests blockIP's jumps so)."""
        cx = self.cx
        scalar = self._scalar_compare(node.cond)
        if not scalar:
            r0 = Operand(PReg(0, 0), region=SCALAR)
            cx.emit("cmp", None, r0, r0, cond_mod="ne", flag=(0, 0), no_mask=True)
            cx.condition_flag(node.cond)
        endif, other = cx.m.new_label("endif"), cx.m.new_label("else")
        else_code = self._else_code(node, phis)
        self._jmpi(other if else_code else endif, (0, 0, True), group=not scalar)
        self.cf_list(node.then_list)
        cx.phi_copies(phis, last_block(node.then_list))
        if else_code:
            if last_block(node.then_list).jump is None:
                self._jmpi(endif, None)
            cx.start(other)
            self.cf_list(node.else_list)
            cx.phi_copies(phis, last_block(node.else_list))
        cx.start(endif)

    def _predicated_jump(self, node: If, phis: list[Phi]) -> bool:
        """An if whose one arm is only a break or continue (with at most one phi copy) and whose other arm
        is empty: the jump and its copy predicated on the condition, with no if and endif (as the hybrid
        leaves its loops). Never more executed instructions: 2 at most, where if and endif take 2 at
        least. True if emitted."""
        if phis or len(node.then_list) != 1 or len(node.else_list) != 1:
            return False
        then, other = last_block(node.then_list), last_block(node.else_list)
        if then.instrs and other.instrs:
            return False
        arm, inverted = (then, False) if then.instrs else (other, True)
        jump = arm.jump
        if len(arm.instrs) != 1 or jump is None or jump.opcode not in ("break", "continue") or not self.loops:
            return False
        _, _, header_phis, exit_phis = self.loops[-1]
        copied = 0                                # (loops, not a comprehension and any(): every such if)
        for phi in exit_phis if jump.opcode == "break" else header_phis:
            if not isinstance(phi.value_for(arm), Undef):
                copied += 1
                if copied > 1 or phi in self.scalars:
                    return False
        self.cx.condition_flag(node.cond)
        self._jump(jump, arm, (0, 0, inverted))
        return True

    def _phi_register(self, phi: Phi, node: If) -> Operand:
        """The register of a phi after `node`: the register of its value from the else arm where that
        value is a phi read by nothing else (its register is free from here on, and no other value is
        it), so the else arm copies nothing into it (the phi chains a structurized switch or if-chain
        makes: IGC's coalescing gives them one register); else a fresh one."""
        cx = self.cx
        v = phi.value_for(last_block(node.else_list))
        op = cx.values.get(v)
        uniform = phi in self.scalars
        if isinstance(v, Phi) and cx.uses.get(v) == 1 and op is not None and isinstance(op.value, VReg) and \
                not op.offset and op.region is None and op.value.type == cx.value_type(phi) and \
                op.value.uniform == uniform and op.value.count == 1 and phi not in cx.narrowed and \
                v not in cx.narrowed and (v in self.scalars) == uniform and _only_value_in(cx.values, op.value.id):
            return op
        return cx.fresh(cx.value_type(phi), uniform=uniform)

    def _else_code(self, node: If, phis: list[Phi]) -> bool:
        """Does the else arm of `node` hold code (instructions, nested control flow, phi copies: none of
        an undef or of a phi's own register, SelectionContext.phi_copies)?"""
        last = last_block(node.else_list)
        if len(node.else_list) > 1 or last.instrs:
            return True
        for phi in phis:                          # (any() of a generator, as a loop: every if)
            if self._copies(phi, last):
                return True
        return False

    def _copies(self, phi: Phi, pred: Block) -> bool:
        """Does the edge from `pred` copy anything into `phi` (not undef, nor its own register)?"""
        v = phi.value_for(pred)
        if isinstance(v, Undef):
            return False
        op = self.cx.values.get(v)
        return op is None or op.offset != 0 or op.region is not None or _reg_id(op) != _reg_id(self.cx.values[phi])

    def _scalar_compare(self, cond: Value) -> bool:
        """A fused compare of uniform scalars (kernel arguments in the cross-thread data, constants) is done
        once, on channel 0 with the mask off ((W) cmp (1): the payload is valid whatever the mask), so
        the jmpi reads that one flag bit and nothing stale: no clearing compare. True if emitted."""
        cx = self.cx
        if cond in self.scalars and cond not in cx.deferred:     # a 0/-1 dword on channel 0
            cx.emit("cmp", None, cx.operand(cond), Operand(Imm(0, T.D)), cond_mod="ne", flag=(0, 0), n=1,
                    no_mask=True)
            return True
        plan = cx.flag_plans.get(cond)
        if not isinstance(plan, FlagLeaf) or not plan.fused:
            return False
        cond = plan.value
        assert isinstance(cond, Instr)
        single = one_cmp(cond)
        assert single is not None
        mod, signed = single
        mod = NEGATED_MOD[mod] if plan.negated else mod
        x, y = cond.operands
        a, b = cx.operand(x, signed), cx.operand(y, signed)
        if not (_payload_scalar(a) and (_payload_scalar(b) or isinstance(b.value, Imm))):
            return False
        cx.emit("cmp", None, a, b, cond_mod=mod, flag=(0, 0), n=1, no_mask=True)
        return True

    def _jmpi(self, target: str, predicate: tuple[int, int, bool] | None, group: bool = True) -> None:
        """A scalar jmpi to `target`: always, or on the predicate's flag: any channel's bit (`group`), or
        channel 0's."""
        cx = self.cx
        cx.block.append(MInstr("jmpi", 1, None, [], predicate=predicate, no_mask=True,
                               pred_control=f"any{cx.simd}h" if predicate is not None and group else "",
                               targets=[target]))
        cx.named.add(target)
        cx.block = cx.m.block(cx.m.new_label("b"))

    def _loop(self, loop: Loop, before: Block, after: Block) -> None:
        """An infinite loop as Gen's do ... while: `break` disables a lane until the loop ends, `cont`
        until the while, which runs the body again while any lane is enabled. The header's phis get
        their values where control enters (before the loop, at each continue and at the body's end),
        the phis after the loop at each break."""
        cx = self.cx
        header_phis, exit_phis = leading_phis(first_block(loop.body)), leading_phis(after)
        for phi in header_phis + exit_phis:
            cx.values[phi] = cx.fresh(cx.value_type(phi), uniform=phi in self.scalars)
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

    def _jump(self, ins: Instr, block: Block, predicate: tuple[int, int, bool] | None = None) -> None:
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
            cx.phi_copies(exit_phis, block, predicate)
            cx.branch("break", [end], predicate=predicate)
        else:
            cx.phi_copies(header_phis, block, predicate)
            cx.branch("cont", [latch], predicate=predicate)


def _only_value_in(values: dict[Value, Operand], vid: int) -> bool:
    """Whether exactly one value's operand is (a view of) virtual register `vid` (a loop with no generator:
    _phi_register asks it of the values selected so far, for each phi after an if)."""
    # (the registers' ids counted in C: of VReg, PReg and Imm only a VReg has an `id`, the others give None)
    return list(map(getattr, map(_VALUE, values.values()), repeat("id"), repeat(None))).count(vid) == 1


def _payload_scalar(op: Operand) -> bool:
    """One element for every channel, valid whatever the mask: a kernel argument read from the thread
    payload, or a uniform register (isel_uniform: written with the mask off)."""
    if isinstance(op.value, VReg):
        return op.value.uniform and op.value.count == 1 and op.region is None and op.offset == 0
    return isinstance(op.value, PReg) and op.region == SCALAR and op.offset == 0
