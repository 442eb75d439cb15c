"""Loop live-outs through private memory NIR cannot promote, for lavapipe launches.

Mesa 22.3's lavapipe runs a subgroup through a loop with a lane mask; a value computed inside the loop
and used after it must keep, for each lane, the value of the iteration in which that lane left. When the
lanes leave at different iterations, lavapipe sometimes gives a lane the value of a later iteration that
other lanes ran (measured on reduced random programs: a boolean compare used after the loop, an add that
NIR reassociates, a loop-exit phi with an undefined side, a 64-bit product used after the loop that ends
it: `reconverge fuzz --seed 12 --mode basic`). What the measurements fit: llvmpipe computes each NIR SSA value for every
lane in every pass and masks only the writes of registers (what a phi web becomes) and of memory, so a
value that is not carried round the loop holds, after it, the last pass any lane ran. A Function variable
with a constant index does not help - NIR turns it back into the same SSA value (checked with glslang's
output for the same GLSL) - but one indexed by a value NIR cannot know stays in memory and is right. So
`run --target spirv` on lavapipe rewrites each such value v (backend.spirv.launch, on a copy of the
kernel): a private slot, element (get_group_id(2) & 1) of a two-element alloca (both elements are the
lane's own, so the index only hides the slot from NIR), `store v` right after v is computed, and a `load`
in front of each use outside the loop (for a phi, at the end of the predecessor it comes from; for an
if's condition, at the end of the block before the if). Booleans are stored as i32. Pointers are left
alone (a private slot cannot hold one). The rewrite is semantically neutral, but it is applied in
lavapipe launches only, so that `--emit spirv` stays the plain SSA form other drivers are tested with.
"""
from __future__ import annotations

from typing import TypeGuard

from reconverge.lowering.ir.core import (
    Block,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
    cf_lists,
    first_block,
)
from reconverge.lowering.ir.types import I1, I32, I64, VOID, ptr


def _loops_of_blocks(nodes: list, chain: tuple, out: dict) -> None:
    for node in nodes:
        if isinstance(node, Block):
            out[node] = chain
        elif isinstance(node, If):
            _loops_of_blocks(node.then_list, chain, out)
            _loops_of_blocks(node.else_list, chain, out)
        elif isinstance(node, Loop):
            _loops_of_blocks(node.body, chain + (node,), out)


def _ifs(nodes: list):
    """(the block before the if, the if) for every if of a CF list, at any depth."""
    for i, node in enumerate(nodes):
        if isinstance(node, If):
            yield nodes[i - 1], node
            yield from _ifs(node.then_list)
            yield from _ifs(node.else_list)
        elif isinstance(node, Loop):
            yield from _ifs(node.body)


def _escapes(v: Value, at: Block, loops: dict[Block, tuple]) -> TypeGuard[Instr]:
    """v is defined inside a loop that block `at` is not in (`loops`: each block's enclosing loops)."""
    return isinstance(v, Instr) and v.block in loops and any(loop not in loops.get(at, ()) for loop in loops[v.block])


def _before_jump(block: Block) -> int:
    """Where an instruction goes at the end of `block`: before its break/continue/return, if any."""
    return len(block.instrs) - 1 if block.jump is not None else len(block.instrs)


def zero_undefined_phi_inputs(func: Function) -> int:
    """Give every phi input that is undefined (an Undef) the value 0 instead, in place; how many.

    lavapipe (Mesa 22.3) gives a lane a later iteration's value through a loop-exit phi one of whose inputs
    is OpUndef, and the right one once that input is a constant (tests/spirv/test_spirv_random_cfg.py's
    LOOP_EXIT_UNDEF_LL). Any value refines an undefined one, so 0 is a correct choice on every driver."""
    count = 0
    for block in func.all_blocks():
        for phi in block.phis():
            for i, v in enumerate(phi.operands):
                if isinstance(v, Undef) and (v.type.is_int or v.type.is_float):
                    phi.operands[i] = Const(v.type, 0)
                    count += 1
    return count


