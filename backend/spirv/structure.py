"""The structured control flow of any SPIR-V module (ours or another compiler's), read from its binary:
per function the blocks and their edges, and the selection, loop and continue constructs that its
OpSelectionMerge / OpLoopMerge instructions declare (SPIR-V 1.6 spec, section 2.11 "Structured Control
Flow"), each with its header, merge and continue blocks and the blocks inside it; plus the structural
rules a person can act on, named with the construct and the blocks involved.

Constructs, as the spec defines them: a selection construct is the blocks its header dominates minus
those its merge block dominates; a loop construct likewise with the loop's merge block; a continue
construct is the blocks the continue target dominates that the loop's back-edge block post-dominates.
Rules checked here (a subset of spirv-val's, explained):
- merge-dominance: the header must dominate its merge block (unless the merge is unreachable);
- continue-in-loop: a loop's continue target must be dominated by the loop header;
- merge-inside: a construct whose header lies inside another construct must have its merge block inside
  it too (spirv-val: "Header block ... is contained in the loop construct headed by ..., but its merge
  block ... is not"); a loop construct here excludes its continue construct, so a selection inside a
  loop may not merge at the loop's continue target, nor at its merge block;
- merge-shared: no two headers may declare the same merge block (spirv-val: "... is already a merge
  block for another header");
- back-edge: a loop header has exactly one back edge, from inside the loop (spirv-val: "Loop header ...
  is targeted by N back-edge blocks but the standard requires exactly one");
- exit: an edge leaving a construct must go to the construct's merge block, or (from inside a loop) to
  the loop's merge or continue target, or to the merge block of an enclosing construct; anything else
  is a branch out of the construct.
Blocks are named by OpName when the module has one, else by their result id (%12).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from reconverge.lowering import graph

from .grammar import GRAMMAR

MAGIC = 0x07230203


@dataclass
class Construct:
    kind: str                      # "selection", "loop", "continue"
    header: int
    merge: int | None
    continue_target: int | None
    blocks: list[int]


@dataclass
class FunctionFlow:
    id: int
    name: str
    blocks: list[int]                                  # label ids in module order
    succs: dict[int, list[int]]
    constructs: list[Construct] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # how each block ends, where its successors mean more than "next": "conditional" (succs: the true
    # target, then the false one, once if they are the same) or "switch" (succs: the default, then the cases)
    terminators: dict[int, str] = field(default_factory=dict)


@dataclass
class ModuleFlow:
    version: tuple[int, int]
    capabilities: list[str]
    functions: list[FunctionFlow]
    names: dict[int, str]

    def block_name(self, label: int) -> str:
        return f"%{self.names[label]}" if label in self.names else f"%{label}"


class SpirvParseError(ValueError):
    """A binary that cannot be read as SPIR-V: `check` reports it as that input's one-line problem."""


# the fewest operand words each instruction read here needs (SPIR-V spec 3.x; OpName's string may be empty
# only in a broken module, but its target id must be there)
_MIN_OPERANDS = {"OpName": 1, "OpEntryPoint": 2, "OpCapability": 1, "OpFunction": 2, "OpLabel": 1,
                 "OpBranch": 1, "OpBranchConditional": 3, "OpSwitch": 2, "OpSelectionMerge": 1, "OpLoopMerge": 2}


def _opcode(name: str) -> int:
    return GRAMMAR.opcode(name)


