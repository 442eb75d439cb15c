"""Values, instructions, blocks and the control-flow tree.

A Function is either in CFG form (`blocks`, each ending in a terminator: br, cbr, switch, ret,
unreachable) or in structured form (`body`, a CF list of Block/If/Loop nodes whose blocks end in a jump
- break, continue, return - or fall through as the tree says). In both forms every Block carries `succs` and
`preds`; in the structured form `Function.update_cfg()` derives them from the tree, and the validator
checks that the stored lists agree with a fresh derivation.

Tree rules (Mesa NIR's control-flow model): a CF list starts and ends with a block and holds exactly one
block between two ifs/loops; every if has an else; a loop is infinite and left only by break (or return);
phis sit at the top of the block after an if, the block after a loop, or a loop's first block.
"""
from __future__ import annotations

from itertools import chain
from operator import attrgetter

from reconverge.lowering.ir.opcodes import JUMPS, TERMINATORS
from reconverge.lowering.ir.types import VOID, Type
from reconverge.records import record, replace
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator, Sequence

_chain, _INSTRS = chain.from_iterable, attrgetter("instrs")
_ENDS = TERMINATORS | JUMPS            # what may end a block (hot: asked per block by every CFG walk)
END_LABEL = "(end)"   # the fake end block's label; no LLVM block can be named so unquoted


class Value:
    """Anything an instruction can use: constants, undef, arguments and instruction results."""
    __slots__ = ("type", "name")

    def __init__(self, type: Type, name: str = ""):
        self.type = type
        self.name = name


class Const(Value):
    __slots__ = ("value",)

    def __init__(self, type: Type, value: int | float):
        self.type = type
        self.name = ""
        if (kind := type.kind) == "int":  # (not the is_int/is_ptr properties: a call each, on every constant)
            value = int(value) & ((1 << type.bits) - 1)
        elif kind == "ptr":
            value = int(value)
        self.value = value

    def signed(self) -> int:
        v, bits = self.value, self.type.bits
        if not self.type.is_int:
            return int(v)
        v = int(v)
        return v - (1 << bits) if v >> (bits - 1) else v


class Undef(Value):
    __slots__ = ()


class Arg(Value):
    """A kernel argument. `index` counts IR arguments; `param` is the source (LLVM) parameter it came
    from, which differs once a by-value vector is split into one Arg per lane (binding = parameter)."""
    __slots__ = ("index", "param")

    def __init__(self, type: Type, index: int, name: str = "", param: int | None = None):
        super().__init__(type, name)
        self.index = index
        self.param = index if param is None else param


class Instr(Value):
    """An SSA instruction. `attrs` holds non-value operands: compare predicate, builtin name, alignment,
    switch case values. `targets` holds successor blocks of a CFG-form terminator."""
    __slots__ = ("opcode", "operands", "attrs", "targets", "block")

    def __init__(self, opcode: str, operands: list[Value], type: Type = VOID, attrs: dict[str, Any] | None = None,
                 targets: list["Block"] | None = None, name: str = ""):
        self.type = type                  # Value's fields, set here: the hottest constructor of every pass
        self.name = name
        self.opcode = opcode
        self.operands = list(operands)
        self.attrs = attrs or {}
        self.targets = targets or []
        self.block: Block | None = None

    @property
    def is_jump(self) -> bool:
        return self.opcode in JUMPS

    @property
    def is_terminator(self) -> bool:
        return self.opcode in TERMINATORS

    @property
    def has_result(self) -> bool:
        t = self.type                     # (a kind other than void answers without comparing the records)
        return t.kind != "void" or t != VOID

    def __repr__(self) -> str:
        return f"<{self.opcode} {self.name or hex(id(self))}>"


