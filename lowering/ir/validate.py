"""The IR's rules, in both forms, checked after every pass (tests always; the command line with --verify-each).

The validator only looks: it never renumbers blocks or rewrites an edge, so a stale successor or predecessor
list is reported instead of repaired. It derives the edges afresh (from terminators in CFG form, from the
tree in structured form) and compares the stored lists with them.

Both forms:
- instructions: the opcode exists in lowering.ir.opcodes and its type rule and attribute schema hold
  (operand count, operand and result types, required and allowed attributes); `ret`/`return` give the
  function's return type; an instruction sits in one block and its block link is right;
- operands: constants, undef, arguments of this function or instructions placed in it;
- SSA: definitions dominate their uses (a phi's source dominates the end of its predecessor; an if's
  condition the end of the block before the if); phis come first, one source per predecessor;
- edges: stored succs and preds equal the derived ones; the entry block has no predecessors.
CFG form: every block ends in exactly one terminator (br, cbr, switch, ret, unreachable) whose targets are
blocks of the function; no structured jumps or structurizer variables.
Structured form (Mesa NIR's control-flow model): every CF list is non-empty, starts and ends with a block
and holds exactly one block between two ifs/loops; parent links are right; break/continue/return only end
the block that ends its CF list, break/continue only inside a loop; no CFG terminators or structurizer
variables; the end block is empty; no critical edges; phis only after an if, after a loop or at a loop's
first block.

Convergence tokens (CFG form only; LLVM LangRef, "Convergent Operation Semantics", static rules): a token is
made only by `convergence` and used only as the last operand of a convergent instruction (the
"convergencectrl" bundle) or as the one operand of convergence.loop; entry stands in the entry block, at
most once; a loop heart stands only in a loop's header, at most one per header; neither comes after
another convergent instruction of its block; the cycle rule: a loop that uses a token defined outside it
uses it only in its header's convergence.loop (so one such token per loop); definitions dominate uses (the
SSA rule). Not checked: that all or none of a function's convergent instructions are controlled (LLVM's
verifier checks it on LLVM input; our front ends may control only some, the others stay maximally
convergent) and the nesting of convergence regions.

Problems are collected, not thrown one by one, and each is anchored to the instruction, block or if it
concerns, so `annotated()` can print the function with the offending lines marked (as NIR's validator does).
"""
from __future__ import annotations

from reconverge.lowering import graph
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.ir.core import (
    Arg,
    Block,
    CFNode,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
)
from reconverge.lowering.ir.opcodes import JUMPS, OPCODES, STRUCTURIZER_ONLY, TERMINATORS, type_problem
from reconverge.lowering.ir.successors import structured_successors
from reconverge.lowering.ir.types import I1, VOID
from reconverge.records import record
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable

_N_TARGETS = {"br": 1, "cbr": 2, "ret": 0, "unreachable": 0}


