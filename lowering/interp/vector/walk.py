"""The lock-step interpreter: every lane of a batch of work-groups runs the structured tree together,
each SSA value a numpy array over the lanes, under an execution mask.

    run_vector_kernel(func, args, global_size, local_size, global_offset=0, subgroup_size=16)

Control flow follows the tree as a GPU (or lavapipe's gallivm) runs it: an `if` runs its then list under
mask & cond and its else list under mask & ~cond (an arm with no lane is skipped); a loop repeats its body
while any lane is in it; a lane that breaks waits at the loop's exit, one that continues waits for the next
iteration, one that returns is done. A phi takes, in each lane, the value for the block that lane came
from (the walk records which lanes arrive from which block). Inactive lanes keep their values, so a lane
that left a loop still reads what it computed in its last iteration.

Lanes: the work-items of a batch of whole work-groups (at most BATCH_LANES lanes, fewer for a kernel
with so many SSA values that their arrays would pass VALUE_BYTES; at least one group),
group-major, by linear local id within a group: the order in which everything lane-by-lane happens.
Schedule-dependent results follow from it: atomics are applied lane by lane in lane order within one
instruction (so `atomic_inc` hands out old values in lane order, as the sequential oracle does), lanes that
store to the same bytes in one instruction leave the last lane's value, and every lane finishes an
instruction before any lane starts the next (so barriers are satisfied; a barrier that only part of a
work-group reaches is an error, as OpenCL leaves it undefined).

The step limit counts lock-step steps: each block executed adds its instructions once (however many lanes
run it), which bounds every work-item's own count from above; exceeding it is the same one-line error.
"""
from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.interp.run import DEFAULT_MAX_STEPS, Size, _is_local_size, _ModuleSymbol, describe_block
from reconverge.lowering.interp.values import InterpreterError, from_host, launch_range
from reconverge.lowering.interp.vector.compile import Closure, compile_instr, getter
from reconverge.lowering.interp.vector.lanes import LaneError, dtype_of, full
from reconverge.lowering.interp.vector.subgroups import DEFAULT_SUBGROUP_SIZE, Layout
from reconverge.lowering.interp.vector.vmemory import VectorMemory
from reconverge.lowering.ir.core import Block, CFNode, Function, If, Instr, Loop, Phi

BATCH_LANES = 1 << 15
VALUE_BYTES = 1 << 29       # lanes per batch shrink so that one 8-byte array per SSA value stays under this


class Active:
    """An execution mask: `mask` (bool per lane), `full` (every lane), `idx` (the active lanes' numbers)."""
    __slots__ = ("mask", "full", "_idx")

    def __init__(self, mask: np.ndarray, is_full: bool | None = None):
        self.mask = mask
        self.full = bool(mask.all()) if is_full is None else is_full
        self._idx: np.ndarray | None = None

    @property
    def idx(self) -> np.ndarray:
        if self._idx is None:
            self._idx = np.flatnonzero(self.mask)
        return self._idx


Arrivals = list[tuple[Block | None, np.ndarray]]     # (block the lanes came from, their mask)


class _Loop:
    __slots__ = ("breaks", "continues")

    def __init__(self) -> None:
        self.breaks: Arrivals = []
        self.continues: Arrivals = []


@depth_independent
def run_vector_kernel(func: Function, args: Sequence[Any], global_size: Size, local_size: Size,
                      global_offset: Size = 0, *, max_steps: int = DEFAULT_MAX_STEPS, uninitialized: int = 0,
                      subgroup_size: int = DEFAULT_SUBGROUP_SIZE) -> None:
    """Run `func` (structured form) over the NDRange in lock step, updating the numpy arrays in `args`."""
    VectorInterpreter(func, max_steps=max_steps, uninitialized=uninitialized,
                      subgroup_size=subgroup_size).run(args, global_size, local_size, global_offset)