class Phi(Instr):
    """operands[i] flows in from blocks[i]; one entry per predecessor."""
    __slots__ = ("blocks",)

    def __init__(self, type: Type, incoming: Sequence[tuple["Block", Value]] = (), name: str = ""):
        if not incoming:                  # (SSA reconstruction makes them empty, by the ten thousand)
            self.type, self.name, self.opcode = type, name, "phi"        # (Instr's fields: no super() call, hot)
            self.block, self.operands, self.attrs = None, [], {}
            self.targets, self.blocks = [], []
            return
        super().__init__("phi", [v for _, v in incoming], type, name=name)
        self.blocks = [b for b, _ in incoming]

    def incoming(self) -> list[tuple["Block", Value]]:
        return list(zip(self.blocks, self.operands))

    def add_incoming(self, block: "Block", value: Value) -> None:
        self.blocks.append(block)
        self.operands.append(value)

    def value_for(self, block: "Block") -> Value:
        return self.operands[self.blocks.index(block)]


class CFNode:
    """A node of the control-flow tree. `parent` is the If/Loop/Function whose CF list holds it."""
    __slots__ = ("parent",)

    def __init__(self) -> None:
        self.parent: CFNode | Function | None = None


class Block(CFNode):
    __slots__ = ("instrs", "succs", "preds", "label", "index", "source_lines")

    def __init__(self, label: str = ""):
        self.parent: CFNode | Function | None = None     # (CFNode's, set here: hot, as Instr's)
        self.instrs: list[Instr] = []
        self.succs: list[Block] = []
        self.preds: list[Block] = []
        self.label = label           # the source's name for it, if any (LLVM block name)
        self.index = -1              # position in the function's block order, set by Function.index_blocks
        # where the LLVM block's code comes from ('k.cl:9:11', from !dbg): its first instruction's and its
        # terminator's, for messages; None without debug locations
        self.source_lines: tuple[str | None, str | None] | None = None

    def append(self, instr: Instr) -> Instr:
        instr.block = self
        self.instrs.append(instr)
        return instr

    def insert(self, pos: int, instr: Instr) -> Instr:
        instr.block = self
        self.instrs.insert(pos, instr)
        return instr

    def phis(self) -> Iterator[Phi]:
        for ins in self.instrs:
            if not isinstance(ins, Phi):
                break
            yield ins

    @property
    def terminator(self) -> Instr | None:
        """The last instruction if it ends the block: a CFG terminator or a structured jump."""
        instrs = self.instrs
        if instrs and instrs[-1].opcode in _ENDS:
            return instrs[-1]
        return None

    @property
    def jump(self) -> Instr | None:
        """The break/continue/return ending the block, if any (hot: called per block per CFG rebuild)."""
        instrs = self.instrs
        return instrs[-1] if instrs and instrs[-1].opcode in JUMPS else None

    def __repr__(self) -> str:
        return f"<block b{self.index}{' ' + self.label if self.label else ''}>"


class If(CFNode):
    __slots__ = ("cond", "then_list", "else_list")

    def __init__(self, cond: Value, then_list: list[CFNode] | None = None, else_list: list[CFNode] | None = None):
        self.parent = None
        self.cond = cond
        if then_list or else_list:
            self.then_list: list[CFNode] = list(then_list) if then_list else [Block()]
            self.else_list: list[CFNode] = list(else_list) if else_list else [Block()]
            for n in (*self.then_list, *self.else_list):
                n.parent = self
            return
        then_block, else_block = Block(), Block()     # (hot: the structurizer makes one per branch)
        then_block.parent = else_block.parent = self
        self.then_list, self.else_list = [then_block], [else_block]

    def add_then(self, node: CFNode) -> CFNode:
        node.parent = self
        self.then_list.append(node)
        return node

    def add_else(self, node: CFNode) -> CFNode:
        node.parent = self
        self.else_list.append(node)
        return node


class Loop(CFNode):
    __slots__ = ("body",)

    def __init__(self, body: list[CFNode] | None = None):
        super().__init__()
        self.body: list[CFNode] = []
        for n in body or [Block()]:
            self.add(n)

    def add(self, node: CFNode) -> CFNode:
        node.parent = self
        self.body.append(node)
        return node