def demote_loop_exit_phis(func: Function) -> int:
    """Replace each phi that takes a value from inside a loop it is not in by a private slot, in place; how many.

    demote_loop_live_outs loads a phi input at the end of the block the phi takes it from, which for a
    loop exit is the break block, inside the loop; NIR forwards the store made earlier in the same pass to
    that load, and the loop live-out is an SSA value again. lavapipe then gives a lane that left the loop
    early the value of a later pass (`reconverge fuzz --seed 1936 --mode goto`: a goto into a loop, a lane
    that leaves the outer loop after one pass gets the second pass's byte). Each such phi instead becomes a
    store at the end of every block it takes a value from and one load after the loop, in its own block,
    where no store in the loop reaches it without the loop in between (element (get_group_id(2) & 1), as
    below). Pointers are left alone, and so is a phi whose every input is computed outside the loops it
    leaves (or undefined): such a value is the same in every pass, so no pass can give a later one, and
    demoting one made lavapipe drop every store of a kernel (`reconverge fuzz --seed 70739 --mode
    convergence` at -O2: a sub-group scan computed before the loop, taken at its first exit)."""
    loops: dict[Block, tuple] = {}
    _loops_of_blocks(func.body, (), loops)
    exits = [(block, phi) for block in func.all_blocks() for phi in block.phis()
             if not phi.type.is_ptr and any(_escapes(v, block, loops) for v in phi.operands)]
    if not exits:
        return 0
    entry = first_block(func.body)
    group = entry.insert(0, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
    parity = entry.insert(1, Instr("and", [group, Const(I64, 1)], I64))
    position = 2
    replaced: dict[Value, Value] = {}
    for block, phi in exits:
        stored = I32 if phi.type == I1 else phi.type
        alloca = entry.insert(0, Instr("alloca", [], ptr(0), {"size": 2 * stored.size, "align": stored.size}))
        position += 1
        offset = entry.insert(position, Instr("mul", [parity, Const(I64, stored.size)], I64))
        slot = entry.insert(position + 1, Instr("ptradd", [alloca, offset], ptr(0)))
        position += 2
        for pred, value in zip(phi.blocks, phi.operands):
            at = _before_jump(pred)
            if phi.type == I1:
                value = pred.insert(at, Instr("zext", [value], I32))
                at += 1
            pred.insert(at, Instr("store", [value, slot], VOID, {"align": stored.size}))
        block.instrs.remove(phi)
        at = sum(1 for _ in block.phis())
        loaded: Value = block.insert(at, Instr("load", [slot], stored, {"align": stored.size}))
        if phi.type == I1:
            loaded = block.insert(at + 1, Instr("icmp", [loaded, Const(I32, 0)], I1, {"pred": "ne"}))
        replaced[phi] = loaded
    for ins in func.instructions():
        ins.operands = [replaced.get(v, v) for v in ins.operands]
    for nodes in cf_lists(func):
        for node in nodes:
            if isinstance(node, If) and node.cond in replaced:
                node.cond = replaced[node.cond]
    func.update_cfg()
    return len(exits)


def demote_loop_live_outs(func: Function) -> int:
    """Rewrite `func` in place as described above; the number of values rewritten."""
    loops: dict[Block, tuple] = {}
    _loops_of_blocks(func.body, (), loops)

    def escapes(v: Value, at: Block) -> TypeGuard[Instr]:
        return _escapes(v, at, loops)

    # (value, the block where it is needed, how to replace it once loaded)
    uses: list[tuple[Instr, Block, int, tuple[Instr, int] | If]] = []
    for block in func.all_blocks():
        for ins in block.instrs:
            for i, v in enumerate(ins.operands):
                if isinstance(ins, Phi):
                    if escapes(v, block):
                        uses.append((v, ins.blocks[i], _before_jump(ins.blocks[i]), (ins, i)))
                elif escapes(v, block):
                    uses.append((v, block, -1, (ins, i)))
    for before, node in _ifs(func.body):
        if isinstance(before, Block) and escapes(node.cond, before):
            uses.append((node.cond, before, _before_jump(before), node))
    uses = [u for u in uses if not u[0].type.is_ptr]
    if not uses:
        return 0

    entry = first_block(func.body)
    allocas: dict[Instr, Instr] = {}
    for v, _, _, _ in uses:
        if v not in allocas:
            size = (I32 if v.type == I1 else v.type).size
            allocas[v] = entry.insert(0, Instr("alloca", [], ptr(0), {"size": 2 * size, "align": size}))
    # The slot of each value: element (group id z & 1) of its two-element alloca, an index NIR cannot fold
    position = len(allocas)
    group = entry.insert(position, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
    parity = entry.insert(position + 1, Instr("and", [group, Const(I64, 1)], I64))
    position += 2
    slots: dict[Instr, Instr] = {}
    for v, alloca in allocas.items():
        offset = entry.insert(position, Instr("mul", [parity, Const(I64, alloca.attrs["align"])], I64))
        slots[v] = entry.insert(position + 1, Instr("ptradd", [alloca, offset], ptr(0)))
        position += 2
    for v, slot in slots.items():
        stored = I32 if v.type == I1 else v.type
        home = v.block
        assert home is not None, "a value used elsewhere is placed"
        position = home.instrs.index(v) + 1
        if isinstance(v, Phi):
            position = sum(1 for _ in home.phis())
        value: Value = v
        if v.type == I1:
            value = home.insert(position, Instr("zext", [v], I32))
            position += 1
        home.insert(position, Instr("store", [value, slot], VOID, {"align": stored.size}))

    for v, block, position, user in uses:
        slot = slots[v]
        stored = I32 if v.type == I1 else v.type
        if position == -1:                  # right before the instruction that uses it
            assert not isinstance(user, If)
            position = block.instrs.index(user[0])
        else:
            position = _before_jump(block)
        loaded: Value = block.insert(position, Instr("load", [slot], stored, {"align": stored.size}))
        if v.type == I1:
            loaded = block.insert(position + 1, Instr("icmp", [loaded, Const(I32, 0)], I1, {"pred": "ne"}))
        if isinstance(user, If):
            user.cond = loaded
        else:
            ins, i = user
            ins.operands[i] = loaded
    func.update_cfg()
    return len(slots)


def _unknowable_values(func: Function) -> set[Value]:
    """The values that depend on something NIR cannot fold to a constant: a load, an argument, a work-item id
    or a call (a loop counter built from constants is foldable once NIR unrolls its loop)."""
    found: set[Value] = set()
    changed = True
    while changed:                  # to a fixed point: a phi may take such a value round its loop
        changed = False
        for ins in func.instructions():
            if ins not in found and (ins.opcode in ("load", "workitem", "call") or any(
                    v in found or not isinstance(v, (Instr, Const, Undef)) for v in ins.operands)):
                found.add(ins)
                changed = True
    return found


def hide_loop_written_private_memory(func: Function) -> int:
    """Move each alloca accessed both inside a loop and outside it to an element NIR cannot fold; how many.

    The same lavapipe bug reaches values that our IR keeps in private memory (at -O0, a vector variable
    clang leaves in an alloca: `reconverge fuzz --seed 148 --mode vector`): NIR promotes a Function
    variable reached through constant indices to SSA values, so a store in a loop read after it becomes a
    loop live-out again and takes the last pass any lane ran. Such an alloca gets a second copy of itself
    and every use goes through element (get_group_id(2) & 1), as the slots above do; both copies are the
    lane's own, so the rewrite is semantically neutral. An alloca only accessed in one loop (or in none)
    is left for NIR to promote, and so is one already reached through an index NIR cannot know (one that
    depends on a load, an argument or a work-item id): NIR keeps it in memory as it is. Moving such an
    alloca is not only needless but harmful: with an index of (get_group_id(2) & 1) * 4 + k on a flat
    array in a loop, lavapipe gives lanes other lanes' elements (`reconverge fuzz --seed 19665 --mode
    basic` at -O2; glslang's module of the same GLSL does the same, and of a two-dimensional [2][4] array
    indexed [parity][k] does not: tests/spirv/test_vulkan_devices.py)."""
    from reconverge.lowering.analysis.provenance import Provenance
    loops: dict[Block, tuple] = {}
    _loops_of_blocks(func.body, (), loops)
    provenance = Provenance(func)
    allocas = [ins for ins in func.instructions() if ins.opcode == "alloca"]
    alloca_of = {provenance.base[a]: a for a in allocas if a in provenance.base}
    chains: dict[Instr, set[tuple]] = {a: set() for a in allocas}
    indexed_unknowably: set[Instr] = set()
    unknowable = _unknowable_values(func)
    for block in func.all_blocks():
        for ins in block.instrs:
            if ins.opcode == "alloca":
                continue
            if ins.opcode == "ptradd":      # computing an address is not an access, but its offset may be unknowable
                alloca = alloca_of.get(provenance.base.get(ins))    # type: ignore[arg-type]
                if alloca is not None and ins.operands[1] in unknowable:
                    indexed_unknowably.add(alloca)
                continue
            for v in ins.operands:
                alloca = alloca_of.get(provenance.base.get(v))      # type: ignore[arg-type]
                if alloca is not None:
                    chains[alloca].add(loops.get(block, ()))
    entry = first_block(func.body)
    chosen = [a for a in allocas if a.block is entry and a not in indexed_unknowably
              and any(loop not in other for chain in chains[a] for other in chains[a] for loop in chain)]
    if not chosen:
        return 0
    position = max(entry.instrs.index(a) for a in chosen) + 1
    group = entry.insert(position, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
    parity = entry.insert(position + 1, Instr("and", [group, Const(I64, 1)], I64))
    position += 2
    moved: dict[Value, Instr] = {}
    for alloca in chosen:
        stride = -(-int(alloca.attrs["size"]) // 16) * 16    # a whole number of any element width
        alloca.attrs["size"] = 2 * stride
        offset = entry.insert(position, Instr("mul", [parity, Const(I64, stride)], I64))
        moved[alloca] = entry.insert(position + 1, Instr("ptradd", [alloca, offset], alloca.type))
        position += 2
    for ins in func.instructions():
        if ins in moved.values():
            continue
        ins.operands = [moved.get(v, v) for v in ins.operands]
    func.update_cfg()
    return len(chosen)
