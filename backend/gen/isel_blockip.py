"""The blockIP and hybrid control-flow drivers: control flow by per-lane blockIP (Beignet's scheme), any
CFG, irreducible ones included, with no structurizer. The `gen-blockip` pipeline's CFG-form function
goes to the machine IR unit by unit in layout order: a unit is one block, or for the hybrid one of
cf_regions' natural regions, whose inside runs with Gen's structured branches (if/else/endif, do-while
with break); the driver hands the instructions inside a block to the ValueSelector it owns
(isel_values.py), as the structured driver does. Below, "block" is a unit.

Every lane holds a uint16 blockIP: the layout index of the block it must run next (undispatched lanes
0xFFFF, so they never run). A block L starts by enabling the lanes whose blockIP is at most L; when no
lane's is, the thread jumps to L's JOIN point; otherwise an `if` masks the others off for the body:

    entry L:   (W) cmp.le f0.1 null blockip L          lanes that belong here
               (W)(~f0.1.anyNh) jmpi JOIN(L)           nobody: on to the first block a lane waits for
               (f0.1) if ... body ...
    end:       (f0.0) mov blockip T                    each lane's next block (ret: the exit); a lane
                                                       falling through to L+1 keeps blockIP L, which
                                                       passes L+1's test (mov blockip F first when F is
                                                       not L+1 or a backward branch will test blockIP)
               phi copies of each target, predicated on blockip == target
               endif
    backward:  (W) cmp.le f0.1 null blockip L ; (W)(f0.1.anyNh) jmpi min(backward targets)

JOIN points are Beignet's buildJIPs rule: walking the blocks in layout order with a set of pending
blocks (forward targets not reached yet, and once the first backward target of a branch is entered,
where its jump lands, the block after the branch and the branch's other backward targets), JOIN(L)
is the smallest pending block after L is removed and the branches into L added, or the exit block
when none is pending (every lane has then returned). A lane sent forward waits at its
target's entry test; one sent backward is picked up when the backward jump re-runs its target. A forward
branch needs no jump of its own: the next block's entry test jumps on when nobody wants it. Every
return sets blockIP to the exit block, which ends the thread. Facts: Beignet gen_insn_selection.cpp
and context.cpp (buildJIPs); jmpi's any/all groups: Gen9 PRM vol. 2a "jmpi". The entry sequence above
is Beignet's scheme B; scheme A (flag predication, no if) is here too, to measure them against each
other (`entry`; predicate_bodies).
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType
from reconverge.lowering.ir.core import Block, Const, Function, Instr, Undef
from reconverge.records import record

from .cf_regions import Region, block_unit, share_latches, structured_regions
from .cf_regions import join_points as unit_join_points
from .cf_regions import layout as unit_layout
from .isel_context import SelectionContext
from .isel_values import ValueSelector
from .mir import BRANCHES, Imm, MFunction, MInstr, Operand, VReg

T = DataType
ENTRY_FLAG = (0, 1)
OTHER_FLAG = (0, 1)                 # scheme A: a cbr's false-target lanes (its entry flag is f1.0)
PREDICATE_FLAG = (1, 0)             # scheme A's entry flag: it must outlive the body, whose compares use f0
CONDITION_FLAG = (0, 0)


def layout(func: Function) -> list[Block]:
    """The blocks of pure blockIP in layout order (cf_regions.layout of one unit per block, and the shared
    latches of cf_regions.share_latches, whose blocks are in no function)."""
    return [u.entry for u in share_latches(unit_layout(func, [block_unit(b) for b in func.blocks]))]


def join_points(func: Function) -> dict[int, int]:
    """Layout position -> the block its entry jumps to when no lane wants it (buildJIPs, stated above)."""
    return unit_join_points(share_latches(unit_layout(func, [block_unit(b) for b in func.blocks])))


class BlockIPDriver:
    """Owns a SelectionContext and a ValueSelector (isel_values.py) and emits the blockIP control flow
    around the instructions it hands the selector. `regions`: lay the kernel out in cf_regions'
    structured regions (the hybrid), not block by block. `entry`: Beignet's scheme B, "if" (a hardware
    if/endif around each body: the default), or its scheme A, "predicate" (no if: the entry test's flag
    predicates every body instruction, done by `predicate_bodies` after immediate legalization; measured
    against each other in the README, "Gen control-flow modes")."""

    def __init__(self, func: Function, simd: int = 16, regions: bool = False, entry: str = "if"):
        if entry not in ("if", "predicate") or (regions and entry != "if"):
            raise ValueError(f"blockIP entry sequence '{entry}' (with regions: 'if' only)")
        self.cx = SelectionContext(func, simd, flag_chains=entry != "predicate")
        self.selector = ValueSelector(self.cx)
        self.regions = regions
        self.entry = entry
        self.predicating = False            # scheme A, inside a body (see predicate_bodies)
        self.open_loops: list[tuple[str, str]] = []         # the hybrid's loops being selected: (latch, end)
        self.bodies: list[BodySpan] = []                    # scheme A: where the bodies are
        self._body_ends: list[tuple[int, int, int]] = []    # ... while selecting: (first, last block, end)
        self.index: dict[Block, int] = {}
        self.via: dict[Block, Block] = {}                   # the unit being selected: header -> shared latch
        self.exit_index = 0
        self.blockip: Operand                               # each lane's next unit (run makes it)
        self.entry_lanes: Operand | None = None             # scheme A: the entry lanes as 0/-1 words

    def run(self) -> MFunction:
        """The machine IR, scheme A's bodies not yet predicated (`predicate_bodies` does that after
        legalize.py, whose register copies of immediates belong to the bodies too)."""
        cx = self.cx
        func = cx.func
        if func.is_structured:
            raise cx.error(None, "blockIP needs the CFG form (the gen-blockip pipeline)")
        for ins in cx.instrs:
            if ins.opcode == "phi":
                cx.values[ins] = cx.fresh(cx.value_type(ins))
        units = share_latches(unit_layout(func, structured_regions(func) if self.regions
                                          else [block_unit(b) for b in func.blocks]))
        self.index = {u.entry: i for i, u in enumerate(units)}
        self.exit_index = len(units)
        self.blockip = Operand(cx.m.vreg(T.UW))
        if self.entry == "predicate":
            self.entry_lanes = Operand(cx.m.vreg(T.UW))
        if len(units) > 1:                  # else no test ever reads it
            cx.emit("mov", self.blockip, Operand(Imm(0xFFFF, T.UW)), no_mask=True)
            self._send_lanes_to(0)
        joins = unit_join_points(units)
        for i, unit in enumerate(units):
            cx.start(self._label(i))
            self._unit(i, unit, joins[i])
        cx.start(self._label(self.exit_index))
        cx.end_of_thread()
        self.bodies = [BodySpan(b0, b1, len(cx.m.blocks[b1].instrs) - i1) for b0, b1, i1 in self._body_ends]
        return cx.m

    def predicate_bodies(self) -> None:
        """Scheme A (entry "predicate"), after legalization: see `predicate_bodies` below."""
        if self.entry_lanes is not None:
            predicate_bodies(self.cx.m, self.bodies, self.entry_lanes)

    @staticmethod
    def _label(i: int) -> str:
        return f"B{i}"

    def _lanes_up_to(self, i: int, flag: tuple[int, int] = ENTRY_FLAG) -> None:
        self.cx.emit("cmp", None, self.blockip, Operand(Imm(i, T.UW)), cond_mod="le", flag=flag, no_mask=True)

    def _jmpi(self, target: int, inverted: bool, test: str = "any", flag: tuple[int, int] = ENTRY_FLAG) -> None:
        """A scalar jump to block `target` when any (or all) of the thread's entry-flag bits are set
        (`inverted`: clear)."""
        self.cx.block.append(MInstr("jmpi", 1, None, [], predicate=(*flag, inverted), no_mask=True,
                                 pred_control=f"{test}{self.cx.simd}h", targets=[self._label(target)]))
        self.cx.block = self.cx.m.block(self.cx.m.new_label("b"))

    def _unit(self, i: int, unit: Region, join: int) -> None:
        """One unit: its entry (none for the first, which every dispatched lane runs: nothing branches to
        the function's entry), its code, and each lane's next unit."""
        self.via = dict(unit.via)
        predicated = self.entry == "predicate" and i > 0 and not unit.barrier
        masked = i > 0 and not unit.barrier and not predicated
        if predicated:                      # the entry lanes as a flag and as 0/-1 words
            self.cx.emit("cmp", self.entry_lanes, self.blockip, Operand(Imm(i, T.UW)), cond_mod="le",
                      flag=PREDICATE_FLAG, no_mask=True)
            self._jmpi(join, inverted=True, flag=PREDICATE_FLAG)
        elif i > 0:
            self._lanes_up_to(i)
            if join != i + 1 or unit.barrier:   # else the if's own jump to its endif reaches the next entry
                self._jmpi(join, inverted=True)
        if unit.barrier and i > 0:
            self._wait_for_every_lane(i, join)
        elif masked:
            endif = self.cx.m.new_label("endif")
            self.cx.branch("if", [endif], predicate=(*ENTRY_FLAG, False))
        self.predicating = predicated
        first = len(self.cx.m.blocks) - 1
        assert not predicated or not self.cx.block.instrs      # a body starts a block (after its jmpi)
        self._region(unit)
        targets = self._set_next_block(i, unit.term, unit.after, unit.leaves)
        if predicated:
            self._body_ends.append((first, len(self.cx.m.blocks) - 1, len(self.cx.block.instrs)))
        self.predicating = False
        if masked:
            self.cx.branch("endif", [])
            self.cx.start(endif)
        backward = [t for t in targets if t <= i]
        if backward:
            self._lanes_up_to(i)
            self._jmpi(min(backward), inverted=False)

    def _target(self, block: Block) -> int:
        """The unit a lane going to `block` from the unit being selected waits at: `block`'s, or for a back
        edge that cf_regions.share_latches sends through a shared latch, the latch's."""
        return self.index[self.via.get(block, block)]

    # ----- structured regions inside a unit (cf_regions): Gen's branches under the execution mask
    def _region(self, r: Region) -> None:
        if r.kind == "latch":
            return                          # a shared latch: nothing but its jump back (_set_next_block)
        if r.kind == "block":
            self._body(r.entry, r.term)
        elif r.kind == "chain":
            first, second = r.parts
            self._region(first)
            if first.term is not None:
                self.cx.phi_copies(list(second.entry.phis()), first.term.block)
            self._region(second)
        elif r.kind == "if":
            self._if(r)
        elif r.kind == "loop":
            self._do_while(r)
        else:
            self._leave_early(r)

    def _body(self, block: Block, term: Instr | None) -> None:
        """A block's instructions but its phis (filled where control comes from) and its terminator; a
        compare only its cbr reads is left for the branch to select into the flag."""
        self.cx.defer_condition(term.operands[0] if term is not None and term.opcode == "cbr" else None, block)
        for ins in block.instrs:
            if ins.opcode != "phi" and ins is not term and ins not in self.cx.deferred:
                self.selector.select(ins)

    def _if(self, r: Region) -> None:
        """if/else/endif on the head's condition; each arm copies the phis of its edges."""
        head, on_true, on_false = r.parts
        term, after = head.term, r.after
        assert after is not None
        self._region(head)
        self.cx.condition_flag(term.operands[0])
        endif, other = self.cx.m.new_label("endif"), self.cx.m.new_label("else")
        self.cx.branch("if", [other], predicate=(*CONDITION_FLAG, False))
        self._arm(term, on_true, after)
        if on_false is not None or any(not isinstance(phi.value_for(term.block), Undef) for phi in after.phis()):
            self.cx.branch("else", [endif])         # else an empty else arm: the if's JIP is the endif
        self.cx.start(other)
        self._arm(term, on_false, after)
        self.cx.branch("endif", [])
        self.cx.start(endif)

    def _arm(self, term: Instr, arm: Region | None, after: Block) -> None:
        if arm is None:
            self.cx.phi_copies(list(after.phis()), term.block)
            return
        self.cx.phi_copies(list(arm.entry.phis()), term.block)
        self._region(arm)
        if arm.term is not None:
            self.cx.phi_copies(list(after.phis()), arm.term.block)

    def _do_while(self, r: Region) -> None:
        """A loop as do ... while around its body (cf_regions._loop): exits and continues inside it
        break and cont (_leave_early). A body that ends going back to the header copies the header's
        phis and loops; one whose last test goes back or out copies the phis of each side on its lanes,
        and keeps the lanes going back with a predicated while, or, when a continue is waiting at the
        while (its lanes have no value of the test), breaks the others and loops."""
        (body,) = r.parts
        top, latch, end = self.cx.m.new_label("loop"), self.cx.m.new_label("latch"), self.cx.m.new_label("endloop")
        self.cx.start(top)
        self.open_loops.append((latch, end))
        self._region(body)
        self.open_loops.pop()
        term = body.term
        if body.falls_into is r.entry:
            if term is not None:
                self.cx.phi_copies(list(r.entry.phis()), term.block)
            self.cx.start(latch)
            self.cx.branch("while", [top])
            self.cx.start(end)
            return
        assert term is not None and term.opcode == "cbr"
        leave = self._lanes_branching_away(term, r.entry, r.dispatch)
        back = (*CONDITION_FLAG, not leave[2])
        if r.continues:
            self.cx.branch("break", [end], predicate=leave)
            self.cx.phi_copies(list(r.entry.phis()), term.block)
            self.cx.start(latch)
            self.cx.branch("while", [top])
        else:
            self.cx.phi_copies(list(r.entry.phis()), term.block, predicate=back)
            self.cx.start(latch)
            self.cx.branch("while", [top], predicate=back)
        self.cx.start(end)

    def _lanes_branching_away(self, term: Instr, stay: Block, dispatch: bool) -> tuple[int, int, bool]:
        """The predicate of the lanes whose cbr `term` goes elsewhere than `stay`: f0.0 gets the
        condition, and those lanes copy their target's phis (and, `dispatch`, set their blockIP to it)."""
        self.cx.condition_flag(term.operands[0])
        target = term.targets[1] if term.targets[0] is stay else term.targets[0]
        going = (*CONDITION_FLAG, term.targets[0] is stay)
        self.cx.phi_copies(list(target.phis()), term.block, predicate=going)
        if dispatch:
            self._send_lanes_to(self._target(target), predicate=going)
        return going

    def _leave_early(self, r: Region) -> None:
        """An exit from inside a loop's body (the lanes whose branch leaves copy the target's phis, set
        their blockIP to it when the loop leaves to several blocks, and break) or a continue (the
        lanes going back copy the header's phis and wait at the while); the others go on."""
        (unit,) = r.parts
        term, after = unit.term, r.after
        assert term is not None and after is not None
        latch, end = self.open_loops[-1]
        self._region(unit)
        going = self._lanes_branching_away(term, after, r.kind == "exit" and r.dispatch)
        if r.kind == "exit":
            self.cx.branch("break", [end], predicate=going)
        else:
            self.cx.branch("cont", [latch], predicate=going)
        self.cx.phi_copies(list(after.phis()), term.block)

    def _send_lanes_to(self, block: int, predicate: tuple[int, int, bool] | None = None) -> None:
        """The enabled lanes' (those `predicate` picks, if given) blockIP becomes `block`."""
        self.cx.emit("mov", self.blockip, Operand(Imm(block, T.UW)), predicate=predicate)

    def _wait_for_every_lane(self, i: int, join: int) -> None:
        """A block with a barrier runs with every lane of the thread (Beignet's barrier blocks): the lanes
        that arrived park their blockIP at 0xFFFF, where no entry test picks them up; until every lane
        has (undispatched ones always have), the thread goes on with the others; then all of them run
        the block, with no if around it, and reach the barrier together."""
        self._send_lanes_to(0xFFFF, predicate=(*ENTRY_FLAG, False))
        self.cx.emit("cmp", None, self.blockip, Operand(Imm(0xFFFF, T.UW)), cond_mod="eq", flag=ENTRY_FLAG,
                  no_mask=True)
        self._jmpi(join, inverted=True, test="all")
        self._send_lanes_to(i)

    def _set_next_block(self, i: int, term: Instr | None, after: Block | None = None,
                        leaves: tuple = ()) -> list[int]:
        """Each enabled lane's blockIP becomes its next unit's index; the targets' phis get their values
        along the edge, predicated on the lanes taking it (`after`: a region's one way out, whose copies
        it made itself). Returns the target indices."""
        if term is None and after is not None:
            target = self._target(after)
            if target != i + 1:
                self._send_lanes_to(target)
            return [target]
        if term is None and leaves:                 # a loop that set each leaving lane's blockIP
            return list(dict.fromkeys(self._target(b) for b in leaves))
        if term is None or term.opcode in ("ret", "unreachable"):
            if self.exit_index != i + 1:
                self._send_lanes_to(self.exit_index)
            return [self.exit_index]
        targets = [self._target(t) for t in term.targets]
        # A lane may fall through to block i + 1 with its blockIP left at i, which still passes the next
        # entry test (blockIP <= i + 1), unless a backward branch follows: its test must not count them.
        stays = [i + 1] if all(t > i for t in targets) else []
        if term.opcode == "br" or len(set(targets)) == 1:
            if targets[0] not in stays:
                self._send_lanes_to(targets[0])
        elif term.opcode == "cbr" and self.predicating:     # the false target first, on every entry lane
            if targets[1] not in stays:
                self._send_lanes_to(targets[1])
            self.cx.condition_flag(term.operands[0])
            self._send_lanes_to(targets[0], predicate=(*CONDITION_FLAG, False))
        elif term.opcode == "cbr":
            false_first = targets[0] in stays
            if targets[1 - false_first] not in stays:
                self._send_lanes_to(targets[1 - false_first])
            self.cx.condition_flag(term.operands[0])
            self._send_lanes_to(targets[false_first], predicate=(*CONDITION_FLAG, false_first))
        else:                                           # switch: default first, then each case
            self._send_lanes_to(targets[0])
            x = self.cx.operand(term.operands[0])
            for value, target in zip(term.attrs["cases"], targets[1:]):
                case = self.cx.operand(Const(term.operands[0].type, value))
                self.cx.emit("cmp", None, x, case, cond_mod="eq", flag=CONDITION_FLAG)
                self._send_lanes_to(target, predicate=(*CONDITION_FLAG, False))
        flagged = term.opcode == "cbr" and len(set(targets)) == 2    # f0.0 still holds the condition
        self._edge_copies(term.block, [t for t in dict.fromkeys(term.targets)], len(set(targets)) == 1, flagged)
        return list(dict.fromkeys(targets))

    def _edge_copies(self, pred: Block | None, targets: list[Block], one_target: bool,
                     flagged: bool = False) -> None:
        """Every target's phis from `pred`, read first (into temporaries when one phi feeds another) and
        then written on the lanes whose blockIP names that target (for a cbr, the lanes its condition
        flag, still in f0.0, sends there)."""
        assert pred is not None
        moves = [(phi, self.cx.operand(phi.value_for(pred)), t) for t in targets for phi in t.phis()]
        if not moves:
            return
        written = {v.id for phi, _, _ in moves if isinstance(v := self.cx.values[phi].value, VReg)}
        if any(isinstance(src.value, VReg) and src.value.id in written for _, src, _ in moves):
            moves = [(phi, self.cx.copy(src), t) for phi, src, t in moves]
        for target in targets:
            mine = [(phi, src) for phi, src, t in moves if t is target]
            if not mine:
                continue
            predicate = None
            if flagged and self.predicating and target is not targets[0]:
                # scheme A: the false target's lanes are the entry lanes (predicate_bodies narrows the
                # flag to them) not sent to the true one: ~f0.0 would take every other lane too
                self.cx.emit("cmp", None, self.blockip, Operand(Imm(self._target(targets[0]), T.UW)), cond_mod="ne",
                          flag=OTHER_FLAG)
                predicate = (*OTHER_FLAG, False)
            elif flagged:
                predicate = (*CONDITION_FLAG, target is not targets[0])
            elif not one_target:
                self.cx.emit("cmp", None, self.blockip, Operand(Imm(self._target(target), T.UW)), cond_mod="eq",
                          flag=CONDITION_FLAG)
                predicate = (*CONDITION_FLAG, False)
            for phi, src in mine:
                self.cx.emit("mov", self.cx.values[phi], src, predicate=predicate)


@record(frozen=True)
class BodySpan:
    """Where one scheme-A body lies: from the start of block `first` to block `last`, less the `tail`
    instructions that end `last` after it (the next entry's test, a backward jmpi: code legalization
    never adds to, so a span stays true when legalize.py adds copies inside bodies)."""
    first: int
    last: int
    tail: int


def predicate_bodies(m: MFunction, bodies: list[BodySpan], entry_lanes: Operand) -> None:
    """Scheme A: every body instruction runs under the entry flag (f1.0). Gen encodes one flag per
    instruction for both its predicate and its conditional modifier (PRM vol. 2a, "Flag Register
    and Flag Subregister Number"), so an instruction that writes a flag runs on every lane (its
    register result goes to a temporary, copied on the entry lanes), and when a later instruction is
    predicated on that flag, the flag is narrowed to the entry lanes at once by a compare
    predicated on itself: (F) cmp.ne F null entry_lanes 0. A sel (whose predicate picks a source,
    and which writes every lane) also writes a temporary copied on the entry lanes."""
    entry = (*PREDICATE_FLAG, False)
    for span in bodies:
        spans = [(b, 0, len(m.blocks[b].instrs) - (span.tail if b == span.last else 0))
                 for b in range(span.first, span.last + 1)]
        body = [m.blocks[b].instrs[i] for b, lo, hi in spans for i in range(lo, hi)]
        writer: dict[tuple[int, int], MInstr] = {}
        narrow: set[int] = set()
        for ins in body:
            if ins.predicate is not None and ins.opcode != "sel" and ins.predicate[:2] in writer:
                narrow.add(id(writer[ins.predicate[:2]]))
            if ins.cond_mod is not None:
                writer[ins.flag] = ins
        for b, lo, hi in spans:
            block = m.blocks[b]
            out: list[MInstr] = []
            for ins in block.instrs[lo:hi]:
                writes_flag = ins.cond_mod is not None
                if ins.no_mask or ins.opcode in BRANCHES or (ins.predicate is not None and ins.opcode != "sel"):
                    assert not writes_flag or ins.no_mask, "scheme A: a predicated flag write"
                    out.append(ins)
                    continue
                if (writes_flag or ins.opcode == "sel") and ins.dst is not None \
                        and isinstance(ins.dst.value, VReg):
                    assert ins.dst.region is None
                    v, dst = ins.dst.value, ins.dst
                    ins.dst = Operand(m.vreg(v.type, v.uniform, v.count), dst.offset)
                    out += [ins, MInstr("mov", ins.exec_size, dst, [ins.dst], predicate=entry)]
                elif writes_flag or ins.opcode == "sel":
                    out.append(ins)
                else:
                    ins.predicate = entry
                    out.append(ins)
                if id(ins) in narrow:
                    out.append(MInstr("cmp", ins.exec_size, None, [entry_lanes, Operand(Imm(0, T.UW))],
                                      predicate=(*ins.flag, False), cond_mod="ne", flag=ins.flag))
            block.instrs[lo:hi] = out