def first_block(nodes: list[CFNode]) -> Block:
    return nodes[0]     # type: ignore[return-value]  # CF lists start with a block (validated); no cast() call


def last_block(nodes: list[CFNode]) -> Block:
    return nodes[-1]    # type: ignore[return-value]  # (and end with one; no cast() call: hot)


@record
class ModuleData:
    """A module-level buffer a kernel uses: a __local array or a __constant (or program-scope) table."""
    symbol: str
    addrspace: int
    size: int
    align: int
    init: bytes | None
    writable: bool

    @property
    def name(self) -> str:
        return self.symbol


class Function:
    """A kernel. CFG form: `blocks` (entry first). Structured form: `body` plus the fake `end_block`
    that returns lead to (NIR's end block: it holds no instructions)."""

    def __init__(self, name: str, args: list[Arg], return_type: Type = VOID, is_kernel: bool = True):
        self.name = name
        self.args = args
        self.return_type = return_type
        self.is_kernel = is_kernel
        self.blocks: list[Block] = []      # CFG form
        self.body: list[CFNode] = []       # structured form
        self.is_structured = False
        self.end_block = Block(END_LABEL)
        self.source_name = ""              # file the function came from, for error messages
        self.local_memory: list[ModuleData] = []    # module-level __local arrays this kernel uses
        self.constant_data: list[ModuleData] = []   # module-level constant data this kernel uses
        self.reqd_work_group_size: tuple[int, int, int] | None = None   # OpenCL's attribute, if given
        self.guard_variables: list[str] = []   # labels and exit selectors the structurizer had to test
        self.target_passes: set[str] = set()   # "target:pass" lowerings it went through (lower_for runs each once)
        self.loops_separated = 0           # loops -g's scopes split again (lowering.frontend.loop_separation)
        self.guarded_cycles = 0            # irreducible cycles given a guard header (lowering.guard_irreducible)

    def clone(self) -> Function:
        """An independent copy: new arguments, instructions, blocks and tree nodes wired as in this function
        (constants and undefs copied too), so a target's passes can lower the copy and leave this one as it
        is; printing the copy gives this function's text. No recursion: any nesting depth."""
        return _clone_function(self)

    # ----- structured form: tree construction -----
    def add(self, node: CFNode) -> CFNode:
        node.parent = self
        self.body.append(node)
        return node

    # ----- walking -----
    def all_blocks(self) -> list[Block]:
        """Blocks in order: CFG form in list order, structured form in tree (program) order."""
        if not self.is_structured:
            return list(self.blocks)
        out: list[Block] = []
        append = out.append
        stack: list[Iterator[CFNode]] = [iter(self.body)]
        while stack:
            for node in stack[-1]:          # a CF list's blocks in one loop, until an if or a loop opens
                if isinstance(node, Block):
                    append(node)
                elif isinstance(node, If):
                    t, e = node.then_list, node.else_list
                    if len(t) == 1 == len(e) and isinstance(t[0], Block) and isinstance(e[0], Block):
                        out += (t[0], e[0])     # (most ifs: a block an arm, taken without two iterators)
                        continue
                    stack += (iter(e), iter(t))     # then is walked before else: pushed in reverse
                    break
                elif isinstance(node, Loop):
                    stack.append(iter(node.body))
                    break
            else:
                stack.pop()                 # (an iterator left by a break goes on after its node)
        return out

    def entry(self) -> Block:
        return first_block(self.body) if self.is_structured else self.blocks[0]

    def instructions(self) -> Iterator[Instr]:     # (a C iterator, not a generator resumed per instruction)
        return _chain(map(_INSTRS, self.all_blocks()))

    def index_blocks(self) -> list[Block]:
        blocks = self.all_blocks()
        for i, b in enumerate(blocks):
            b.index = i
        self.end_block.index = len(blocks)
        return blocks

    # ----- CFG edges -----
    def update_cfg(self) -> list[Block]:
        """Recompute succs/preds of every block (both forms), renumber blocks and return them in order."""
        if self.is_structured:
            blocks = _index_structured(self)
            for b in blocks:
                for s in b.succs:
                    s.preds.append(b)
            return blocks
        blocks = list(self.blocks)
        for i, b in enumerate(blocks):          # numbers, emptied preds and succs in one walk (was three)
            b.index, b.preds = i, []
            instrs = b.instrs
            if instrs and instrs[-1].opcode in _ENDS:
                targets = instrs[-1].targets
                n = len(targets)                      # (a cbr's two: no dict; Blocks compare by identity)
                b.succs = [targets[0]] if n == 1 or (n == 2 and targets[0] is targets[1]) else \
                    list(targets) if n == 2 else list(dict.fromkeys(targets))
            else:
                b.succs = []
        end = self.end_block
        end.index, end.succs, end.preds = len(blocks), [], []
        for b in blocks:
            for s in b.succs:
                s.preds.append(b)
        return blocks