def parse(binary: bytes) -> ModuleFlow:
    """The control flow of every function of a SPIR-V binary."""
    if len(binary) < 20 or len(binary) % 4:
        raise SpirvParseError("not a SPIR-V binary (too short, or not a whole number of words)")
    endian = "<" if struct.unpack_from("<I", binary)[0] == MAGIC else ">"
    words = struct.unpack(f"{endian}{len(binary) // 4}I", binary)
    if words[0] != MAGIC:
        raise SpirvParseError("not a SPIR-V binary (bad magic number)")
    version = ((words[1] >> 16) & 0xFF, (words[1] >> 8) & 0xFF)
    op = {n: _opcode(n) for n in ("OpName", "OpEntryPoint", "OpCapability", "OpFunction", "OpFunctionEnd",
                                  "OpLabel", "OpBranch",
                                  "OpBranchConditional", "OpSwitch", "OpSelectionMerge", "OpLoopMerge",
                                  "OpReturn", "OpReturnValue", "OpKill", "OpUnreachable")}
    needs = {op[name]: (name, count) for name, count in _MIN_OPERANDS.items()}
    names: dict[int, str] = {}
    capabilities: list[str] = []
    functions: list[FunctionFlow] = []
    merges: dict[int, tuple[str, int, int | None]] = {}     # header label -> (kind, merge, continue)
    current: FunctionFlow | None = None
    label: int | None = None
    pos = 5
    while pos < len(words):
        count, code = words[pos] >> 16, words[pos] & 0xFFFF
        if count == 0 or pos + count > len(words):
            raise SpirvParseError(f"word {pos}: bad instruction length {count}")
        operands = words[pos + 1:pos + count]
        if code in needs and len(operands) < needs[code][1]:
            raise SpirvParseError(f"word {pos}: {needs[code][0]} with {len(operands)} operand"
                                  f"{'s' * (len(operands) != 1)}, expected at least {needs[code][1]}")
        if code == op["OpName"]:
            raw = b"".join(struct.pack("<I", w) for w in operands[1:])
            names[operands[0]] = _printable(raw)
        elif code == op["OpEntryPoint"]:
            raw = b"".join(struct.pack("<I", w) for w in operands[2:])
            names.setdefault(operands[1], _printable(raw))
        elif code == op["OpCapability"]:
            try:
                capabilities.append(GRAMMAR.enumerant_name("Capability", operands[0]))
            except KeyError:
                raise SpirvParseError(f"word {pos}: OpCapability {operands[0]} is no capability SPIR-V "
                                      f"defines") from None
        elif code == op["OpFunction"]:
            current = FunctionFlow(operands[1], "", [], {})
        elif code == op["OpFunctionEnd"] and current is not None:
            _analyse(current, merges)
            functions.append(current)
            current, merges = None, {}
        elif code == op["OpLabel"] and current is not None:
            label = operands[0]
            if label in current.succs:
                raise SpirvParseError(f"word {pos}: label %{label} defined twice")
            current.blocks.append(label)
            current.succs[label] = []
        elif current is not None and label is not None:
            if code == op["OpBranch"]:
                current.succs[label] = [operands[0]]
            elif code == op["OpBranchConditional"]:
                current.succs[label] = list(dict.fromkeys(operands[1:3]))
                current.terminators[label] = "conditional"
            elif code == op["OpSwitch"]:
                current.succs[label] = list(dict.fromkeys([operands[1], *operands[3::2]]))
                current.terminators[label] = "switch"
            elif code == op["OpSelectionMerge"]:
                merges[label] = ("selection", operands[0], None)
            elif code == op["OpLoopMerge"]:
                merges[label] = ("loop", operands[0], operands[1])
        pos += count
    for f in functions:
        f.name = names.get(f.id, f"%{f.id}")
    return ModuleFlow(version, capabilities, functions, names)


def _printable(raw: bytes) -> str:
    """A literal string operand as a name fit for one-line messages (control characters escaped)."""
    text = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _analyse(func: FunctionFlow, merges: dict[int, tuple[str, int, int | None]]) -> None:
    """Constructs and structural problems of one function."""
    index = {b: i for i, b in enumerate(func.blocks)}
    succ_ids = [[index[s] for s in func.succs[b] if s in index] for b in func.blocks]
    if not func.blocks:
        return
    dom = graph.dominator_tree(succ_ids, 0)
    reachable = {b for b in func.blocks if dom.pre[index[b]] >= 0}

    def dominates(a: int, b: int) -> bool:
        return a in index and b in index and dom.dominates(index[a], index[b])

    def inside(header: int, merge: int | None) -> list[int]:
        return [b for b in func.blocks if b in reachable and dominates(header, b)
                and not (merge is not None and merge in reachable and dominates(merge, b))]

    for header, (kind, merge, cont) in merges.items():
        blocks = inside(header, merge)
        func.constructs.append(Construct(kind, header, merge, cont, blocks))
        if kind == "loop" and cont is not None:
            func.constructs.append(Construct("continue", cont, None, None, [b for b in blocks if dominates(cont, b)]))
    _nest(func, index, lambda b: dom.pre[index[b]] if b in index else -1)
    _rules(func, reachable, dominates)


