"""Depth-first order, dominators, post-dominators, dominance frontiers, loops: all near-linear.

Dominators use the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
Algorithm", 2001) over reverse postorder: O(n) passes per loop-nesting level, fast in practice.
The loop forest follows Havlak ("Nesting of reducible and irreducible loops", TOPLAS 1997) restricted to
reducible graphs: headers are targets of back edges (edges to a dominator); bodies are collected
backwards from the latches, inner loops first, with union-find to jump over already-collapsed loops.
Below the IR: it works on integer graphs and imports nothing of ours, so the IR's validator, the
analyses, the structurizer and the backends all build on it (tests/test_layering.py holds it there).
"""
from __future__ import annotations

from reconverge.records import field, record

Succs = list[list[int]]


def predecessors(succs: Succs) -> Succs:
    preds: Succs = [[] for _ in succs]
    for u, ss in enumerate(succs):
        for v in ss:
            preds[v].append(u)
    return preds


def postorder(succs: Succs, entry: int) -> list[int]:
    """Nodes reachable from entry, in DFS postorder (successors visited in list order)."""
    seen = bytearray(len(succs))
    seen[entry] = 1
    order: list[int] = []
    stack = [(entry, iter(succs[entry]))]
    while stack:
        node, it = stack[-1]
        for s in it:
            if not seen[s]:
                seen[s] = 1
                stack.append((s, iter(succs[s])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def reverse_postorder(succs: Succs, entry: int) -> list[int]:
    order = postorder(succs, entry)
    order.reverse()
    return order


def cycles(succs: Succs | dict[int, list[int]], nodes: list[int]) -> list[list[int]]:
    """The strongly connected components of the subgraph on `nodes` that hold a cycle (Tarjan's
    algorithm, iterative; edges leaving `nodes` ignored), each in `nodes`' order. O(nodes + edges)."""
    place = {v: i for i, v in enumerate(nodes)}
    inner = [[place[t] for t in dict.fromkeys(succs[v]) if t in place] for v in nodes]
    n = len(nodes)
    index = [-1] * n
    low = [0] * n
    on_stack = bytearray(n)
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        frames = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        while frames:
            v, k = frames[-1]
            if k < len(inner[v]):
                frames[-1] = (v, k + 1)
                w = inner[v][k]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = 1
                    frames.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            frames.pop()
            if frames:
                u = frames[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = 0
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in inner[v]:
                    found.append([nodes[i] for i in sorted(component)])
    return found


def rpo_numbers(order: list[int], n: int) -> list[int]:
    """Position of each node in `order`; -1 for nodes not in it (unreachable)."""
    num = [-1] * n
    for i, v in enumerate(order):
        num[v] = i
    return num


def immediate_dominators(succs: Succs, entry: int, preds: Succs | None = None,
                         order: list[int] | None = None, num: list[int] | None = None,
                         one_pass: bool = False) -> list[int]:
    """idom[v] for every node reachable from entry (idom[entry] = entry); -1 for unreachable nodes.
    `preds`, `order` (reverse_postorder(succs, entry)) and `num` (rpo_numbers(order, len(succs))), when
    the caller has them, are not made again.

    `one_pass`: stop after the first pass, whose answer is the dominators of the forward edges alone (in
    reverse postorder each forward predecessor is final when its successor is reached; a retreating edge's
    source is not reached yet). Those are the graph's own when every retreating edge's target dominates
    its source by them, which is loop_forest's test: a path that takes a retreating edge u -> v passed v
    before reaching u, and cutting that cycle leaves a path over fewer of the same nodes. So a graph
    loop_forest accepts with this answer has exactly these dominators (the second pass of the loop below
    changes nothing), and one it rejects is irreducible either way (its retreating edges named may be
    fewer: recompute without `one_pass` to name them all)."""
    n = len(succs)
    preds = predecessors(succs) if preds is None else preds
    order = reverse_postorder(succs, entry) if order is None else order
    num = rpo_numbers(order, n) if num is None else num
    idom = [-1] * n
    idom[entry] = entry
    changed = True
    while changed:
        changed = False
        for v in order[1:]:
            new = -1
            for p in preds[v]:
                if idom[p] == -1:
                    continue
                if new == -1:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while num[a] > num[b]:
                        a = idom[a]
                    while num[b] > num[a]:
                        b = idom[b]
                new = a
            if new != idom[v]:
                idom[v] = new
                changed = True
        if one_pass:
            break
    return idom


@record
class DomTree:
    """Dominator tree with O(1) dominance queries through DFS pre/post numbers."""
    idom: list[int]
    children: list[list[int]]
    pre: list[int]
    post: list[int]

    @classmethod
    def build(cls, idom: list[int], root: int) -> "DomTree":
        n = len(idom)
        children: list[list[int]] = [[] for _ in range(n)]
        for v, d in enumerate(idom):
            if d != -1 and v != root:
                children[d].append(v)
        pre, post = [-1] * n, [-1] * n
        clock = 0
        stack = [(root, iter(children[root]))]
        pre[root] = clock
        clock += 1
        while stack:
            node, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                post[node] = clock
                clock += 1
            else:
                pre[child] = clock
                clock += 1
                stack.append((child, iter(children[child])))
        return cls(idom, children, pre, post)

    def dominates(self, a: int, b: int) -> bool:
        """a dominates b (reflexive). Unreachable nodes dominate nothing and are dominated by nothing."""
        if self.pre[a] < 0 or self.pre[b] < 0:
            return False
        return self.pre[a] <= self.pre[b] and self.post[b] <= self.post[a]


def dominator_tree(succs: Succs, entry: int) -> DomTree:
    return DomTree.build(immediate_dominators(succs, entry), entry)


def post_dominator_tree(succs: Succs) -> tuple[DomTree, int]:
    """Post-dominator tree over the reversed graph plus a virtual exit node (returned, = len(succs)).

    Every node without successors is joined to the virtual exit; so is one node of every region that cannot
    reach an exit (an infinite loop), chosen as the last unreached node in a forward DFS postorder walk
    from each root, which is a node of a loop's bottom - the same choice LLVM's post-dominator tree makes
    in spirit: connect the "furthest" node.
    """
    n = len(succs)
    exit_node = n
    rsuccs: Succs = [[] for _ in range(n + 1)]   # reversed edges
    for u, ss in enumerate(succs):
        for v in ss:
            rsuccs[v].append(u)
    for u, ss in enumerate(succs):
        if not ss:
            rsuccs[exit_node].append(u)
    reached = bytearray(n + 1)
    for v in postorder(rsuccs, exit_node):
        reached[v] = 1
    if not all(reached[:n]):
        # infinite loops: repeatedly connect an unreached node that has no unreached successor path out
        fwd_post = []
        seen = bytearray(n)
        for root in range(n):
            if not seen[root]:
                for v in postorder(succs, root):
                    if not seen[v]:
                        seen[v] = 1
                        fwd_post.append(v)
        for v in fwd_post:
            if not reached[v]:
                rsuccs[exit_node].append(v)
                for w in postorder(rsuccs, v):
                    reached[w] = 1
    idom = immediate_dominators(rsuccs, exit_node)
    return DomTree.build(idom, exit_node), exit_node


def dominance_frontiers(succs: Succs, idom: list[int], preds: Succs | None = None) -> list[set[int]]:
    """DF[v] for every node (Cooper, Harvey, Kennedy: walk up from each join node's predecessors)."""
    preds = predecessors(succs) if preds is None else preds
    df: list[set[int]] = [set() for _ in succs]
    for v, ps in enumerate(preds):
        is_entry = idom[v] == v
        if idom[v] == -1 or (len(ps) < 2 and not is_entry):
            continue                   # one predecessor: it is the idom, nothing to add (but the entry)
        stop = -1 if is_entry else idom[v]
        for p in ps:
            runner = p
            while runner != stop and idom[runner] != -1:
                df[runner].add(v)
                if idom[runner] == runner:
                    break                  # passed the entry
                runner = idom[runner]
    return df


def reachable(succs: Succs, roots: list[int]) -> bytearray:
    seen = bytearray(len(succs))
    stack = list(roots)
    for r in roots:
        seen[r] = 1
    while stack:
        u = stack.pop()
        for v in succs[u]:
            if not seen[v]:
                seen[v] = 1
                stack.append(v)
    return seen


class IrreducibleError(Exception):
    """A cycle entered other than through a dominating header; `edges` are the offending (src, dst)."""

    def __init__(self, edges: list[tuple[int, int]]):
        super().__init__(f"irreducible control flow at edges {edges}")
        self.edges = edges


@record
class LoopForest:
    """Loop nesting forest of a reducible graph.

    header_of[v]: the header of the innermost loop containing v (v itself if v is a header), -1 if none.
    parent[h]: the header of the loop enclosing loop h, -1 at top level. latches[h]: back-edge sources.
    """
    header_of: list[int]
    parent: dict[int, int] = field(default_factory=dict)
    latches: dict[int, list[int]] = field(default_factory=dict)

    @property
    def headers(self) -> list[int]:
        return list(self.parent)

    def depth(self, h: int) -> int:
        d = 0
        while h != -1:
            d += 1
            h = self.parent[h]
        return d

    def contains(self, h: int, v: int) -> bool:
        """Loop h contains node v (at any depth)."""
        x = self.header_of[v]
        while x != -1:
            if x == h:
                return True
            x = self.parent[x]
        return False


def loop_forest(succs: Succs, entry: int, dom: DomTree | None = None, preds: Succs | None = None,
                natural_only: bool = False, order: list[int] | None = None, num: list[int] | None = None) -> LoopForest:
    """Natural loops of a reducible graph; raises IrreducibleError for a retreating edge to a non-dominator.
    natural_only: the natural loops of any graph instead (an irreducible cycle's retreating edges left out:
    its nodes belong to no loop of their own; a natural loop is still entered only at its header)."""
    n = len(succs)
    preds = predecessors(succs) if preds is None else preds
    order = reverse_postorder(succs, entry) if order is None else order    # (the caller's, if it has it)
    num = rpo_numbers(order, n) if num is None else num                   # (as order)
    if dom is None:                       # (with the preds, order and numbers made above, not made again)
        dom = DomTree.build(immediate_dominators(succs, entry, preds, order, num), entry)
    latches: dict[int, list[int]] = {}
    bad: list[tuple[int, int]] = []
    for u in order:
        for v in succs[u]:
            if num[v] <= num[u]:          # retreating edge in this DFS
                if dom.dominates(v, u):
                    latches.setdefault(v, []).append(u)
                else:
                    bad.append((u, v))
    if bad and not natural_only:
        raise IrreducibleError(bad)
    header_of = [-1] * n
    parent: dict[int, int] = {}
    # union-find over collapsed loops: rep[v] = outermost header collected so far containing v
    rep = list(range(n))

    def find(v: int) -> int:
        root = v
        while rep[root] != root:
            root = rep[root]
        while rep[v] != root:
            rep[v], v = root, rep[v]
        return root

    for h in sorted(latches, key=lambda x: -num[x]):     # inner loops have later headers in RPO
        parent[h] = -1
        header_of[h] = h
        work = [find(l) for l in latches[h] if find(l) != h]
        seen = {h}
        while work:
            x = work.pop()
            if x in seen:
                continue
            seen.add(x)
            if x in parent and parent[x] == -1 and x != h:   # an inner loop's header, not yet nested
                parent[x] = h
            elif header_of[x] == -1:
                header_of[x] = h
            rep[x] = h
            for p in preds[x]:
                if num[p] == -1:
                    continue
                if x in latches and p in latches[x] and x != h:
                    continue                                 # inner back edge: already inside x
                r = p if rep[p] == p else find(p)       # (find's answer for a node of its own, without the call)
                if r != h and r not in seen:
                    work.append(r)
    return LoopForest(header_of, parent, latches)