def _index_structured(func: Function) -> list[Block]:
    """update_cfg's first half for the structured form in one walk of the tree in program order: each
    block numbered, its preds emptied and its succs set as structured_successors derives them (that
    walk, all_blocks' and a table between them were 60% of update_cfg: the structurizer's SSA rebuild
    runs it on every function). The end block: number after the last, no edges."""
    out: list[Block] = []
    end = func.end_block
    end.succs, end.preds = [], []
    jumps = JUMPS
    # frames: (cf list, position to go on from, block control reaches after the list, innermost loop
    # (header, block after it) or None); then-lists are walked before else-lists, as all_blocks does
    frames: list[tuple[list[CFNode], int, Block, tuple[Block, Block] | None]] = [(func.body, 0, end, None)]
    while frames:
        nodes, i, follow, loop = frames.pop()
        last = len(nodes) - 1
        while i <= last:
            node = nodes[i]
            if isinstance(node, Block):
                node.index = len(out)
                out.append(node)
                node.preds = []
                instrs = node.instrs
                jump = instrs[-1].opcode if instrs else None
                if jump in jumps:
                    if jump == "return":
                        node.succs = [end]
                    elif loop is None:
                        node.succs = []               # invalid: the validator reports it
                    else:
                        node.succs = [loop[1] if jump == "break" else loop[0]]
                elif i == last:
                    node.succs = [follow]
                else:
                    nxt = nodes[i + 1]                # (no cast() calls: a call each, per block)
                    if isinstance(nxt, If):
                        node.succs = [nxt.then_list[0], nxt.else_list[0]]     # type: ignore[list-item]
                    elif isinstance(nxt, Loop):
                        node.succs = [nxt.body[0]]        # type: ignore[list-item]
                    else:
                        node.succs = [nxt]                # type: ignore[list-item]  # two blocks in a row: invalid, reported by the validator
                i += 1
                continue
            after = nodes[i + 1] if i < last else None
            if not isinstance(after, Block):
                after = follow
            if isinstance(node, If):
                t, e = node.then_list, node.else_list
                if len(t) == 1 == len(e) and isinstance(t[0], Block) and isinstance(e[0], Block):
                    for arm in (t, e):          # (most ifs: one block an arm, numbered as their frames would)
                        block: Block = arm[0]         # type: ignore[assignment]
                        block.index, block.preds = len(out), []
                        out.append(block)
                        jump = block.instrs[-1].opcode if block.instrs else None
                        block.succs = [after] if jump not in jumps else [end] if jump == "return" else \
                            [] if loop is None else [loop[1] if jump == "break" else loop[0]]
                    i += 1
                    continue
                frames.append((nodes, i + 1, follow, loop))
                frames.append((node.else_list, 0, after, loop))
                frames.append((node.then_list, 0, after, loop))
                break
            if isinstance(node, Loop):
                frames.append((nodes, i + 1, follow, loop))
                head: Block = node.body[0]            # type: ignore[assignment]
                frames.append((node.body, 0, head, (head, after)))
                break
            i += 1
    end.index = len(out)
    return out


