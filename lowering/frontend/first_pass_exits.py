"""Whether every lane that leaves a loop towards a block leaves in the loop's first pass, read from
clang's unoptimised module (lowering.frontend.removed_loops).

Why: LLVM may remove a loop whose break path holds a convergent operation. Where the lanes leave in
different passes, the operation met them per pass, and the removal merges those meetings: the kernel must be
refused. Where each exit towards the operation is tested in every pass (its block dominates the loop's
latches) on a value the loop does not change, a lane that takes it takes it in the first pass or never, so
all the lanes meeting there left in the same pass and the removal changes nothing: LLVM unswitches such a
test out of the loop and deletes what is left (`do { ...; if (c) { x = reduce(y); break; } } while (...)`
with `c` loop-invariant).

Loop-invariant, on clang's code before any pass (locals in allocas): a constant, an argument, a value
made outside the loop; a pure operation (arithmetic, comparison, cast, select, getelementptr; a call of a
work-item function or math built-in) of invariant values; a load of a local no store in the loop writes
and whose address goes nowhere but loads and stores; a load through an invariant pointer in a loop that
writes no memory but such locals (no store elsewhere, no atomic, no call of a function that may write).
Anything else is taken as changing: a phi (the `&&` of a condition), a sub-group or work-group operation
(its value depends on the lanes still in the loop), a call of a function defined in the module.
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import lazy_compile

_DEFINITION = lazy_compile(r"^\s*(%[-\w.$]+) = (?:(?:tail|musttail|notail) )?(\w+)")
_VALUE = lazy_compile(r"(label )?(%[-\w.$]+)")
_LOAD_POINTER = lazy_compile(r"^\s*%[-\w.$]+ = load [^,]+, ptr(?: addrspace\(\d+\))? (%[-\w.$]+)")
_STORE_POINTER = lazy_compile(r"^\s*store .*, ptr(?: addrspace\(\d+\))? (%[-\w.$]+)")
_CALLEE = lazy_compile(r"\bcall [^@]*@([-\w.$]+)\(")
_BRANCH = lazy_compile(r"^\s*(?:br i1|switch \S+) (%[-\w.$]+),")
_MANGLED = lazy_compile(r"_Z(\d+)(\w+)")

PURE = frozenset((
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "icmp",
    "fcmp", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "zext", "sext", "trunc", "bitcast", "ptrtoint",
    "inttoptr", "addrspacecast", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext", "select",
    "getelementptr", "freeze", "extractelement", "insertelement", "shufflevector", "extractvalue",
    "insertvalue"))
# built-ins whose value depends on more than their operands (the lanes that run them, memory), or that write
_NOT_PURE_BUILTIN = re.compile(r"sub_group|work_group|barrier|fence|atomic|vload|vstore|read_|write_|async|"
                               r"prefetch|wait_group|printf|load|store")
_MEMORY_INTRINSIC = re.compile(r"llvm\.(?:mem|lifetime|invariant|experimental|dbg|assume)")


class FunctionValues:
    """One function body's instructions by the value they define, its allocas and what writes memory."""

    def __init__(self, blocks: list[list[str]]):
        self.blocks = blocks
        self.defs: dict[str, tuple[int, str, str]] = {}         # value -> (block, opcode, line)
        for b, lines in enumerate(blocks):
            for line in lines:
                m = _DEFINITION.match(line)
                if m is not None:
                    self.defs[m.group(1)] = (b, m.group(2), line)
        self.private = self._private_allocas()

    def _private_allocas(self) -> set[str]:
        """The allocas used only as the address of a load or a store (and by lifetime markers)."""
        allocas = {v for v, (_, op, _) in self.defs.items() if op == "alloca"}
        seen_wrongly: set[str] = set()
        for lines in self.blocks:
            for line in lines:
                names = [m.group(2) for m in _VALUE.finditer(line) if not m.group(1) and m.group(2) in allocas]
                if not names:
                    continue
                load, store = _LOAD_POINTER.match(line), _STORE_POINTER.match(line)
                address = load.group(1) if load else store.group(1) if store else None
                callee = _CALLEE.search(line)
                lifetime = callee is not None and callee.group(1).startswith("llvm.lifetime.")
                for name in names:
                    defined = _DEFINITION.match(line)
                    if defined is not None and defined.group(1) == name and defined.group(2) == "alloca":
                        continue
                    if lifetime or (name == address and names.count(name) == 1):
                        continue
                    seen_wrongly.add(name)
        return allocas - seen_wrongly

    def loop_writes(self, inside: bytearray) -> tuple[set[str], bool]:
        """The private allocas the loop's blocks store to, and whether they may write any other memory."""
        locals_written: set[str] = set()
        other = False
        for b, lines in enumerate(self.blocks):
            if not inside[b]:
                continue
            for line in lines:
                store = _STORE_POINTER.match(line)
                if store is not None:
                    if store.group(1) in self.private:
                        locals_written.add(store.group(1))
                    else:
                        other = True
                elif re.search(r"\b(?:atomicrmw|cmpxchg)\b", line):
                    other = True
                else:
                    callee = _CALLEE.search(line)
                    if callee is not None and not _pure_callee(callee.group(1)) and \
                            not callee.group(1).startswith("llvm.lifetime."):
                        other = True
        return locals_written, other


