"""CFG analyses against their definitions, computed by brute force on random graphs."""
import random

import pytest

from reconverge.lowering import graph


def random_graph(rng: random.Random, n: int, density: float = 1.6) -> list[list[int]]:
    succs: list[list[int]] = [[] for _ in range(n)]
    for _ in range(int(n * density)):
        u, v = rng.randrange(n), rng.randrange(n)
        if v not in succs[u]:
            succs[u].append(v)
    for v in range(1, n):                   # most nodes reachable: a spine of forward edges
        if rng.random() < 0.8:
            u = rng.randrange(v)
            if v not in succs[u]:
                succs[u].append(v)
    return succs


def reach_without(succs, start, removed) -> set[int]:
    if start == removed:
        return set()
    seen, stack = {start}, [start]
    while stack:
        for v in succs[stack.pop()]:
            if v != removed and v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def brute_dominators(succs, entry) -> dict[int, set[int]]:
    reachable = reach_without(succs, entry, None)
    return {v: {d for d in reachable if d == v or v not in reach_without(succs, entry, d)} for v in reachable}


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_dominators_match_the_definition(seed):
    rng = random.Random(seed)
    succs = random_graph(rng, rng.randrange(1, 30))
    doms = brute_dominators(succs, 0)
    idom = graph.immediate_dominators(succs, 0)
    tree = graph.DomTree.build(idom, 0)
    for v in range(len(succs)):
        if v not in doms:
            assert idom[v] == -1
            continue
        strict = doms[v] - {v}
        if v == 0:
            assert idom[v] == 0
        else:   # the immediate dominator is the strict dominator every other strict dominator dominates
            assert idom[v] in strict and all(d in doms[idom[v]] for d in strict)
        for d in range(len(succs)):
            assert tree.dominates(d, v) == (d in doms[v])


@pytest.mark.parametrize("seed", SEEDS)
def test_reverse_postorder_and_reachability(seed):
    rng = random.Random(seed)
    succs = random_graph(rng, rng.randrange(1, 30))
    order = graph.reverse_postorder(succs, 0)
    reachable = reach_without(succs, 0, None)
    assert order[0] == 0 and sorted(order) == sorted(reachable)
    num = graph.rpo_numbers(order, len(succs))
    for u in order:                          # every edge goes forward, except edges to a DFS ancestor
        for v in succs[u]:
            if num[v] <= num[u]:
                assert v in reach_without(succs, v, None) and u in reach_without(succs, v, None)
    assert [bool(x) for x in graph.reachable(succs, [0])] == [v in reachable for v in range(len(succs))]


@pytest.mark.parametrize("seed", SEEDS)
def test_dominance_frontiers_match_the_definition(seed):
    rng = random.Random(seed)
    succs = random_graph(rng, rng.randrange(1, 30))
    doms = brute_dominators(succs, 0)
    idom = graph.immediate_dominators(succs, 0)
    df = graph.dominance_frontiers(succs, idom)
    preds = graph.predecessors(succs)
    for x in doms:
        want = {y for y in doms if any(p in doms and x in doms[p] for p in preds[y])
                and not (x in doms[y] and x != y)}
        assert df[x] == want, (x, df[x], want)


@pytest.mark.parametrize("seed", SEEDS)
def test_post_dominators_with_a_virtual_exit(seed):
    """Nodes that reach a return are post-dominated as the definition says; nodes stuck in infinite
    loops still get a place in the tree (joined to the virtual exit), so every node has one."""
    rng = random.Random(seed)
    n = rng.randrange(1, 30)
    succs = random_graph(rng, n)
    for v in rng.sample(range(n), max(1, n // 6)):
        succs[v] = []                                   # returns
    tree, exit_node = graph.post_dominator_tree(succs)
    reverse = graph.predecessors(succs) + [[]]
    exits = [v for v in range(n) if not succs[v]]
    reverse[exit_node] = exits                          # reversed graph: exit -> returns -> ...
    reaches_exit = reach_without(reverse, exit_node, None)
    stuck = set(range(n)) - reaches_exit
    for v in range(n):
        assert tree.pre[v] >= 0                         # in the tree, infinite loops included
        if reach_without(succs, v, None) & stuck:
            continue                                    # paths into infinite loops end at virtual edges
        for p in range(n):
            if p not in reaches_exit:
                continue
            # p post-dominates v iff every path from v to an exit passes p
            blocked = v not in reach_without(reverse, exit_node, p)
            assert tree.dominates(p, v) == (p == v or blocked), (p, v)


def test_post_dominators_of_an_infinite_loop_and_two_returns():
    #  0 -> 1 -> 2 (return);  0 -> 3 -> 4 -> 3 (no way out);  1 -> 5 (return)
    succs = [[1, 3], [2, 5], [], [4], [3], []]
    tree, exit_node = graph.post_dominator_tree(succs)
    assert tree.idom[2] == exit_node and tree.idom[5] == exit_node
    assert tree.idom[1] == exit_node                    # two returns below it: only the exit post-dominates
    assert tree.dominates(exit_node, 3) and tree.dominates(exit_node, 4)
    assert tree.idom[0] == exit_node


def natural_loops(succs, entry):
    doms = brute_dominators(succs, entry)
    preds = graph.predecessors(succs)
    loops: dict[int, set[int]] = {}
    for u in doms:
        for h in succs[u]:
            if h in doms[u]:                            # back edge u -> h
                body = loops.setdefault(h, {h})
                stack = [u]
                while stack:
                    x = stack.pop()
                    if x not in body:
                        body.add(x)
                        stack.extend(p for p in preds[x] if p in doms)
    return loops


@pytest.mark.parametrize("seed", range(200))
def test_loop_forest_matches_natural_loops(seed):
    from tests.lowering.passes.structurize.random_cfg import random_function
    rng = random.Random(seed)
    func = random_function(rng, rng.randrange(3, 30))
    index = {b: i for i, b in enumerate(func.blocks)}
    succs = [list(dict.fromkeys(index[t] for t in b.terminator.targets)) for b in func.blocks]
    forest = graph.loop_forest(succs, 0)
    loops = natural_loops(succs, 0)
    assert set(forest.headers) == set(loops)
    for v in graph.reverse_postorder(succs, 0):
        holding = [h for h, body in loops.items() if v in body]
        innermost = min(holding, key=lambda h: len(loops[h])) if holding else -1
        assert forest.header_of[v] == innermost
        for h in holding:
            assert forest.contains(h, v)
    for h, parent in forest.parent.items():
        outer = [g for g, body in loops.items() if g != h and loops[h] < body]
        assert parent == (min(outer, key=lambda g: len(loops[g])) if outer else -1)


def test_irreducible_cycle_is_reported_with_its_edge():
    succs = [[1, 2], [2], [1]]                          # 1 <-> 2 entered at both
    with pytest.raises(graph.IrreducibleError) as err:
        graph.loop_forest(succs, 0)
    assert err.value.edges and all(u in (1, 2) and v in (1, 2) for u, v in err.value.edges)