def cf_lists(func: Function) -> Iterator[list[CFNode]]:
    """Every CF list of the tree: the body, each then/else list and each loop body."""
    work = [func.body]
    while work:
        nodes = work.pop()
        yield nodes
        for node in nodes:
            if isinstance(node, If):
                work += [node.then_list, node.else_list]
            elif isinstance(node, Loop):
                work.append(node.body)


def enclosing_loop(node: CFNode) -> Loop | None:
    p = node.parent
    while isinstance(p, CFNode):
        if isinstance(p, Loop):
            return p
        p = p.parent
    return None


def cf_list_of(node: CFNode) -> list[CFNode]:
    """The CF list that holds `node`."""
    p = node.parent
    if isinstance(p, (Function, Loop)):
        return p.body
    if isinstance(p, If):
        return p.then_list if any(n is node for n in p.then_list) else p.else_list
    raise ValueError("node is not in a tree")


def nesting_depth(func: Function) -> int:
    """How many ifs and loops nest at the deepest point of the tree (0 for straight-line code)."""
    deepest = 0
    work: list[tuple[list[CFNode], int]] = [(func.body, 0)]
    while work:
        nodes, depth = work.pop()
        for node in nodes:
            if isinstance(node, If):
                deepest = max(deepest, depth + 1)
                work += [(node.then_list, depth + 1), (node.else_list, depth + 1)]
            elif isinstance(node, Loop):
                deepest = max(deepest, depth + 1)
                work.append((node.body, depth + 1))
    return deepest


def _slots(cls: type) -> list[str]:
    return [name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())]


_COPIERS: dict[type, Callable[[object], object]] = {}     # _copy_slots' per-class copiers, made once per class


def _copy_slots(obj: object) -> object:
    """A shallow copy of an object made of __slots__ (no constructor run: If() and Loop() add blocks): by a
    function of plain attribute loads and stores made once per class (getattr/setattr by name in a loop
    was a third of a clone, which Gen's --cf auto makes of every kernel's read); slot by slot where a slot
    was never set (it stays unset)."""
    cls = type(obj)
    return (_COPIERS.get(cls) or _copier(cls))(obj)


def _copier(cls: type, made: dict[type, Callable[[object], object]] = _COPIERS,
            skip: frozenset[str] = frozenset()) -> Callable[[object], object]:
    """_copy_slots' function for objects of class `cls`, made on first use (a try costs nothing until an
    unset slot raises: then the copy is made slot by slot); `made`, `skip`: _SHELLS's, which skip slots."""
    copier = made.get(cls)
    if copier is None:
        body = "".join(f"        new.{name} = obj.{name}\n" for name in _slots(cls)
                       if not name.startswith("__") and name not in skip)
        namespace: dict[str, Any] = {"make": object.__new__, "cls": cls, "slot_by_slot": _copy_slot_by_slot}
        exec(f"def copier(obj):\n    new = make(cls)\n    try:\n{body}    except AttributeError:\n"
             f"        return slot_by_slot(obj)\n    return new\n", namespace)
        copier = made[cls] = namespace["copier"]
    return copier


_SHELLS: dict[type, Callable[[object], object]] = {}    # _clone_function's copiers of instructions, which
_SET_BY_CLONE = frozenset(("operands", "attrs", "targets", "block", "blocks"))   # set these: not copied first


def _copy_slot_by_slot(obj: object) -> object:
    """_copy_slots of an object with a slot never set (it stays unset in the copy)."""
    cls = type(obj)
    new = object.__new__(cls)
    for name in _slots(cls):
        try:
            setattr(new, name, getattr(obj, name))
        except AttributeError:
            pass
    return new