def _pure_callee(name: str) -> bool:
    """A work-item function or math built-in (a declared OpenCL built-in, by its mangled name), or an
    LLVM intrinsic that neither touches memory nor is a marker."""
    if name.startswith("llvm."):
        return not _MEMORY_INTRINSIC.match(name)
    m = _MANGLED.match(name)
    return m is not None and not _NOT_PURE_BUILTIN.search(m.group(2)[:int(m.group(1))])


class _Invariance:
    def __init__(self, values: FunctionValues, inside: bytearray, defined_functions: set[str]):
        self.values, self.inside, self.defined = values, inside, defined_functions
        self.locals_written, self.writes_memory = values.loop_writes(inside)
        self.memo: dict[str, bool] = {}

    def __call__(self, value: str) -> bool:
        hit = self.memo.get(value)
        if hit is None:
            self.memo[value] = False            # (a cycle through phis is never invariant)
            hit = self.memo[value] = self._invariant(value)
        return hit

    def _invariant(self, value: str) -> bool:
        found = self.values.defs.get(value)
        if found is None or not self.inside[found[0]]:
            return True                         # an argument, or made before the loop
        _, opcode, line = found
        operands = [m.group(2) for m in _VALUE.finditer(line.split("=", 1)[1])
                    if not m.group(1) and m.group(2) in self.values.defs]
        if opcode in PURE:
            return all(self(v) for v in operands)
        if opcode == "load":
            address = _LOAD_POINTER.match(line)
            if address is None:
                return False
            pointer = address.group(1)
            if pointer in self.values.private:
                return pointer not in self.locals_written
            return not self.writes_memory and self(pointer)
        if opcode == "call":
            callee = _CALLEE.search(line)
            return callee is not None and callee.group(1) not in self.defined and _pure_callee(callee.group(1)) \
                and all(self(v) for v in operands)
        return False


def leaves_in_first_pass(values: FunctionValues, succs: list[list[int]], dom, inside: bytearray,
                         latches: list[int], target: int, defined_functions: set[str]) -> bool:
    """Whether every exit of the loop (`inside`, closed by `latches`) from which block `target` is reached
    outside the loop is taken in the first pass or never (the module docstring's rule)."""
    invariant = _Invariance(values, inside, defined_functions)
    exits = [(u, v) for u, ss in enumerate(succs) if inside[u] for v in ss if not inside[v]]
    for u, v in exits:
        if not _reaches(succs, inside, v, target):
            continue
        branch = None
        for line in reversed(values.blocks[u]):
            branch = _BRANCH.match(line)
            if branch is not None or line.strip():
                break
        if branch is None or not all(dom.dominates(u, latch) for latch in latches) or not invariant(branch.group(1)):
            return False
    return True


def _reaches(succs: list[list[int]], inside: bytearray, start: int, target: int) -> bool:
    """Whether `target` is reached from `start` through blocks outside the loop."""
    seen = {start}
    work = [start]
    while work:
        u = work.pop()
        if u == target:
            return True
        for v in succs[u]:
            if v not in seen and not inside[v]:
                seen.add(v)
                work.append(v)
    return False
