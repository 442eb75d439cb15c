"""The per-work-item IR interpreter: runs a kernel Function, in CFG or structured form, over an NDRange.

Over 600 lines: the compile-once closures and the two walkers (CFG, tree) share the compiled-block
cache and the located-error reporting.

`run --target ir` uses the lock-step vector interpreter (lowering.interp.vector) instead; this one stays
for what only it does: the CFG form (pass tests run a kernel before and after a pass, before structurizing),
the `on_block` block trace that compares the two forms, the uninitialized-data trace (trace), and one
work-item at a time, the JIT oracle's own schedule. It has no sub-groups: a sub-group operation is an
error here.

It is the project's execution oracle for its own IR: the same kernel run here before and after a pass
(or compared with the CPU JIT of the original LLVM IR, tools/targets/jit_oracle.py) must give the same buffers.

    run_kernel(func, args, global_size: Size, local_size: Size, global_offset: Size = 0)

`args` follow the JIT oracle's convention: a numpy array per pointer argument (stores land in it in place),
a numpy (or Python) scalar per scalar argument. Work-items run one at a time, to completion, work-group by
work-group (dimension 0 fastest, then 1, then 2), and within a group item by item in the same order: the
JIT oracle's order, so the two agree even on kernels whose result depends on the schedule.

Consequently `barrier` is a no-op: with one work-item running to completion before the next starts there
is nothing to wait for. This is *not* OpenCL's semantics for kernels that communicate through `__local`
memory across a barrier (an item reads what later items have not written yet), but it is exactly what the
sequential JIT oracle does, and the interpreter's job is to agree with it and with itself across passes.
`lockstep=True` gives real barrier semantics instead (lockstep).

Control flow:
  - CFG form: follow the terminators; the phis of a block are evaluated as parallel copies for the edge
    taken (all incoming values read before any phi is written).
  - structured form: walk the tree - an if runs one branch, a loop repeats its body until a break (a
    continue restarts it), a return leaves the function; phis are evaluated for the block control came
    from, i.e. the last block executed.
A step limit per work-item (instructions, plus one per block entered) turns a loop that never ends into an
error rather than a hang.

Modules: values (value representation), ops (opcode semantics), memory (the flat
address space), codegen (blocks compiled to Python functions), lockstep (barrier schedule).
Each instruction is first resolved to a closure over ops (`_compile`); codegen then strings a
block's instructions together into one function, inlining the common ones.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence, cast

import numpy as np

import reconverge.lowering.interp.ops as ops
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.interp.codegen import At, compile_body, compile_phi_copy
from reconverge.lowering.interp.memory import KIND_OF_ADDRSPACE, Memory
from reconverge.lowering.interp.values import InterpreterError, const_value, from_host, launch_range, mask, opcode_of
from reconverge.lowering.ir.core import (
    Arg,
    Block,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
)
from reconverge.lowering.ir.opcodes import OPCODES

__all__ = ["run_kernel", "uninitialized_dependence", "Interpreter", "InterpreterError", "DEFAULT_MAX_STEPS"]

DEFAULT_MAX_STEPS = 60_000_000     # per work-item: 2x what 4,096 chained SHA-1 compressions take (tools/step_budget.py)
Env = dict[Any, Any]     # a work-item's values: IR value (or a bound closure's key) -> interpreter value
Size = int | Sequence[int]    # an NDRange size or offset: one to three dimensions
Getter = Callable[[Env], Any]
Code = tuple[Callable[[Env], None], list[Instr]]     # a block body compiled by codegen, and its instructions


def _uncompiled(env: Env) -> None:
    raise AssertionError("a block ran before it was compiled")


@depth_independent
def run_kernel(func: Function, args: Sequence[Any], global_size: Size, local_size: Size, global_offset: Size = 0, *,
               max_steps: int = DEFAULT_MAX_STEPS, on_block: Callable[[Block], None] | None = None,
               lockstep: bool = False, uninitialized: int = 0) -> None:
    """Run `func` over the NDRange, modifying the numpy arrays in `args` in place.

    `on_block(block)` is called each time a block is entered (for comparing block traces between forms).
    `lockstep=True` runs each work-group's items as coroutines that all reach a barrier before any passes
    it (OpenCL's semantics, see lockstep) instead of one after the other like the JIT oracle.
    `uninitialized`: the byte that undef values, allocas and __local arrays are made of (default 0); running
    twice with different bytes and comparing shows whether a result depends on uninitialized data."""
    Interpreter(func, max_steps=max_steps, on_block=on_block, lockstep=lockstep,
                uninitialized=uninitialized).run(
        args, global_size, local_size, global_offset)


def uninitialized_dependence(func: Function, make_args: Callable[[], list[Any]], global_size: Size,
                             local_size: Size, global_offset: Size = 0,
                             fills: Sequence[int] = (0x00, 0x5A, 0xFF)) -> list[int]:
    """Indices of the buffers whose final contents change with the `uninitialized` fill byte: non-empty
    means the kernel's result depends on undef values or uninitialized memory (for a function made from a
    well-defined kernel, a bug in the pass that made it). `make_args()` must return fresh, equal arguments."""
    results = []
    for fill in fills:
        args = make_args()
        run_kernel(func, args, global_size, local_size, global_offset, uninitialized=fill)
        results.append([a.tobytes() if isinstance(a, np.ndarray) else None for a in args])
    return [i for i, first in enumerate(results[0])
            if first is not None and any(r[i] != first for r in results[1:])]


def _is_local_size(x: object) -> bool:
    """A `__local T *` argument given as a size (tools.targets.harness.LocalArg: .count and .nbytes), not memory."""
    return hasattr(x, "nbytes") and hasattr(x, "count") and not isinstance(x, np.ndarray)


def describe_value(v: Value) -> str:
    if isinstance(v, Arg):
        return f"argument {v.index}" + (f" %{v.name}" if v.name else "")
    if isinstance(v, Instr):
        return f"%{v.name}" if v.name else f"the {v.opcode} result"
    return repr(v)


def describe_block(b: Block, number: int | None = None) -> str:
    return f"b{b.index if number is None else number}" + (f" ({b.label})" if b.label else "")


class _CompiledBlock:
    """A block resolved once: a parallel copy of its phis per predecessor, its body as (instr, closure)
    entries and as one generated function, and what ends it (a CFG terminator or a structured jump)."""
    __slots__ = ("phis", "body", "code", "steps", "term", "jump", "segments")

    def __init__(self) -> None:
        self.phis: dict[Block | None, Callable[[Env], None]] | None = None   # predecessor -> phis' parallel copy
        self.body: list[tuple[Instr, Getter, bool]] = []
        self.code: Code = (_uncompiled, [])    # body compiled by codegen (set by _compile_block)
        self.steps = 1
        self.term: Callable[[Env], Block | None] | None = None   # CFG form: next block, None to return
        self.jump: str | None = None                             # structured form: break/continue/return
        # lockstep mode: the body cut at its barriers, [(code, barrier or None)]; None: no barrier
        self.segments: list[tuple[Code, Instr | None]] | None = None


class _ModuleSymbol:
    """A module-level buffer (a __local array, constant data or a program-scope global) as the interpreter
    needs it. Entries of Function.local_memory/constant_data are read by field name - the front end's
    ModuleData (symbol/name, addrspace, size, align, init bytes or None, writable) or a dict of them."""

    def __init__(self, entry: Any, kind: str):
        get = entry.get if isinstance(entry, dict) else (lambda k, d=None: getattr(entry, k, d))
        self.name = cast(str, get("name") or get("symbol"))
        init = next((x for x in (get("data"), get("init"), get("initializer"), get("bytes")) if x is not None),
                    None)
        if isinstance(init, np.ndarray):
            init = init.tobytes()
        self.init: bytes | None = bytes(init) if init is not None else None
        size = get("size")
        self.size = int(size) if size is not None else len(self.init or b"")
        self.align = int(get("align") or 16)
        space, writable = get("addrspace"), get("writable")
        self.kind = KIND_OF_ADDRSPACE.get(space, kind) if space is not None else kind
        if self.kind == "private":       # module data in address space 0 lives for the whole launch
            self.kind = "global" if writable else "constant"
        self.readonly = self.kind == "constant" and not writable
        if not self.name:
            raise InterpreterError(f"a {kind} data entry has no name: {entry!r}")


class Interpreter:
    def __init__(self, func: Function, *, max_steps: int = DEFAULT_MAX_STEPS,
                 on_block: Callable[[Block], None] | None = None, lockstep: bool = False,
                 uninitialized: int = 0):
        if not 0 <= uninitialized <= 255:
            raise ValueError("uninitialized must be a byte value")
        self.func = func
        self.lockstep = lockstep
        self.undef_byte = uninitialized
        self.max_steps = max_steps
        self.on_block = on_block
        self.steps = 0                        # instructions (and blocks) executed, all work-items
        self._step_limit = max_steps          # self.steps at which the current work-item has used max_steps
        self.memory = Memory(uninitialized)
        self.symbols: dict[str, int] = {}
        self._compiled: dict[Block, _CompiledBlock] = {}
        self._cond: dict[If, Getter] = {}
        self._wi: dict[str, tuple[int, int, int]] = {}
        self._work_dim = 1
        self._item = (0, 0, 0)
        # block numbers for messages, as Function.index_blocks would give them (without renumbering)
        self._block_no = {b: i for i, b in enumerate(func.all_blocks())}

    # ----- the NDRange -----
    def run(self, args: Sequence[Any], global_size: Size, local_size: Size, global_offset: Size = 0) -> None:
        func = self.func
        rng = launch_range(func, args, global_size, local_size, global_offset)
        if not (func.body if func.is_structured else func.blocks):
            raise InterpreterError(f"{func.name} has no code ({'structured' if func.is_structured else 'CFG'} form)")
        self._work_dim = rng.work_dim
        g3, l3, o3, n3 = rng.global_size, rng.local_size, rng.offset, rng.groups
        self._wi.update(global_size=g3, local_size=l3, num_groups=n3, global_offset=o3)

        with np.errstate(all="ignore"):
            for kind in ("global", "constant", "local", "private"):     # a fresh address space per launch
                self.memory.reset(kind)
            self.symbols.clear()
            env0 = self._map_args(args)
            self._map_constants()
            local_ids = [(lx, ly, lz) for lz in range(l3[2]) for ly in range(l3[1]) for lx in range(l3[0])]
            for grp in [(gx, gy, gz) for gz in range(n3[2]) for gy in range(n3[1]) for gx in range(n3[0])]:
                self._start_group()
                for a, nbytes in self._local_params:          # a fresh block per group for __local T *p
                    env0[a] = self.memory.allocate("local", a.name or f"arg{a.index}", max(nbytes, 1), 16).base
                items = [(grp, lid, tuple(g * l + i + o for g, l, i, o in zip(grp, l3, lid, o3)))
                         for lid in local_ids]
                if self.lockstep:
                    from reconverge.lowering.interp.lockstep import run_group
                    run_group(self, items, env0)
                    continue
                for item in items:
                    self._set_item(item)
                    self._step_limit = self.steps + self.max_steps
                    self.memory.reset("private")
                    for _ in self.walk(dict(env0)):
                        pass                                         # no barrier yields sequentially

    def _set_item(self, item: tuple[Any, ...]) -> None:
        """Make (group id, local id, global id) the current work-item's."""
        wi = self._wi
        wi["group_id"], wi["local_id"], wi["global_id"] = item
        self._item = item[2]

    def _map_args(self, args: Sequence[Any]) -> Env:
        env: Env = {}
        self._local_params = []
        for a, x in zip(self.func.args, args):
            name = a.name or f"arg{a.index}"
            if a.type.is_ptr and _is_local_size(x):
                self._local_params.append((a, int(x.nbytes)))
                env[a] = 0
            elif a.type.is_ptr and isinstance(x, np.ndarray):
                # a __constant buffer is read-only; any other (a __local pointer argument too, as the JIT
                # oracle passes it) is the caller's array, mapped in place for the whole launch
                kind = "constant" if a.type.addrspace == 2 else "global"
                env[a] = self.memory.map_array(kind, name, x, readonly=kind == "constant").base
            elif a.type.is_ptr and x is None:
                env[a] = 0
            else:
                try:
                    env[a] = from_host(a.type, x)
                except (InterpreterError, TypeError, ValueError) as e:
                    raise InterpreterError(f"{self.func.name}: argument {a.index} ({name}: {a.type}): {e}") from None
        return env

    def _map_constants(self) -> None:
        for entry in self.func.constant_data:
            s = _ModuleSymbol(entry, "constant")
            self.symbols[s.name] = self.memory.allocate(s.kind, s.name, s.size, s.align, s.init,
                                                        s.readonly).base

    def _start_group(self) -> None:
        """Fresh __local arrays for each work-group (their initial contents are undefined in OpenCL)."""
        self.memory.reset("local")
        for entry in self.func.local_memory:
            s = _ModuleSymbol(entry, "local")
            self.symbols[s.name] = self.memory.allocate("local", s.name, s.size, s.align, s.init).base

    def _workitem(self, fn: str, dim: int) -> int:
        if fn == "work_dim":
            return self._work_dim
        try:
            table = self._wi[fn]
        except KeyError:
            raise InterpreterError(f"unknown work-item function {fn!r}") from None
        if dim < 3:
            return table[dim]
        return 1 if fn in ("global_size", "local_size", "num_groups") else 0   # OpenCL: out-of-range dims

    # ----- the two walks -----
    # Both are generators that yield only at a barrier, and only in lockstep mode (lockstep
    # resumes them); the sequential schedule runs one to completion with a single next(). The tree walk
    # keeps an explicit stack of CF lists, so nesting depth is not limited by Python's recursion limit.
    def walk(self, env: Env) -> Iterator[Instr]:
        """Run one work-item's function body; yields each barrier reached (lockstep mode only)."""
        return self._walk_tree(env) if self.func.is_structured else self._walk_cfg(env)

    def _walk_cfg(self, env: Env) -> Iterator[Instr]:
        block: Block | None = self.func.blocks[0]
        prev: Block | None = None
        while block is not None:
            cb = self._enter_head(block, prev, env)
            if self.lockstep and cb.segments is not None:
                yield from self._segments(block, cb, env)
            else:
                self._run_body(block, cb.code, env)
            if cb.term is None:
                raise self._located(block, block.instrs[-1] if block.instrs else None,
                                    InterpreterError("block does not end in a CFG terminator"))
            try:
                after = cb.term(env)
            except Exception as e:                                       # noqa: BLE001 - re-raised located
                raise self._located(block, block.instrs[-1], e) from None
            prev, block = block, after

    def _walk_tree(self, env: Env) -> Iterator[Instr]:
        """An if runs one branch, a loop repeats its body until a break (continue restarts it), return
        leaves; `prev` is the last block executed, the predecessor the phis are evaluated for."""
        prev: Block | None = None
        stack: list[list[Any]] = [[self.func.body, 0, False]]     # [CF list, next position, is a loop body]
        while stack:
            frame = stack[-1]
            nodes, i = frame[0], frame[1]
            if i == len(nodes):
                if frame[2]:
                    frame[1] = 0                               # end of a loop body: go round again
                else:
                    stack.pop()
                continue
            node = nodes[i]
            frame[1] = i + 1
            if type(node) is Block:
                cb = self._enter_head(node, prev, env)
                if self.lockstep and cb.segments is not None:
                    yield from self._segments(node, cb, env)
                else:
                    self._run_body(node, cb.code, env)
                prev = node
                jump = cb.jump
                if jump is None:
                    continue
                if jump == "return":
                    return
                if not any(f[2] for f in stack):
                    raise self._located(node, node.instrs[-1], InterpreterError(f"{jump} outside any loop"))
                while not stack[-1][2]:                        # leave the ifs up to the innermost loop
                    stack.pop()
                if jump == "break":
                    stack.pop()
                else:
                    stack[-1][1] = 0
            elif type(node) is If:
                cond = self._cond.get(node)
                if cond is None:
                    cond = self._cond[node] = self._getter(node.cond)
                try:
                    taken = cond(env)
                except Exception as e:                                   # noqa: BLE001
                    raise self._located(prev, None, e, what=f"if condition {describe_value(node.cond)}") from None
                stack.append([node.then_list if taken else node.else_list, 0, False])
            elif type(node) is Loop:
                stack.append([node.body, 0, True])
            else:
                raise InterpreterError(f"{self.func.name}: unexpected node {node!r} in the control-flow tree")

    def _segments(self, block: Block, cb: _CompiledBlock, env: Env) -> Iterator[Instr]:
        for code, barrier in cb.segments or ():
            self._run_body(block, code, env)
            if barrier is not None:
                yield barrier

    def _enter_head(self, block: Block, prev: Block | None, env: Env) -> _CompiledBlock:
        """Count the steps, call the hook, evaluate the phis: everything of a block but its body."""
        cb = self._compiled.get(block)
        if cb is None:
            cb = self._compiled[block] = self._compile_block(block)
        self.steps += cb.steps
        if self.steps > self._step_limit:
            raise self._located(block, None, InterpreterError(
                f"step limit of {self.max_steps} per work-item exceeded (a loop that never ends? raise it "
                f"with --max-steps, 0 for none)"))
        if self.on_block is not None:
            self.on_block(block)
        if cb.phis is not None:
            copy = cb.phis.get(prev)
            if copy is None:
                came = self._describe(prev) if prev is not None else "the function entry"
                missing = next(phi for phi in block.phis() if prev not in phi.blocks)
                raise self._located(block, missing, InterpreterError(f"no incoming value for {came}"))
            try:
                copy(env)                                                # a parallel copy
            except At as e:
                raise self._located(block, list(block.phis())[e.pos], e.exc) from None
        return cb

    def _run_body(self, block: Block, code: Code, env: Env) -> None:
        try:
            code[0](env)
        except At as e:
            raise self._located(block, code[1][e.pos], e.exc) from None

    def _describe(self, block: Block) -> str:
        return describe_block(block, self._block_no.get(block, block.index))

    def _located(self, block: Block | None, ins: Instr | None, exc: Exception, what: str = "") -> InterpreterError:
        """An InterpreterError naming the function, block, instruction and work-item of a failure."""
        if getattr(exc, "located", False):
            return exc  # type: ignore[return-value]
        if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], Value):
            msg = f"uses {describe_value(exc.args[0])} before it is defined"
        elif isinstance(exc, InterpreterError):
            msg = str(exc)
        else:
            msg = f"{type(exc).__name__}: {exc}"
        where = [f"in {self.func.name}"]
        if block is not None:
            where.append(f"block {self._describe(block)}")
        if ins is not None:
            pos = block.instrs.index(ins) if block is not None and ins in block.instrs else -1
            where.append(f"instruction {pos} ({ins.opcode}{' %' + ins.name if ins.name else ''})")
        if what:
            where.append(what)
        gid = ",".join(str(i) for i in self._item[:self._work_dim])
        err = InterpreterError(f"{', '.join(where)}, work-item ({gid}): {msg}")
        err.located = True  # type: ignore[attr-defined]
        return err

    # ----- compilation of blocks and instructions to closures -----
    def _compile_block(self, block: Block) -> _CompiledBlock:
        cb = _CompiledBlock()
        instrs = block.instrs
        cb.steps = max(1, len(instrs))
        last = instrs[-1] if instrs else None
        phis: list[Phi] = []
        for ins in instrs:
            try:
                if isinstance(ins, Phi):
                    if len(ins.blocks) != len(ins.operands):
                        raise InterpreterError("phi has different numbers of blocks and operands")
                    if ins is not instrs[len(phis)]:
                        raise InterpreterError("phi after a non-phi instruction")
                    phis.append(ins)
                elif ins is last and ins.is_terminator:
                    if self.func.is_structured:
                        raise InterpreterError(f"CFG terminator {ins.opcode} in a structured function")
                    cb.term = self._compile_terminator(ins)
                elif ins is last and ins.is_jump:
                    if not self.func.is_structured:
                        raise InterpreterError(f"structured jump {ins.opcode} in a CFG-form function")
                    cb.jump = ins.opcode
                elif ins.is_terminator or ins.is_jump:
                    raise InterpreterError(f"{ins.opcode} is not the last instruction of its block")
                else:
                    cb.body.append((ins, self._compile(ins), ins.has_result))
            except InterpreterError as e:
                raise self._located(block, ins, e) from None
        preds = [b for b in dict.fromkeys(b for phi in phis for b in phi.blocks) if all(b in p.blocks for p in phis)]
        if phis:
            cb.phis = {b: compile_phi_copy([p.value_for(b) for p in phis], phis, self.undef_byte) for b in preds}
        cb.code = self._code(cb.body)
        if any(ins.opcode == "barrier" for ins, _, _ in cb.body):
            part: list[tuple[Instr, Getter, bool]] = []
            cb.segments = []
            for entry in cb.body:
                if entry[0].opcode == "barrier":
                    cb.segments.append((self._code(part), entry[0]))
                    part = []
                else:
                    part.append(entry)
            cb.segments.append((self._code(part), None))
        return cb

    def _code(self, body: list[tuple[Instr, Getter, bool]]) -> Code:
        return compile_body(body, self.undef_byte), [ins for ins, _, _ in body]

    def _apply(self, f: Callable[..., Any], operands: list[Value]) -> Getter:
        """env -> f(operand values), specialised by operand kind so that reading an operand is an env
        lookup or a constant, not a further call (the interpreter's inner loop)."""
        kinds = "".join("c" if isinstance(v, (Const, Undef)) else "v" for v in operands)
        vals = [const_value(v, self.undef_byte) if k == "c" else v for k, v in zip(kinds, operands)]
        if kinds == "v":
            x, = vals
            run = lambda env: f(env[x])                                  # noqa: E731
        elif kinds == "vv":
            x, y = vals
            run = lambda env: f(env[x], env[y])                          # noqa: E731
        elif kinds == "vc":
            x, y = vals
            run = lambda env: f(env[x], y)                               # noqa: E731
        elif kinds == "cv":
            x, y = vals
            run = lambda env: f(x, env[y])                               # noqa: E731
        else:
            g = [self._getter(v) for v in operands]
            run = lambda env: f(*[x(env) for x in g])                    # noqa: E731
        run.direct = f        # type: ignore[attr-defined]  # for codegen: f of the operand values
        return run

    def _getter(self, v: Value) -> Getter:
        if isinstance(v, (Const, Undef)):
            c = const_value(v, self.undef_byte)
            return lambda env: c
        if isinstance(v, (Instr, Arg)):
            return lambda env: env[v]
        raise InterpreterError(f"cannot evaluate operand {v!r}")

    def _compile_terminator(self, ins: Instr) -> Callable[[Env], Block | None]:
        op, t = ins.opcode, ins.targets
        if op == "br":
            target = t[0]
            return lambda env: target
        if op == "cbr":
            cond, yes, no = self._getter(ins.operands[0]), t[0], t[1]
            return lambda env: yes if cond(env) else no
        if op == "switch":
            sel = self._getter(ins.operands[0])
            m = mask(ins.operands[0].type.bits)
            cases = ins.attrs.get("cases", [])
            if len(t) != len(cases) + 1:
                raise InterpreterError(f"switch has {len(cases)} cases but {len(t)} targets")
            table: dict[int, Block] = {}
            for value, target in zip(cases, t[1:]):
                table.setdefault(int(value) & m, target)
            default = t[0]
            return lambda env: table.get(sel(env), default)
        if op == "ret":
            return lambda env: None
        if op == "unreachable":
            def unreachable(env: Env) -> Block | None:
                raise InterpreterError("reached an unreachable instruction")
            return unreachable
        raise InterpreterError(f"unknown terminator {op!r}")

    def _compile(self, ins: Instr) -> Getter:
        """An evaluator for one non-control instruction: env -> result (None for stores and barriers)."""
        op = ins.opcode
        opcode_of(ins)                   # unknown opcode or operand count: a clear error
        ty, operands = ins.type, ins.operands
        if op in ops.INT_BINARY:
            return self._apply(ops.int_binary(op, operands[0].type.bits), operands)
        if op in ops.INT_UNARY:
            return self._apply(ops.int_unary(op, operands[0].type.bits), operands)
        if op in ops.FLOAT_BINARY:
            return self._apply(ops.float_binary(op, ty), operands)
        if op == "fneg":
            return self._apply(ops.fneg, operands)
        if op in ("fma", "fmuladd"):
            return self._apply(ops.fma(ty) if op == "fma" else ops.fmuladd(ty), operands)
        if op == "math":
            last = operands[-1].type if operands else ty
            return self._apply(ops.math_fn(ins.attrs.get("fn", ""), ty, last.bits if last.is_int else 32), operands)
        if op in ("icmp", "fcmp"):
            pred = ins.attrs.get("pred", "")
            return self._apply(ops.icmp(pred, operands[0].type.bits) if op == "icmp" else ops.fcmp(pred), operands)
        if op == "select":
            c, a, b = (self._getter(v) for v in operands)
            return lambda env: a(env) if c(env) else b(env)
        if op in ops.CASTS:
            return self._apply(ops.cast(op, operands[0].type, ty), operands)
        g = [self._getter(v) for v in operands]
        return self._compile_memory_or_builtin(ins, g)

    def _compile_atomic(self, ins: Instr, g: list[Getter]) -> Getter:
        """Read, modify, write: atomic by construction, since work-items only interleave at barriers
        (sequentially or in lock step). Returns the old value."""
        kind = cast(str, ins.attrs.get("op"))      # the validator makes every atomic name its operation
        vt = ins.operands[1].type if kind == "store" else ins.type
        load, store = self.memory.loader(vt, 1), self.memory.storer(vt, 1)     # caches reset with memory
        m = mask(vt.bits) if vt.is_int else None

        def signed(v: int) -> int:
            return v - (1 << vt.bits) if v >> (vt.bits - 1) else v
        updates: dict[str, Callable[[Any, Any], Any]] = {
                  "add": lambda o, a: (o + a) & m, "sub": lambda o, a: (o - a) & m, "xchg": lambda o, a: a,
                  "inc": lambda o, a: (o + 1) & m, "dec": lambda o, a: (o - 1) & m,
                  "and": lambda o, a: o & a, "or": lambda o, a: o | a, "xor": lambda o, a: o ^ a,
                  "umin": min, "umax": max, "store": lambda o, a: a, "load": lambda o, a: o,
                  "smin": lambda o, a: o if signed(o) <= signed(a) else a,
                  "smax": lambda o, a: o if signed(o) >= signed(a) else a}
        update = updates.get(kind)
        if kind == "cmpxchg":
            p, new, cmp = g

            def cmpxchg(env: Env) -> Any:
                addr = p(env)
                old = load(addr)
                if old == cmp(env):
                    store(addr, new(env))
                return old
            return cmpxchg
        if update is None:
            raise InterpreterError(f"atomic operation {kind!r} is not interpretable")
        p = g[0]
        value = g[1] if len(g) > 1 else (lambda env: 0)

        def rmw(env: Env) -> Any:
            addr = p(env)
            old = load(addr)
            store(addr, update(old, value(env)))
            return old
        return rmw

    def _compile_memory_or_builtin(self, ins: Instr, g: list[Getter]) -> Getter:
        op, ty, mem = ins.opcode, ins.type, self.memory
        align = int(ins.attrs.get("align", 1) or 1)
        if op == "load":
            return self._apply(mem.loader(ty, align), ins.operands)
        if op == "store":
            st = mem.storer(ins.operands[0].type, align)
            run = self._apply(lambda v, p: st(p, v), ins.operands)
            run.store = st    # type: ignore[attr-defined]  # for codegen: st(address, value)
            return run
        if op == "ptradd":
            p, o = g
            m64 = mask(64)
            return lambda env: (p(env) + o(env)) & m64
        if op == "alloca":
            size, align = int(ins.attrs.get("size", 0)), int(ins.attrs.get("align", 1) or 1)
            name = ins.name or "alloca"
            return lambda env: mem.allocate("private", name, size, align).base
        if op == "global_addr":
            sym, symbols = cast(str, ins.attrs.get("symbol")), self.symbols

            def global_addr(env: Env) -> int:
                try:
                    return symbols[sym]
                except KeyError:
                    raise InterpreterError(f"no module data named {sym!r} (not in the function's "
                                           "local_memory or constant_data)") from None
            return global_addr
        if op == "workitem":
            fn, d = ins.attrs.get("fn", ""), g[0]
            m = mask(ty.bits)
            wi = self._workitem
            return lambda env: wi(fn, d(env)) & m
        if op == "barrier":
            return lambda env: None       # see the module docstring: items run one at a time
        if op == "atomic":
            return self._compile_atomic(ins, g)
        if op in ("var_load", "var_store"):
            raise InterpreterError(f"{op} is structurizer-internal and cannot be interpreted")
        if OPCODES[op].kind == "subgroup":
            raise InterpreterError(f"{op} needs the lock-step interpreter (lowering.interp.vector, which "
                                   "run --target ir uses for structured functions): this one runs one "
                                   "work-item at a time")
        raise InterpreterError(f"opcode {op!r} is not interpretable")