def _clone_function(func: Function) -> Function:
    new = Function(func.name, [], func.return_type, func.is_kernel)
    new.is_structured, new.source_name = func.is_structured, func.source_name
    new.local_memory = [replace(d) for d in func.local_memory]
    new.constant_data = [replace(d) for d in func.constant_data]
    new.reqd_work_group_size, new.guard_variables = func.reqd_work_group_size, list(func.guard_variables)
    new.target_passes = set(func.target_passes)
    new.loops_separated, new.guarded_cycles = func.loops_separated, func.guarded_cycles
    # old object -> its copy (the IR's objects hash and compare by identity): values (arguments,
    # instructions, constants and undefs) and nodes (blocks, tree nodes, the function). Looked up inline,
    # not through id(), cast() or helper calls: a call per operand and per edge was a third of a clone,
    # which Gen's --cf auto makes of every kernel's read
    values: dict[object, Any] = {}
    nodes: dict[object, Any] = {func: new}
    get_value = values.get
    for arg in func.args:
        new_arg = _copy_slots(arg)
        new.args.append(new_arg)        # type: ignore[arg-type]
        values[arg] = new_arg
    old_blocks = [*func.all_blocks(), func.end_block]
    new.end_block.label, new.end_block.index = func.end_block.label, func.end_block.index
    copiers, shells = _COPIERS, _SHELLS
    for block in old_blocks:
        if block is func.end_block:
            nodes[block] = new.end_block
        else:
            kind = type(block)
            nodes[block] = (copiers.get(kind) or _copier(kind))(block)
        for ins in block.instrs:
            cls = type(ins)
            values[ins] = (shells.get(cls) or _copier(cls, shells, _SET_BY_CLONE))(ins)

    def value(v: Value) -> Value:
        found: Value | None = get_value(v)
        if found is None:               # a constant or undef: copied once, shared as in the original
            made = type(v)              # (_copy_slots, inline: a call per constant operand)
            copied: Value = (copiers.get(made) or _copier(made))(v)    # type: ignore[assignment]
            values[v] = found = copied
        return found
    for block in old_blocks:
        copied = nodes[block]
        copied.instrs = twins = [values[ins] for ins in block.instrs]
        copied.succs = [nodes[b] for b in block.succs]
        copied.preds = [nodes[b] for b in block.preds]
        for ins, twin in zip(block.instrs, twins):
            operands = []
            for v in ins.operands:      # (a loop: the usual operand is found at once, with no call)
                found = get_value(v)
                operands.append(value(v) if found is None else found)
            twin.operands = operands
            # (most instructions have no attributes and no targets: no comprehension made for them)
            twin.attrs = {k: list(a) if isinstance(a, list) else a for k, a in ins.attrs.items()} if ins.attrs else {}
            twin.targets = [nodes[b] for b in ins.targets] if ins.targets else []
            twin.block = copied if ins.block is block else (None if ins.block is None else nodes[ins.block])
            if isinstance(ins, Phi):
                twin.blocks = [nodes[b] for b in ins.blocks]
    new.blocks = [nodes[b] for b in func.blocks]
    work: list[tuple[list[CFNode], list[CFNode]]] = [(func.body, new.body)]
    while work:                         # the tree, one CF list at a time
        old_list, new_list = work.pop()
        for node in old_list:
            if isinstance(node, Block):
                new_list.append(nodes[node])
                continue
            made = _copy_slots(node)
            nodes[node] = made
            new_list.append(made)       # type: ignore[arg-type]
            if isinstance(node, If):
                branch = cast(If, made)
                branch.cond = value(node.cond)
                branch.then_list, branch.else_list = [], []
                work += [(node.then_list, branch.then_list), (node.else_list, branch.else_list)]
            elif isinstance(node, Loop):
                loop = cast(Loop, made)
                loop.body = []
                work.append((node.body, loop.body))
    for node_copy in nodes.values():
        if isinstance(node_copy, CFNode) and node_copy.parent is not None:
            node_copy.parent = nodes.get(node_copy.parent)
    return new