@record(frozen=True)
class Problem:
    """One broken rule: where (a human-readable place) and what; `anchor` is the IR object it concerns."""
    where: str
    message: str
    anchor: object = None

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ValidationError(Exception):
    """Invalid IR; the message is one line, `annotated` the function printed with every problem marked."""

    def __init__(self, func: Function, problems: list[Problem], after: str = ""):
        where = f" after {after}" if after else ""
        first = str(problems[0])
        super().__init__(f"function @{func.name}: invalid IR{where}: {first}"
                         + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        self.func = func
        self.problems = problems
        self.errors = [str(p) for p in problems]

    @property
    def annotated(self) -> str:
        return annotated(self.func, self.problems)


@depth_independent
def check(func: Function) -> list[Problem]:
    """Every rule `func` breaks, in program order."""
    return _Validator(func).run()


def validate(func: Function) -> list[str]:
    """check() as text lines (empty: valid)."""
    return [str(p) for p in check(func)]


def verify(func: Function, after: str = "") -> None:
    problems = check(func)
    if problems:
        raise ValidationError(func, problems, after)


def annotated(func: Function, problems: list[Problem]) -> str:
    """The function's text with each problem printed under the line it is anchored to."""
    from reconverge.lowering.ir.printer import printed_lines
    lines = printed_lines(func)
    by_anchor: dict[int, list[Problem]] = {}
    loose: list[Problem] = []
    anchored = {id(obj) for _, obj in lines if obj is not None}
    for p in problems:
        if p.anchor is not None and id(p.anchor) in anchored:
            by_anchor.setdefault(id(p.anchor), []).append(p)
        else:
            loose.append(p)
    out = [f"; error: {p}" for p in loose]
    for text, obj in lines:
        out.append(text)
        for p in by_anchor.pop(id(obj), []) if obj is not None else []:
            indent = len(text) - len(text.lstrip())
            out.append(" " * indent + "^ error: " + str(p))
    return "\n".join(out) + "\n"


def critical_edges(blocks: list[Block], succs: dict[Block, list[Block]],
                   preds: dict[Block, list[Block]]) -> list[tuple[Block, Block]]:
    """Edges from a block with several successors to one with several predecessors. A valid tree has
    none (that is what the empty else blocks are for), so this guards the tree rules themselves."""
    return [(b, s) for b in blocks if len(succs[b]) > 1 for s in succs[b] if len(preds.get(s, ())) > 1]


class _Validator:
    def __init__(self, func: Function):
        self.func = func
        self.problems: list[Problem] = []

    def error(self, where: str, message: str, anchor: object = None) -> None:
        self.problems.append(Problem(where, message, anchor))

    def name(self, b: Block) -> str:
        return "end" if b is self.func.end_block else f"b{self.number.get(b, '?')}"

    def place(self, b: Block, i: int, ins: Instr) -> str:
        return f"block {self.name(b)}, instruction {i} ({ins.opcode})"

    def run(self) -> list[Problem]:
        func = self.func
        self.phi_ok: set[Block] = set()       # structured form: blocks where phis may stand
        if func.is_structured:
            if not func.body:
                return [Problem("", "function body is empty", func)]
            self.blocks: list[Block] = []
            self._check_list(func.body, func, in_loop=False)
            if self.problems:
                return self.problems          # the tree is broken: the rest would only echo it
        else:
            if not func.blocks:
                return [Problem("", "function has no blocks", func)]
            self.blocks = list(func.blocks)
            if len({id(b) for b in self.blocks}) != len(self.blocks):
                self.error("", "a block is listed twice", func)
                return self.problems
        self.number = {b: i for i, b in enumerate(self.blocks)}
        self.succs = self._derived_successors()
        self.preds: dict[Block, list[Block]] = {b: [] for b in self.blocks}
        self.preds[func.end_block] = []
        for b in self.blocks:
            for s in self.succs[b]:
                if s in self.preds:
                    self.preds[s].append(b)
        self._check_edges()
        self._check_instructions()
        if not self.foreign_operand:
            self._check_dominance()
            if any(isinstance(v, Value) and v.type.is_token for b in self.blocks for ins in b.instrs
                   for v in (ins, *ins.operands)):
                self._check_tokens()
        return self.problems

    # ----- structured form: tree shape
    def _check_list(self, nodes: list[CFNode], parent: CFNode | Function, in_loop: bool) -> None:
        owner = type(parent).__name__.lower()
        if not nodes:
            self.error(owner, "empty CF list", parent)
            return
        if not isinstance(nodes[0], Block) or not isinstance(nodes[-1], Block):
            self.error(owner, "a CF list must start and end with a block", parent)
        for i, node in enumerate(nodes):
            if node.parent is not parent:
                self.error(owner, f"node {i} of a CF list has a wrong parent link", node)
            if i and isinstance(node, Block) == isinstance(nodes[i - 1], Block):
                what = "two blocks" if isinstance(node, Block) else "two ifs/loops"
                self.error(owner, f"{what} in a row in a CF list (position {i})", node)
            if isinstance(node, Block):
                self.blocks.append(node)
                jump = node.jump
                if jump is not None:
                    where = f"block #{len(self.blocks) - 1}"
                    if jump.opcode in ("break", "continue") and not in_loop:
                        self.error(where, f"{jump.opcode} outside a loop", jump)
                    if i != len(nodes) - 1:
                        self.error(where, "a block ending in a jump must end its CF list", jump)
                if i and isinstance(nodes[i - 1], (If, Loop)):
                    self.phi_ok.add(node)
            elif isinstance(node, If):
                if not isinstance(node.cond, Value) or node.cond.type != I1:
                    self.error("if", "condition must be an i1 value", node)
                self._check_list(node.then_list, node, in_loop)
                self._check_list(node.else_list, node, in_loop)
            elif isinstance(node, Loop):
                if node.body and isinstance(node.body[0], Block):
                    self.phi_ok.add(node.body[0])
                self._check_list(node.body, node, True)
            else:
                self.error(owner, f"unknown CF node {type(node).__name__}", node)

    # ----- edges
    def _derived_successors(self) -> dict[Block, list[Block]]:
        if self.func.is_structured:
            derived = structured_successors(self.func)
            return {b: derived.get(b, []) for b in self.blocks}
        out: dict[Block, list[Block]] = {}
        for b in self.blocks:
            t = b.instrs[-1] if b.instrs and b.instrs[-1].opcode in TERMINATORS else None
            out[b] = [s for s in dict.fromkeys(t.targets) if s in self.number] if t is not None else []
        return out

    def _check_edges(self) -> None:
        func = self.func
        for b in self.blocks:
            if b.succs != self.succs[b]:
                self.error(f"block {self.name(b)}", "stored successors disagree with the "
                           + ("tree" if func.is_structured else "terminator")
                           + f" ({self._names(b.succs)} stored, {self._names(self.succs[b])} derived)", b)
        for b, ps in self.preds.items():
            if b is func.end_block and not func.is_structured:
                continue
            if sorted(map(id, b.preds)) != sorted(map(id, ps)):
                self.error(f"block {self.name(b)}", "stored predecessors disagree with the "
                           + ("tree" if func.is_structured else "terminators")
                           + f" ({self._names(b.preds)} stored, {self._names(ps)} derived)", b)
        entry = self.blocks[0]
        if self.preds[entry]:
            self.error(f"entry block {self.name(entry)}", f"has predecessors {self._names(self.preds[entry])}", entry)
        if func.is_structured:
            if func.end_block.instrs:
                self.error("end block", "the end block must be empty", func)
            for b, s in critical_edges(self.blocks, self.succs, self.preds):
                self.error(f"block {self.name(b)}", f"critical edge to {self.name(s)}", b)

    def _names(self, blocks: list[Block]) -> str:
        return "[" + ", ".join(self.name(b) if b in self.number or b is self.func.end_block else "a foreign block"
                               for b in blocks) + "]"

    # ----- instructions
    def _check_instructions(self) -> None:
        func = self.func
        self.defined: dict[Instr, tuple[Block, int]] = {}
        self.args = set(map(id, func.args))
        self.placed = {id(ins) for b in self.blocks for ins in b.instrs}
        self.foreign_operand = False
        for b in self.blocks:
            if not func.is_structured:
                self._check_cfg_block(b)
            for i, ins in enumerate(b.instrs):
                where = self.place(b, i, ins)
                if ins in self.defined:
                    self.error(where, f"instruction appears twice (also in {self.name(self.defined[ins][0])})", ins)
                else:
                    self.defined[ins] = (b, i)
                if ins.block is not b:
                    self.error(where, "instruction's block link is wrong", ins)
                if ins.opcode not in OPCODES:
                    self.error(where, "unknown opcode", ins)
                    continue
                self._check_form(b, i, ins, where)
                for v in ins.operands:
                    self._check_operand(v, where, ins)
                problem = type_problem(ins.opcode, [v.type for v in ins.operands if isinstance(v, Value)],
                                       ins.type, ins.attrs)
                if problem is not None and self._token_use_problem(ins) is not None:
                    problem = None                 # the token rules (_check_tokens) say what is wrong
                if problem is not None:
                    self.error(where, problem, ins)
                if ins.opcode in ("ret", "return"):
                    want = [] if func.return_type == VOID else [func.return_type]
                    got = [v.type for v in ins.operands]
                    if got != want:
                        self.error(where, f"returns {', '.join(map(str, got)) or 'nothing'}, the function "
                                   f"returns {func.return_type}", ins)
                if isinstance(ins, Phi):
                    self._check_phi(b, i, ins, where)

    def _check_form(self, b: Block, i: int, ins: Instr, where: str) -> None:
        last = i == len(b.instrs) - 1
        if self.func.is_structured:
            if ins.opcode in TERMINATORS or ins.opcode in STRUCTURIZER_ONLY:
                self.error(where, "not allowed in structured form", ins)
            if ins.opcode in JUMPS and not last:
                self.error(where, "a jump must be the last instruction of its block", ins)
            if ins.targets:
                self.error(where, "has targets: only CFG-form terminators have them", ins)
            return
        if ins.opcode in JUMPS or ins.opcode in STRUCTURIZER_ONLY:
            self.error(where, "structured-form opcode in CFG form", ins)
        if ins.opcode in TERMINATORS and not last:
            self.error(where, "terminator in the middle of the block", ins)
        if ins.targets and ins.opcode not in TERMINATORS:
            self.error(where, "non-terminator has targets", ins)
        for t in ins.targets:
            if t not in self.number:
                self.error(where, "a target is not a block of the function", ins)

    def _check_cfg_block(self, b: Block) -> None:
        if not b.instrs:
            self.error(f"block {self.name(b)}", "empty block", b)
            return
        term = b.instrs[-1]
        where = self.place(b, len(b.instrs) - 1, term)
        if term.opcode not in TERMINATORS:
            self.error(f"block {self.name(b)}", "block does not end in a terminator", b)
            return
        if term.opcode in _N_TARGETS and len(term.targets) != _N_TARGETS[term.opcode]:
            self.error(where, f"{len(term.targets)} targets, {term.opcode} takes {_N_TARGETS[term.opcode]}", term)
        if term.opcode == "cbr" and len(term.targets) == 2 and term.targets[0] is term.targets[1]:
            self.error(where, "both targets are the same block (use br)", term)
        if term.opcode == "switch":
            cases = term.attrs.get("cases")
            if isinstance(cases, list) and len(cases) + 1 != len(term.targets):
                self.error(where, f"{len(term.targets)} targets for {len(cases)} cases and a default", term)
            elif isinstance(cases, list) and len(set(cases)) != len(cases):
                self.error(where, f"duplicate case values {cases}", term)

    def _check_operand(self, v: object, where: str, ins: Instr) -> None:
        if isinstance(v, (Const, Undef)):
            return
        if isinstance(v, Arg):
            if id(v) not in self.args:
                self.error(where, f"operand {v.name or '?'} is an argument of another function", ins)
        elif isinstance(v, Instr):
            if id(v) not in self.placed:
                self.foreign_operand = True
                self.error(where, f"operand {v!r} is not defined in the function", ins)
        else:
            self.foreign_operand = True
            self.error(where, f"operand of unknown kind {type(v).__name__}", ins)

    def _check_phi(self, b: Block, i: int, phi: Phi, where: str) -> None:
        if any(not isinstance(x, Phi) for x in b.instrs[:i]):
            self.error(where, "phi after a non-phi instruction (phis come first in their block)", phi)
        if self.func.is_structured and b not in self.phi_ok:
            self.error(where, "a phi may only stand after an if, after a loop or at a loop header", phi)
        if len(phi.blocks) != len(phi.operands):
            self.error(where, f"{len(phi.blocks)} blocks for {len(phi.operands)} values", phi)
        ids = [id(x) for x in phi.blocks]
        if len(set(ids)) != len(ids):
            self.error(where, "a predecessor is listed twice", phi)
        preds = self.preds.get(b, [])
        if set(ids) != set(map(id, preds)) or len(ids) != len(preds):
            self.error(where, f"phi sources must be exactly one per predecessor: incoming blocks "
                       f"{self._names(phi.blocks)} are not the predecessors {self._names(preds)}", phi)

    # ----- dominance
    def _check_dominance(self) -> None:
        func = self.func
        succs = [[self.number[s] for s in self.succs[b] if s in self.number] for b in self.blocks]
        dom = graph.dominator_tree(succs, 0)
        reachable = [dom.pre[i] >= 0 for i in range(len(self.blocks))]

        def ok(v: Value, block: Block, index: int) -> bool:
            if not isinstance(v, Instr) or v not in self.defined:
                return True                              # not an instruction, or reported already
            db, di = self.defined[v]
            return di < index if db is block else dom.dominates(self.number[db], self.number[block])

        for b in self.blocks:
            if not reachable[self.number[b]]:
                continue
            for i, ins in enumerate(b.instrs):
                if isinstance(ins, Phi):
                    for p, v in ins.incoming():
                        if p in self.number and reachable[self.number[p]] and not ok(v, p, len(p.instrs)):
                            self.error(f"block {self.name(b)}, phi {i}",
                                       f"source from {self.name(p)} does not dominate that edge", ins)
                else:
                    for v in ins.operands:
                        if not ok(v, b, i):
                            before = isinstance(v, Instr) and self.defined[v][0] is b
                            self.error(self.place(b, i, ins),
                                       f"uses {v!r} before its definition in the block" if before else
                                       "uses a value whose definition does not dominate it", ins)
        if func.is_structured:
            self._check_if_conditions(ok, reachable)

    # ----- convergence tokens
    def _check_tokens(self) -> None:
        if self.func.is_structured:
            self.error("", "convergence tokens belong to the CFG form (pass convergence removes them)", self.func)
            return
        succs = [[self.number[s] for s in self.succs[b] if s in self.number] for b in self.blocks]
        try:
            forest = graph.loop_forest(succs, 0)
        except graph.IrreducibleError:
            self.error("", "convergence tokens in an irreducible CFG", self.func)
            return
        hearts: dict[int, Instr] = {}
        entries = 0
        for b in self.blocks:
            index = self.number[b]
            seen_convergent = False
            for i, ins in enumerate(b.instrs):
                problem = self._token_use_problem(ins)
                if problem is None and ins.opcode == "convergence":
                    kind = ins.attrs.get("kind")
                    if kind == "entry":
                        entries += 1
                        problem = ("convergence.entry outside the entry block" if index != 0 else
                                   "a second convergence.entry" if entries > 1 else None)
                    elif kind == "loop":
                        problem = ("convergence.loop outside a loop's header" if forest.header_of[index] != index
                                   else "a second convergence.loop in the loop's header" if index in hearts
                                   else None)
                        hearts.setdefault(index, ins)
                    if problem is None and kind in ("entry", "loop") and seen_convergent:
                        problem = f"convergence.{kind} after a convergent instruction of its block"
                if problem is not None:
                    self.error(self.place(b, i, ins), problem, ins)
                elif (token := ins.operands[-1] if ins.operands else None) is not None and token.type.is_token:
                    self._check_cycle_rule(b, i, ins, cast(Instr, token), forest)
                if OPCODES[ins.opcode].has("convergent"):
                    seen_convergent = True

    @staticmethod
    def _token_use_problem(ins: Instr) -> str | None:
        """What is wrong with the tokens an instruction makes or uses (one problem), or None."""
        if ins.type.is_token and ins.opcode != "convergence":
            return "only a convergence instruction makes a token"
        for k, v in enumerate(ins.operands):
            if not isinstance(v, Value) or not v.type.is_token:
                continue
            spec = OPCODES.get(ins.opcode)
            if k != len(ins.operands) - 1 or spec is None or not spec.has("convergent"):
                return "a token may only be the last operand (convergencectrl) of a convergent instruction"
            if not isinstance(v, Instr):      # an instruction that is not a convergence one is reported itself
                return "a token operand must be a convergence instruction's result"
        return None

    def _check_cycle_rule(self, b: Block, i: int, ins: Instr, token: Instr, forest: graph.LoopForest) -> None:
        """Every loop holding a use of a token holds its definition, except the loop whose header's
        convergence.loop uses it (LangRef's static rules about closed paths)."""
        if token not in self.defined:
            return
        home = self.number[self.defined[token][0]]
        h = forest.header_of[self.number[b]]
        while h != -1 and not forest.contains(h, home):
            heart = ins.opcode == "convergence" and self.number[b] == h
            if not heart:
                self.error(self.place(b, i, ins), f"uses token %{token.name or '?'} in the loop at "
                           f"{self.name(self.blocks[h])}, which does not hold its definition (the cycle rule: "
                           "only that loop's convergence.loop may)", ins)
                return
            h = forest.parent[h]

    def _check_if_conditions(self, ok: Callable[[Value, Block, int], bool], reachable: list[bool]) -> None:
        """An if's condition is read where the block before it ends."""
        from reconverge.lowering.ir.core import cf_lists
        for nodes in cf_lists(self.func):
            for i, node in enumerate(nodes):
                if isinstance(node, If):
                    before = cast(Block, nodes[i - 1])
                    if reachable[self.number[before]] and not ok(node.cond, before, len(before.instrs)):
                        self.error(f"if after {self.name(before)}", "condition's definition does not dominate the if",
                                   node)
                    if isinstance(node.cond, Instr) and node.cond not in self.defined:
                        self.error(f"if after {self.name(before)}", "condition is not defined in the function", node)
                    elif isinstance(node.cond, Arg) and id(node.cond) not in self.args:
                        self.error(f"if after {self.name(before)}", "condition is an argument of another function",
                                   node)
