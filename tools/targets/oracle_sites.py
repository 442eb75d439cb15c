"""Instrument a kernel module's LLVM IR text so that each lane can say which dynamic instance of a sub-group
operation it waits at (oracle_subgroups.py explains why that needs more than the call instruction).

Every call of a cross-lane sub-group built-in gets a site number, stored into the work-item's state just
before the call (`__oracle_sg_site`); every call of a function that leads to one pushes its own site number
around the call (`__oracle_sg_push`/`__oracle_sg_pop`); every natural loop that encloses such a call counts
its iterations (`__oracle_loop_enter` on each edge into its header from outside, `__oracle_loop_iter` in the
header).  The lane's key is then the chain of sites with the counters of the loops around each.

The CFG comes from the text: blocks are the label lines, successors the `label %x` operands (only
terminators have them).  A call inside a cycle that is not a natural loop (irreducible control flow) has no
iteration to name, and a chain of calls deeper than the state's stack has no room: both are refused.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from reconverge.tools.targets.oracle_subgroups import STACK_SLOTS

# the cross-lane built-ins (their unmangled names); the lane-local ones (ids, sizes, bit queries) need no site
_CROSS_LANE = re.compile(r"sub_group_(?:(?:non_uniform_|clustered_)?(?:reduce|scan)_\w+|(?:non_uniform_)?broadcast"
                         r"|broadcast_first|shuffle(?:_xor|_up|_down)?|(?:non_uniform_)?(?:all|any)|"
                         r"non_uniform_all_equal|elect|ballot|barrier)$")
_BARRIERS = ("_Z7barrierj", "_Z18work_group_barrierj", "_Z18work_group_barrierj12memory_scope")
_CALL = re.compile(r"\bcall\b[^@]*@([\w.$]+)\(")
_DEFINE = re.compile(r"^define\b[^@]*@([\w.$]+)\(")
_LABEL = re.compile(r'^([-\w$.]+|"[^"]*"):')
_SUCC = re.compile(r'\blabel\s+%([-\w$.]+|"[^"]*")')
_TERMINATOR = re.compile(r"^\s*(?:br|switch|indirectbr|ret|unreachable|resume|callbr|invoke)\b")
_PHI = re.compile(r"^\s*%[-\w$.\"]+\s*=\s*phi\b")
_TOKEN_DEF = re.compile(r'^\s*(%[-\w$.]+|%"[^"]*")\s*=\s*(?:tail\s+)?call token @llvm\.experimental\.convergence\.'
                        r'(entry|loop|anchor)\(\)(?:\s*\[\s*"convergencectrl"\(token (%[-\w$.]+|%"[^"]*")\)\s*\])?')
_BUNDLE = re.compile(r'\[\s*"convergencectrl"\(token (%[-\w$.]+|%"[^"]*")\)\s*\]')
_ENTRY = "<entry>"


class SiteError(Exception):
    """The sub-group model cannot key this module's calls (irreducible loops, calls nested too deep)."""


def builtin_name(mangled: str) -> str:
    """'_Z20sub_group_reduce_addi' -> 'sub_group_reduce_add' (the Itanium name's first identifier)."""
    m = re.match(r"_Z(\d+)", mangled)
    return mangled[m.end():m.end() + int(m.group(1))] if m else mangled


def is_cross_lane(mangled: str) -> bool:
    return bool(_CROSS_LANE.match(builtin_name(mangled)))


def _keyed_builtin(mangled: str) -> bool:
    """A call whose lanes wait: a cross-lane sub-group built-in or a work-group barrier."""
    return is_cross_lane(mangled) or mangled in _BARRIERS