def _nest(func: FunctionFlow, index: dict[int, int], preorder) -> None:
    """Cut each construct to the part inside the constructs around it: a construct nested in a loop ends
    where the loop does and does not reach into the loop's continue construct (dominance alone would let
    it run on past a break or a continue)."""
    func.constructs.sort(key=lambda c: preorder(c.header))       # a header's dominators come first
    for i, c in enumerate(func.constructs):
        for outer in func.constructs[:i]:
            if c.header not in outer.blocks or outer.header == c.header and outer.kind != "loop":
                continue
            keep = set(outer.blocks)
            if outer.kind == "loop" and c.kind != "continue":
                cont = next((o for o in func.constructs if o.kind == "continue" and o.header == outer.continue_target),
                            None)
                if cont is not None and c.header not in cont.blocks:
                    keep -= set(cont.blocks)
            c.blocks = [b for b in c.blocks if b in keep]
    func.constructs.sort(key=lambda c: index.get(c.header, 0))


def _rules(func: FunctionFlow, reachable: set[int], dominates) -> None:
    for c in func.constructs:
        if c.kind == "continue":
            continue
        if c.merge is not None and c.merge in reachable and not dominates(c.header, c.merge):
            func.problems.append(f"merge-dominance|{c.kind}|{c.header}|{c.merge}")
        if c.kind == "loop" and c.continue_target is not None and c.continue_target in reachable \
                and not dominates(c.header, c.continue_target):
            func.problems.append(f"continue-in-loop|loop|{c.header}|{c.continue_target}")
    _merges_inside(func, reachable)
    owner: dict[int, Construct] = {}
    for c in func.constructs:
        if c.kind == "continue" or c.merge is None:
            continue
        if c.merge in owner:
            func.problems.append(f"merge-shared|{c.kind}|{c.header}|{c.merge}|{owner[c.merge].header}")
        owner.setdefault(c.merge, c)
    for c in func.constructs:
        if c.kind == "loop" and c.header in reachable:
            back = [b for b in func.blocks if b in reachable and c.header in func.succs[b] and dominates(c.header, b)]
            if len(back) != 1:
                func.problems.append(f"back-edge|loop|{c.header}|{' '.join(map(str, back))}")
    # exits: an edge from inside a construct to outside it must be one the rules allow
    for c in func.constructs:
        if c.kind == "continue":
            continue
        members = set(c.blocks)
        around = [o for o in func.constructs if o is not c and c.header in o.blocks]
        allowed = {c.merge} | {o.merge for o in around if o.merge is not None}
        loops = [o for o in around if o.kind == "loop"] + ([c] if c.kind == "loop" else [])
        for o in loops:
            allowed |= {o.merge, o.continue_target}
        if c.kind == "loop":
            allowed.add(c.header)            # the back edge, from the continue construct
        for b in c.blocks:
            for s in func.succs[b]:
                if s not in members and s not in allowed:
                    func.problems.append(f"exit|{c.kind}|{c.header}|{b}|{s}")