class VectorInterpreter:
    def __init__(self, func: Function, *, max_steps: int = DEFAULT_MAX_STEPS, uninitialized: int = 0,
                 subgroup_size: int = DEFAULT_SUBGROUP_SIZE):
        if not func.is_structured:
            raise InterpreterError(f"{func.name}: the lock-step interpreter runs the structured form only")
        if subgroup_size < 1 or subgroup_size & (subgroup_size - 1):
            raise InterpreterError(f"sub-group size {subgroup_size} is not a power of two")
        self.func = func
        self.max_steps = max_steps or sys.maxsize
        self.undef_byte = uninitialized
        self.subgroup_size = subgroup_size
        self.memory = VectorMemory(uninitialized)
        self.symbols: dict[str, Any] = {}
        self.n = 0
        self._code: dict[Block, list[tuple[Instr, Closure, bool]]] = {}
        self._block_no = {b: i for i, b in enumerate(func.all_blocks())}
        self._ids: dict[str, list[Any]] = {}
        self._uniform: dict[str, tuple[int, int, int]] = {}
        self._work_dim = 1
        self._gids: list[np.ndarray] = []
        self._groups = 1
        self._local = 1
        self.steps = 0

    # ----- the NDRange, batch by batch -----
    def run(self, args: Sequence[Any], global_size: Size, local_size: Size, global_offset: Size = 0) -> None:
        func = self.func
        rng = launch_range(func, args, global_size, local_size, global_offset)
        if not func.body:
            raise InterpreterError(f"{func.name} has no code (structured form)")
        self._work_dim = rng.work_dim
        g3, l3, o3, n3 = rng.global_size, rng.local_size, rng.offset, rng.groups
        self._uniform = dict(global_size=g3, local_size=l3, num_groups=n3, global_offset=o3)
        local = l3[0] * l3[1] * l3[2]
        groups = [(gx, gy, gz) for gz in range(n3[2]) for gy in range(n3[1]) for gx in range(n3[0])]
        values = sum(1 for ins in func.instructions() if ins.has_result)
        per_batch = max(1, min(BATCH_LANES, VALUE_BYTES // (8 * max(1, values))) // local)
        with np.errstate(all="ignore"):
            env0 = self._map_args(args)
            self._map_constants()
            for start in range(0, len(groups), per_batch):
                batch = groups[start:start + per_batch]
                self._start_batch(batch, l3, o3, local)
                env = dict(env0)
                for a, nbytes in self._local_params:          # a fresh block per group for __local T *p
                    env[a] = self._group_slots(a.name or f"arg{a.index}", max(nbytes, 1), 16, None)
                self.steps = 0
                every = np.ones(self.n, bool)
                self._run_list(func.body, env, Active(every, True), [(None, every)], None)

    def _start_batch(self, batch: list[tuple[int, int, int]], l3: tuple[int, int, int], o3: tuple[int, int, int],
                     local: int) -> None:
        self.n = n = len(batch) * local
        self._groups, self._local = len(batch), local
        lane = np.arange(n, dtype=np.int64)
        lin = lane % local
        lid = [lin % l3[0], (lin // l3[0]) % l3[1], lin // (l3[0] * l3[1])]
        grp = np.array(batch, dtype=np.int64)[lane // local]
        self._ids = {
            "local_id": [x.astype(np.uint64) for x in lid],
            "group_id": [grp[:, d].astype(np.uint64) for d in range(3)],
            "global_id": [(grp[:, d] * l3[d] + lid[d] + o3[d]).astype(np.uint64) for d in range(3)],
        }
        self._gids = self._ids["global_id"]
        self.layout = Layout(len(batch), local, self.subgroup_size)
        self.memory.reset("local")
        self.memory.reset("private")
        for entry in self.func.local_memory:
            s = _ModuleSymbol(entry, "local")
            self.symbols[s.name] = self._group_slots(s.name, s.size, s.align, s.init)
        self._code.clear()                                # closures cache per-batch lane counts

    def _group_slots(self, name: str, size: int, align: int, init: bytes | None) -> np.ndarray:
        """A __local block per work-group of the batch: each lane gets its group's block's address."""
        buf, stride = self.memory.allocate_slots("local", name, size, align, self._groups, self._local)
        if init is not None:
            for g in range(self._groups):
                buf.bytes[g * stride:g * stride + len(init)] = np.frombuffer(init, np.uint8)
        group = np.arange(self.n, dtype=np.uint64) // np.uint64(self._local)
        return np.uint64(buf.base) + group * np.uint64(stride)

    def alloca(self, name: str, size: int, align: int) -> np.ndarray:
        """Private memory: a slot per lane."""
        buf, stride = self.memory.allocate_slots("private", name, size, align, self.n)
        return np.uint64(buf.base) + np.arange(self.n, dtype=np.uint64) * np.uint64(stride)

    def _map_args(self, args: Sequence[Any]) -> dict[Any, Any]:
        env: dict[Any, Any] = {}
        self._local_params: list[tuple[Any, int]] = []
        for a, x in zip(self.func.args, args):
            name = a.name or f"arg{a.index}"
            if a.type.is_ptr and _is_local_size(x):
                self._local_params.append((a, int(x.nbytes)))
                env[a] = np.uint64(0)
            elif a.type.is_ptr and isinstance(x, np.ndarray):
                kind = "constant" if a.type.addrspace == 2 else "global"
                env[a] = np.uint64(self.memory.map_array(kind, name, x, readonly=kind == "constant").base)
            elif a.type.is_ptr and x is None:
                env[a] = np.uint64(0)
            else:
                try:
                    value = from_host(a.type, x)
                except (InterpreterError, TypeError, ValueError) as e:
                    raise InterpreterError(f"{self.func.name}: argument {a.index} ({name}: {a.type}): {e}") from None
                dt = dtype_of(a.type)
                env[a] = dt.type(value) if dt.kind != "O" else full(np.array(value, dtype=object), 1, dt)[0]
        return env

    def _map_constants(self) -> None:
        for entry in self.func.constant_data:
            s = _ModuleSymbol(entry, "constant")
            self.symbols[s.name] = np.uint64(self.memory.allocate(s.kind, s.name, s.size, s.align, s.init,
                                                                  s.readonly).base)

    # ----- builtins the closures call -----
    def workitem(self, fn: str, dim: Any, ty: Any) -> Any:
        dt = dtype_of(ty)
        if fn == "work_dim":
            return dt.type(self._work_dim)
        d = np.asarray(dim)
        if d.ndim:                                          # a dimension that differs per lane
            out = np.zeros(self.n, dt)
            for k in np.unique(d).tolist():
                out[d == k] = np.asarray(self.workitem(fn, np.uint32(k), ty), dtype=dt)
            return out
        k = int(d)
        if fn in self._ids:
            return self._ids[fn][k].astype(dt) if k < 3 else dt.type(0)
        if fn in self._uniform:
            if k < 3:
                return dt.type(self._uniform[fn][k])
            return dt.type(1 if fn in ("global_size", "local_size", "num_groups") else 0)
        raise InterpreterError(f"unknown work-item function {fn!r}")

    def barrier(self, act: Active) -> None:
        """Every work-group of the batch reaches it with all its lanes or none."""
        if act.full:
            return None
        per_group = act.mask.reshape(self._groups, self._local)
        count = per_group.sum(axis=1)
        bad = (count > 0) & (count < self._local)
        if bad.any():
            g = int(np.argmax(bad))
            missing = g * self._local + int(np.argmax(~per_group[g]))
            arrived = g * self._local + int(np.argmax(per_group[g]))
            raise LaneError(arrived, InterpreterError(
                f"barrier not reached by every work-item of the group (work-item ({self._gid(missing)}) "
                "is elsewhere: returned, left a loop or took another branch)"))
        return None

    # ----- the walk -----
    def _run_list(self, nodes: list[CFNode], env: dict[Any, Any], act: Active | None, arrivals: Arrivals,
                  loop: _Loop | None) -> tuple[Active | None, Arrivals]:
        """Run a CF list under `act`; returns the lanes that fall off its end and where they came from."""
        for node in nodes:
            if act is None:
                return None, []
            if type(node) is Block:
                act = self._run_block(node, env, act, arrivals)
                jump = node.instrs[-1].opcode if node.instrs and node.instrs[-1].is_jump else None
                if jump is None:
                    arrivals = [(node, act.mask)]
                    continue
                if jump != "return":
                    if loop is None:
                        raise self._located(node, node.instrs[-1], InterpreterError(f"{jump} outside any loop"),
                                            int(act.idx[0]))
                    (loop.breaks if jump == "break" else loop.continues).append((node, act.mask))
                return None, []
            elif type(node) is If:
                act, arrivals = self._run_if(node, env, act, loop)
            elif type(node) is Loop:
                act, arrivals = self._run_loop(node, env, act, arrivals)
            else:
                raise InterpreterError(f"{self.func.name}: unexpected node {node!r} in the control-flow tree")
        return act, arrivals

    def _run_if(self, node: If, env: dict[Any, Any], act: Active, loop: _Loop | None) -> tuple[Active | None, Arrivals]:
        """Both arms under complementary masks (an arm no lane takes is skipped)."""
        try:
            cond = getter(node.cond, self.undef_byte)(env)
        except KeyError as e:
            raise self._located(node_block(node), None, e, int(act.idx[0])) from None
        c = np.asarray(cond, dtype=bool)
        if c.ndim == 0:                                   # a constant condition
            return self._run_list(node.then_list if c else node.else_list, env, act, [(None, act.mask)], loop)
        out: list[np.ndarray] = []
        arrivals: Arrivals = []
        for lst, m in ((node.then_list, act.mask & c), (node.else_list, act.mask & ~c)):
            if not m.any():
                continue
            a, arr = self._run_list(lst, env, Active(m), [(None, m)], loop)
            if a is not None:
                out.append(a.mask)
                arrivals += arr
        if not out:
            return None, []
        return Active(out[0] if len(out) == 1 else out[0] | out[1]), arrivals

    def _run_loop(self, node: Loop, env: dict[Any, Any], act: Active,
                  arrivals: Arrivals) -> tuple[Active | None, Arrivals]:
        ctx = _Loop()
        cur: Active | None = act
        while cur is not None:
            ctx.continues = []
            out, arr = self._run_list(node.body, env, cur, arrivals, ctx)
            arrivals = list(ctx.continues)
            if out is not None:
                arrivals += arr
            if not arrivals:
                break
            m = arrivals[0][1]
            for _, more in arrivals[1:]:
                m = m | more
            cur = Active(m) if m.any() else None
        if not ctx.breaks:
            return None, []
        m = ctx.breaks[0][1]
        for _, more in ctx.breaks[1:]:
            m = m | more
        return (Active(m) if m.any() else None), ctx.breaks

    def _run_block(self, block: Block, env: dict[Any, Any], act: Active, arrivals: Arrivals) -> Active:
        code = self._code.get(block)
        if code is None:
            code = self._code[block] = self._compile_block(block)
        self.steps += max(1, len(block.instrs))
        if self.steps > self.max_steps:
            raise self._located(block, None, InterpreterError(
                f"step limit of {self.max_steps} per work-item exceeded (a loop that never ends? raise it "
                f"with --max-steps, 0 for none)"), int(act.idx[0]))
        if code and type(code[0][0]) is Phi:
            self._phis(block, env, act, arrivals)
        n = self.n
        for ins, fn, merged in code:
            if type(ins) is Phi:
                continue
            try:
                r = fn(env, act)
            except LaneError as e:
                raise self._located(block, ins, e.exc, e.lane) from None
            except InterpreterError as e:
                raise self._located(block, ins, e, int(act.idx[0])) from None
            if r is None:
                continue
            if np.ndim(r) == 0 or len(r) != n:
                r = full(r, n, dtype_of(ins.type))
            if not merged and not act.full:
                old = env.get(ins)
                if old is not None:
                    r = np.where(act.mask, r, old)
            env[ins] = r
        return act

    def _phis(self, block: Block, env: dict[Any, Any], act: Active, arrivals: Arrivals) -> None:
        """Each lane's phi values for the block it came from; every phi read before any is written."""
        new = {}
        for phi in block.phis():
            dt = dtype_of(phi.type)
            old = env.get(phi)
            out = None if act.full and len(arrivals) == 1 else (
                full(old, self.n, dt).copy() if old is not None else np.zeros(self.n, dt))
            for pred, m in arrivals:
                try:
                    v = phi.value_for(pred) if pred is not None else None
                except ValueError:
                    v = None
                if v is None:
                    came = self._describe(pred) if pred is not None else "the function entry"
                    raise self._located(block, phi, InterpreterError(f"no incoming value for {came}"),
                                        int(np.argmax(m)))
                val = getter(v, self.undef_byte)(env)
                if out is None:
                    out = full(val, self.n, dt).copy() if np.ndim(val) == 0 else val
                else:
                    np.copyto(out, val, where=m, casting="unsafe")
            new[phi] = out
        env.update(new)

    def _compile_block(self, block: Block) -> list[tuple[Instr, Closure, bool]]:
        out: list[tuple[Instr, Closure, bool]] = []
        last = block.instrs[-1] if block.instrs else None
        for ins in block.instrs:
            if isinstance(ins, Phi):
                out.append((ins, _no_closure, True))
                continue
            if ins is last and ins.is_jump:
                continue
            try:
                if ins.is_terminator:
                    raise InterpreterError(f"CFG terminator {ins.opcode} in a structured function")
                if ins.is_jump:
                    raise InterpreterError(f"{ins.opcode} is not the last instruction of its block")
                fn, merged = compile_instr(ins, self)
            except InterpreterError as e:
                raise self._located(block, ins, e, 0) from None
            out.append((ins, fn, merged))
        return out

    # ----- messages -----
    def _gid(self, lane: int) -> str:
        return ",".join(str(int(self._gids[d][lane])) for d in range(self._work_dim))

    def _describe(self, block: Block) -> str:
        return describe_block(block, self._block_no.get(block, block.index))

    def _located(self, block: Block | None, ins: Instr | None, exc: Exception, lane: int) -> InterpreterError:
        """An InterpreterError naming the function, block, instruction and work-item (lane) of a failure."""
        if getattr(exc, "located", False):
            return exc  # type: ignore[return-value]
        msg = str(exc) if isinstance(exc, InterpreterError) else f"{type(exc).__name__}: {exc}"
        if isinstance(exc, KeyError) and exc.args:
            from reconverge.lowering.interp.run import describe_value
            msg = f"uses {describe_value(exc.args[0])} before it is defined"
        where = [f"in {self.func.name}"]
        if block is not None:
            where.append(f"block {self._describe(block)}")
        if ins is not None:
            pos = block.instrs.index(ins) if block is not None and ins in block.instrs else -1
            where.append(f"instruction {pos} ({ins.opcode}{' %' + ins.name if ins.name else ''})")
        err = InterpreterError(f"{', '.join(where)}, work-item ({self._gid(lane) if self._gids else '0'}): {msg}")
        err.located = True  # type: ignore[attr-defined]
        return err


def node_block(node: CFNode) -> Block | None:
    """The block just before an if (where its condition is computed), for messages."""
    from reconverge.lowering.ir.core import cf_list_of
    nodes = cf_list_of(node)
    i = next(k for k, x in enumerate(nodes) if x is node)
    before = nodes[i - 1] if i else None
    return before if isinstance(before, Block) else None


def _no_closure(env: dict[Any, Any], act: Active) -> None:
    return None