@dataclass
class Sites:
    """What the instrumentation numbered: per site its enclosing loops (outermost first), a description and
    its place (function, block, line); per function its CFG and natural loops, to order the sites."""
    loops: dict[int, tuple[int, ...]] = field(default_factory=dict)
    where: dict[int, str] = field(default_factory=dict)
    place: dict[int, tuple[str, str, int]] = field(default_factory=dict)
    succs: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    headers: dict[int, str] = field(default_factory=dict)            # loop number -> its header block
    bodies: dict[int, set[str]] = field(default_factory=dict)        # loop number -> its blocks
    loop_count: int = 0
    outside: set[int] = field(default_factory=set)    # sites keyed by a loop they are not in (its token's)
    refused: dict[str, str] = field(default_factory=dict)   # function -> why its tokens cannot be keyed

    def reaches(self, start: tuple, goal: tuple) -> bool:
        """May a lane waiting at key `start` later wait at key `goal` (False only when it surely cannot)?

        Keys are chains of (site, iterations of its loops); at the first frame where they differ both
        sites are calls in the same function. A lane in a later iteration of a loop around both never
        comes back to an earlier one; in the same iterations it reaches the other call only along a path
        that stays in the innermost loop around both without passing that loop's or an outer one's
        header again (natural loops: leaving one and entering it again needs an enclosing cycle, which
        would be a loop around both)."""
        d = next(i for i, (a, b) in enumerate(zip(start, goal)) if a != b)
        (s1, it1), (s2, it2) = start[d], goal[d]
        common = 0
        for l1, l2 in zip(self.loops[s1], self.loops[s2]):
            if l1 != l2:
                break
            common += 1
        if it1[:common] != it2[:common]:
            return it1[:common] < it2[:common]
        fn, block1, line1 = self.place[s1]
        _, block2, line2 = self.place[s2]
        if block1 == block2 and line2 > line1:
            return True
        shared = self.loops[s1][:common]
        # a site its token keeps in a loop it is not in (an exit block's) is reached from the loop's body
        # outside it: then only the headers bound the search
        inside = shared and s1 not in self.outside and s2 not in self.outside
        region = self.bodies[shared[-1]] if inside else None
        closed = {self.headers[n] for n in shared}
        succs = self.succs[fn]
        seen: set[str] = set()
        todo = list(succs[block1])
        while todo:
            block = todo.pop()
            if block in seen or block in closed or (region is not None and block not in region):
                continue
            if block == block2:
                return True
            seen.add(block)
            todo.extend(succs[block])
        return False


@dataclass
class _Function:
    name: str
    start: int                                  # index of the `define` line
    end: int                                    # index of the closing `}`
    blocks: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> [first line, end)
    order: list[str] = field(default_factory=list)
    succs: dict[str, list[str]] = field(default_factory=dict)


def _functions(lines: list[str]) -> list[_Function]:
    out, i = [], 0
    while i < len(lines):
        m = _DEFINE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while lines[j].rstrip() != "}":
            j += 1
        fn = _Function(m.group(1), i, j)
        current, first = _ENTRY, i + 1
        for k in range(i + 1, j):
            label = _LABEL.match(lines[k])
            if label:
                fn.blocks[current] = (first, k)
                fn.order.append(current)
                current, first = label.group(1), k + 1
        fn.blocks[current] = (first, j)
        fn.order.append(current)
        for b, (lo, hi) in fn.blocks.items():
            fn.succs[b] = [s for k in range(lo, hi) for s in _SUCC.findall(lines[k].split(";")[0])]
        lo, hi = fn.blocks[_ENTRY]
        if len(fn.order) > 1 and not any(lines[k].split(";")[0].strip() for k in range(lo, hi)):
            fn.succs[_ENTRY] = [fn.order[1]]        # the entry block has a label (`entry:`, names kept)
        out.append(fn)
        i = j + 1
    return out


def _dominators(fn: _Function) -> dict[str, set[str]]:
    preds: dict[str, set[str]] = {b: set() for b in fn.order}
    for b, ss in fn.succs.items():
        for s in ss:
            preds.setdefault(s, set()).add(b)
    reach, todo = {_ENTRY}, [_ENTRY]
    while todo:
        for s in fn.succs.get(todo.pop(), []):
            if s not in reach:
                reach.add(s)
                todo.append(s)
    dom = {b: set(reach) for b in reach}
    dom[_ENTRY] = {_ENTRY}
    changed = True
    while changed:
        changed = False
        for b in fn.order:
            if b == _ENTRY or b not in reach:
                continue
            ps = [dom[p] for p in preds[b] if p in reach]
            new = set.intersection(*ps) | {b} if ps else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def _loops(fn: _Function, dom: dict[str, set[str]]) -> dict[str, set[str]]:
    """Natural loops: header -> body (the blocks that reach a back edge's source without passing the header)."""
    preds: dict[str, list[str]] = {b: [] for b in fn.order}
    for b, ss in fn.succs.items():
        for s in ss:
            preds[s].append(b)
    loops: dict[str, set[str]] = {}
    for u in dom:
        for h in fn.succs[u]:
            if h in dom[u]:                             # a back edge u -> h
                body = loops.setdefault(h, {h})
                todo = [u]
                while todo:
                    x = todo.pop()
                    if x not in body:
                        body.add(x)
                        todo.extend(p for p in preds[x] if p in dom)
    return loops