def _merges_inside(func: FunctionFlow, reachable: set[int]) -> None:
    """The merge-inside rule, reported against the innermost construct around the header."""
    continues = {c.header: set(c.blocks) for c in func.constructs if c.kind == "continue"}
    for c in func.constructs:
        if c.kind == "continue" or c.merge is None or c.merge not in reachable:
            continue
        around = sorted((o for o in func.constructs if o is not c and o.header != c.header and c.header in o.blocks),
                        key=lambda o: len(o.blocks))
        for o in around[:1]:
            body = set(o.blocks)
            cont = continues.get(o.continue_target) if o.kind == "loop" and o.continue_target is not None else None
            if cont is not None and c.header not in cont:
                body -= cont
            if c.merge not in body:
                func.problems.append(f"merge-inside|{c.kind}|{c.header}|{c.merge}|{o.kind}|{o.header}")


def explain(flow: ModuleFlow, func: FunctionFlow, problem: str) -> str:
    """A problem code as a sentence naming the rule, the construct and the blocks."""
    parts = problem.split("|")
    n = flow.block_name
    rule, kind, header = parts[0], parts[1], int(parts[2])
    if rule == "merge-dominance":
        return (f"{func.name}: the {kind} construct headed by {n(header)} declares merge block {n(int(parts[3]))}, "
                f"which its header does not dominate (spec 2.11: a merge block must be dominated by its header); "
                f"make every path to {n(int(parts[3]))} pass through {n(header)}")
    if rule == "merge-shared":
        return (f"{func.name}: the {kind} construct headed by {n(header)} declares merge block {n(int(parts[3]))}, "
                f"which already ends the construct headed by {n(int(parts[4]))}; each header needs a merge block "
                f"of its own (spec 2.11)")
    if rule == "back-edge":
        back = [int(b) for b in parts[3].split()]
        return (f"{func.name}: the loop headed by {n(header)} has {len(back)} back edges"
                f"{' (from ' + ', '.join(n(b) for b in back) + ')' if back else ''}; a loop has exactly one, from "
                f"its continue construct (spec 2.11): branch from the other blocks to the continue target instead")
    if rule == "merge-inside":
        merge, outer_kind, outer = int(parts[3]), parts[4], int(parts[5])
        outer_construct = next((c for c in func.constructs if c.header == outer and c.kind == outer_kind), None)
        role = ""
        if outer_construct is not None and outer_construct.kind == "loop":
            role = (" (it is that loop's continue target)" if merge == outer_construct.continue_target else
                    " (it is that loop's merge block)" if merge == outer_construct.merge else "")
        return (f"{func.name}: the {kind} construct headed by {n(header)} lies inside the {outer_kind} construct "
                f"headed by {n(outer)}, but its merge block {n(merge)} does not{role}; a construct must end inside "
                f"the construct around it (spec 2.11: a loop construct does not hold its continue construct), so "
                f"merge at a block of its own before the branch to {n(merge)}")
    if rule == "continue-in-loop":
        return (f"{func.name}: the loop headed by {n(header)} names continue target {n(int(parts[3]))}, which is "
                f"outside the loop (not dominated by its header); the continue target must be inside the loop")
    return (f"{func.name}: block {n(int(parts[3]))} inside the {kind} construct headed by {n(header)} branches to "
            f"{n(int(parts[4]))}, outside the construct; a construct may only be left through its merge block, "
            f"or a loop's merge block or continue target (spec 2.11, 'break' and 'continue' rules)")


def report(flow: ModuleFlow) -> str:
    """The constructs of every function as text."""
    n = flow.block_name
    out = [f"SPIR-V {flow.version[0]}.{flow.version[1]}, capabilities {', '.join(flow.capabilities) or 'none'}"]
    for f in flow.functions:
        out.append(f"function {f.name}: {len(f.blocks)} blocks")
        for c in f.constructs:
            head = f"  {c.kind} construct: header {n(c.header)}"
            if c.merge is not None:
                head += f", merge {n(c.merge)}"
            if c.continue_target is not None:
                head += f", continue {n(c.continue_target)}"
            out.append(head)
            out.append("    blocks: " + (" ".join(n(b) for b in c.blocks) or "(none reachable)"))
        for p in f.problems:
            out.append("  problem: " + explain(flow, f, p))
    return "\n".join(out) + "\n"


def constructs(flow: ModuleFlow) -> list[dict]:
    """The constructs of every function as data (what `check --json` reports): function, kind, header,
    merge, continue target, the blocks inside (by name) and the enclosing construct's position in this
    list (None at the top)."""
    n = flow.block_name
    out: list[dict] = []
    for f in flow.functions:
        base = len(out)
        parents, _ = construct_tree(f)
        for c, parent in zip(f.constructs, parents):
            out.append({"function": f.name, "kind": c.kind, "header": n(c.header),
                        "merge": None if c.merge is None else n(c.merge),
                        "continue": None if c.continue_target is None else n(c.continue_target),
                        "blocks": [n(b) for b in c.blocks], "parent": None if parent is None else base + parent})
    return out


def construct_tree(func: FunctionFlow) -> tuple[list[int | None], dict[int, int | None]]:
    """How the constructs nest, for drawing: each construct's parent (an index into func.constructs, None
    at the top), the smallest other construct holding its header; and each block's innermost construct
    (None: in none). Smaller means fewer blocks, ties broken by order, so the parents form a tree even
    in a broken module whose constructs overlap."""
    order = sorted(range(len(func.constructs)), key=lambda i: (len(func.constructs[i].blocks), i))
    rank = {c: r for r, c in enumerate(order)}
    members = [set(c.blocks) for c in func.constructs]
    parents: list[int | None] = []
    for i, c in enumerate(func.constructs):
        holders = [j for j in order if rank[j] > rank[i] and c.header in members[j]]
        parents.append(holders[0] if holders else None)
    innermost = {b: next((j for j in order if b in members[j]), None) for b in func.blocks}
    return parents, innermost


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(flow: ModuleFlow) -> str:
    """GraphViz: one cluster per construct, nested as the constructs are (each block drawn once, in its
    innermost construct); an edge that breaks a rule is red and labelled with the rule, a merge block or
    continue target in the wrong place red."""
    n = flow.block_name
    out = ["digraph spirv {", "  node [shape=box, fontname=monospace];"]
    for fi, f in enumerate(flow.functions):
        node = {b: _quote(f"f{fi}_{b}") for b in f.blocks}
        parents, innermost = construct_tree(f)
        bad_edges: dict[tuple[int, int], str] = {}
        bad_blocks: set[int] = set()
        for problem in f.problems:
            parts = problem.split("|")
            if parts[0] == "exit":
                bad_edges[(int(parts[3]), int(parts[4]))] = "exit"
            elif parts[0] == "back-edge":
                bad_edges.update({(int(b), int(parts[2])): "back edge" for b in parts[3].split()})
            else:                               # the merge block or continue target in the wrong place
                bad_blocks.add(int(parts[3]))

        def emit(owner: int | None, indent: str) -> None:
            for ci in (i for i, p in enumerate(parents) if p == owner):
                c = f.constructs[ci]
                out.append(f"{indent}subgraph cluster_f{fi}_c{ci} {{ label={_quote(f'{c.kind} {n(c.header)}')}; "
                           f"style=dashed;")
                emit(ci, indent + "  ")
                if not c.blocks:
                    out.append(f"{indent}  {_quote(f'f{fi}_c{ci}_empty')} [label=\"(no blocks)\", shape=plain];")
                out.append(f"{indent}}}")
            for b in f.blocks:
                if innermost[b] == owner:
                    style = ", color=red, fontcolor=red" if b in bad_blocks else ""
                    out.append(f"{indent}{node[b]} [label={_quote(n(b))}{style}];")

        out.append(f"  subgraph cluster_f{fi} {{ label={_quote(f.name)};")
        emit(None, "    ")
        for b in f.blocks:
            for t in f.succs[b]:
                if t not in node:
                    continue
                rule = bad_edges.get((b, t))
                style = f' [color=red, fontcolor=red, penwidth=2, label="{rule}"]' if rule else ""
                out.append(f"    {node[b]} -> {node[t]}{style};")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