def _irreducible_blocks(fn: _Function, dom: dict[str, set[str]], loops: dict[str, set[str]]) -> set[str]:
    """Blocks on a cycle that no natural loop covers: a block in a cyclic strongly connected component of
    the CFG without the natural loops' back edges."""
    succs = {b: [s for s in fn.succs[b] if s in dom and s not in dom[b]] for b in dom}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    bad: set[str] = set()
    counter = [0]

    def visit(root: str) -> None:
        work = [(root, iter(succs[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succs[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succs[v]:
                    bad.update(comp)

    for b in dom:
        if b not in index:
            visit(b)
    return bad


def _tokens(fn: _Function, lines: list[str]) -> dict[str, tuple[str, str, str | None]]:
    """The function's convergence-control tokens: name -> (kind, block defining it, parent token)."""
    out: dict[str, tuple[str, str, str | None]] = {}
    for b, (lo, hi) in fn.blocks.items():
        for k in range(lo, hi):
            m = _TOKEN_DEF.match(lines[k])
            if m:
                out[m.group(1)] = (m.group(2), b, m.group(3))
    return out


def _token_loops(fn: _Function, line: str, tokens: dict, loops: dict[str, set[str]]) -> set[str]:
    """The headers of the loops whose iteration the call's convergence-control token names (LLVM's
    ConvergentOperations.rst: a `loop` token's dynamic instance is one iteration of the cycle whose header
    holds it, inside its parent token's instance), whether or not the call is inside them."""
    m = _BUNDLE.search(line)
    headers: set[str] = set()
    token = m.group(1) if m else None
    while token is not None:
        if token not in tokens:
            raise SiteError(f"@{fn.name}: convergence-control token {token} is not defined by "
                            f"llvm.experimental.convergence.* in the function")
        kind, block, token = tokens[token]
        if kind == "anchor":
            raise SiteError(f"@{fn.name}: a sub-group operation under llvm.experimental.convergence.anchor "
                            f"(block %{block.strip('<>')}), whose lanes are the implementation's choice")
        if kind == "loop":
            if block not in loops:
                raise SiteError(f"@{fn.name}: llvm.experimental.convergence.loop in block %{block.strip('<>')}, "
                                f"which is not a loop header")
            headers.add(block)
    return headers


def without_tokens(text: str) -> str:
    """The module without convergence-control tokens (no host backend compiles the `token` type); the
    sites were keyed with them first (instrument)."""
    lines = [line for line in text.split("\n") if not _TOKEN_DEF.match(line)]
    return _BUNDLE.sub("", "\n".join(lines))


def instrument(text: str) -> tuple[str, Sites] | None:
    """The module text with sites, call chains and loop counters instrumented, or None when it makes no
    cross-lane sub-group call. Raises SiteError when the calls cannot be keyed."""
    lines = text.split("\n")
    functions = _functions(lines)
    defined = {f.name for f in functions}
    calls: dict[str, list[tuple[str, int, str]]] = {}     # function -> [(block, line, callee)]
    for fn in functions:
        for b, (lo, hi) in fn.blocks.items():
            for k in range(lo, hi):
                for callee in _CALL.findall(lines[k]):
                    calls.setdefault(fn.name, []).append((b, k, callee))
    # the functions that lead to a cross-lane call, and how deep their chains go
    leads: dict[str, int] = {}                          # function -> the longest chain of calls below it

    def depth(name: str, path: tuple[str, ...]) -> int:
        if name in path:
            raise SiteError(f"@{name} calls itself (through {' -> '.join('@' + p for p in path)}) on the way to "
                            f"a sub-group operation")
        if name in leads:
            return leads[name]
        best = -1
        for _, _, callee in calls.get(name, []):
            if _keyed_builtin(callee) and callee not in defined:
                best = max(best, 0)
            elif callee in defined:
                d = depth(callee, path + (name,))
                if d >= 0:
                    best = max(best, d + 1)
        leads[name] = best
        return best

    for fn in functions:
        depth(fn.name, ())
    if not any(is_cross_lane(callee) and callee not in defined for cs in calls.values() for _, _, callee in cs):
        return None
    if max(leads.values()) > STACK_SLOTS:
        deepest = max(leads, key=lambda n: leads[n])
        raise SiteError(f"@{deepest} reaches a sub-group operation through {leads[deepest]} nested calls "
                        f"(the model keeps {STACK_SLOTS})")
    sites = Sites()
    inserts: dict[int, list[str]] = {}                  # line index -> lines to put before it
    after: dict[int, list[str]] = {}                    # line index -> lines to put after it
    for fn in functions:
        keyed = [(b, k, callee) for b, k, callee in calls.get(fn.name, [])
                 if (_keyed_builtin(callee) and callee not in defined) or leads.get(callee, -1) >= 0]
        if not keyed:
            continue
        dom = _dominators(fn)
        loops = _loops(fn, dom)
        bad = _irreducible_blocks(fn, dom, loops)
        if bad:
            b = next(b for b in fn.order if b in bad)
            raise SiteError(f"@{fn.name} calls a sub-group operation (or a function that does) and has "
                            f"irreducible control flow (block %{b.strip('<>')})")
        sites.succs[fn.name] = fn.succs
        tokens = _tokens(fn, lines)
        used: dict[str, int] = {}                       # header -> loop number
        for b, k, callee in keyed:
            if b not in dom:
                continue                                # unreachable: never runs
            name = builtin_name(callee) if callee not in defined else "@" + callee
            try:
                named = _token_loops(fn, lines[k], tokens, loops)
            except SiteError as e:               # refused when a kernel that reaches it runs (jit_oracle)
                sites.refused.setdefault(fn.name, str(e))
                continue
            around = sorted({h for h, body in loops.items() if b in body} | named, key=lambda h: -len(loops[h]))
            numbers = []
            for h in around:
                if h not in used:
                    used[h] = sites.loop_count
                    sites.headers[used[h]], sites.bodies[used[h]] = h, loops[h]
                    sites.loop_count += 1
                numbers.append(used[h])
            site = len(sites.loops)
            sites.loops[site] = tuple(numbers)
            if any(b not in loops[h] for h in named):
                sites.outside.add(site)
            sites.where[site] = f"{name} in @{fn.name} (block %{b.strip('<>')})"
            sites.place[site] = (fn.name, b, k)
            if callee in defined:
                inserts.setdefault(k, []).append(f"  call void @__oracle_sg_push(i64 {site})")
                after.setdefault(k, []).append("  call void @__oracle_sg_pop()")
            else:
                inserts.setdefault(k, []).append(f"  call void @__oracle_sg_site(i64 {site})")
        for h, number in used.items():
            lo, hi = fn.blocks[h]
            k = lo
            while k < hi and (_PHI.match(lines[k]) or not lines[k].strip()):
                k += 1
            inserts.setdefault(k, []).append(f"  call void @__oracle_loop_iter(i32 {number})")
            for p in fn.order:
                if h in fn.succs[p] and p in dom and p not in loops[h]:
                    plo, phi_ = fn.blocks[p]
                    term = next((t for t in range(phi_ - 1, plo - 1, -1) if _TERMINATOR.match(lines[t])), None)
                    if term is None:
                        raise SiteError(f"@{fn.name}: block %{p.strip('<>')} has no terminator the model reads")
                    inserts.setdefault(term, []).append(f"  call void @__oracle_loop_enter(i32 {number})")
    out: list[str] = []
    for k, line in enumerate(lines):
        out.extend(inserts.get(k, []))
        out.append(line)
        out.extend(after.get(k, []))
    out += ["declare void @__oracle_sg_site(i64)", "declare void @__oracle_sg_push(i64)",
            "declare void @__oracle_sg_pop()", "declare void @__oracle_loop_enter(i32)",
            "declare void @__oracle_loop_iter(i32)", ""]
    return "\n".join(out), sites
