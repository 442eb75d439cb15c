"""The one-way import rule, enforced: data flows LLVM IR -> structured IR -> target, and the layers say so.

    isa       imports nothing of ours (a leaf: encodings, assembler, simulator)
    lowering  may import isa, never backend or tools
    backend   may import lowering and isa, never tools
    tools     may import anything; but its run targets (tools.targets) and test support (tools.testing)
              never import the command line (tools.cli and the modules only it uses)

and inside lowering, the IR stands on a floor of its own:

    lowering.graph, lowering.deepstack, lowering.errors   (integer-graph algorithms, deep recursion, the
              error type) import nothing of ours: they sit below the IR
    lowering.ir   imports only itself and that floor (never an analysis, a pass, the interpreter...)

and no module imports itself through others (a cycle), counting imports inside functions too: a
function-level import is still a dependency, only a hidden one.
"""
import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("isa", "lowering", "backend", "tools")   # folders at the root; imported as reconverge.<package>
FORBIDDEN = {"isa": {"lowering", "backend", "tools"}, "lowering": {"backend", "tools"}, "backend": {"tools"}}


def _modules() -> dict[str, str]:
    found = {}
    for package in PACKAGES:
        for root, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(root, name)
                    module = "reconverge." + os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    found[module.removesuffix(".__init__")] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str, path: str, known: set[str]) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import statement in the file, at any depth, except those
    under `if TYPE_CHECKING:`: they never run (they name a caller's type in an annotation or a Protocol
    for mypy), so they are no dependency of the code's and make no cycle."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    type_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If) and _is_type_checking(block.test)
                 for stmt in block.body for n in ast.walk(stmt)}
    out = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            # `from . import sibling` imports the sibling, not the package's own code
            names = submodules if len(submodules) == len(node.names) else [base] + submodules
        else:
            continue
        for name in names:
            parts = name.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            if parts and ".".join(parts) != module:
                out.append((".".join(parts), node.lineno))
    return out


MODULES = _modules()
GRAPH = {m: _imports(m, p, set(MODULES)) for m, p in MODULES.items()}


def test_the_scan_sees_the_packages():
    assert {"reconverge.lowering.pipeline", "reconverge.lowering.graph", "reconverge.backend.spirv.emit", "reconverge.backend.gen.mir_parser", "reconverge.isa.gen9.simulator",
            "reconverge.tools.cli"} <= set(MODULES)
    assert any(t == "reconverge.lowering.ir.core" for t, _ in GRAPH["reconverge.lowering.pipeline"])


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_a_layer_above_it(layer):
    bad = [f"{MODULES[m]}:{line}: {m} imports {t}" for m, edges in GRAPH.items() if m.split(".")[1] == layer
           for t, line in edges if t.split(".")[1] in FORBIDDEN[layer]]
    assert not bad, "\n".join(bad)


BELOW_IR = ("reconverge.lowering", "reconverge.lowering.graph", "reconverge.lowering.deepstack",   # lowering: its empty __init__
            "reconverge.lowering.errors")


def test_the_floor_below_the_ir_imports_nothing_of_ours():
    bad = [f"{MODULES[m]}:{line}: {m} imports {t}" for m in BELOW_IR for t, line in GRAPH[m]]
    assert not bad, "\n".join(bad)


def test_the_ir_imports_only_itself_and_the_floor_below_it():
    bad = [f"{MODULES[m]}:{line}: {m} imports {t}" for m, edges in GRAPH.items()
           if m == "reconverge.lowering.ir" or m.startswith("reconverge.lowering.ir.")
           for t, line in edges if not (t == "reconverge.lowering.ir" or t.startswith("reconverge.lowering.ir.") or t in BELOW_IR)]
    assert not bad, "\n".join(bad)
    assert any(t == "reconverge.lowering.graph" for t, _ in GRAPH["reconverge.lowering.ir.validate"])   # the scan sees the edge


COMMAND_LINE = ("reconverge.tools.cli", "reconverge.tools.usage", "reconverge.tools.run_args", "reconverge.tools.isa_commands", "reconverge.tools.trace_command",
                "reconverge.tools.demo")


def test_run_targets_and_test_support_stay_apart_from_the_command_line():
    bad = [f"{MODULES[m]}:{line}: {m} imports {t}" for m, edges in GRAPH.items()
           if m.startswith(("reconverge.tools.targets", "reconverge.tools.testing")) for t, line in edges if t.startswith(COMMAND_LINE)]
    assert not bad, "\n".join(bad)
    assert {"reconverge.tools.targets.harness", "reconverge.tools.targets.jit_oracle", "reconverge.tools.testing.cfggen"} <= set(MODULES)


def test_no_import_cycles():
    """Tarjan's strongly connected components over module imports, iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles = []
    for start in GRAPH:
        if start in index:
            continue
        work = [(start, iter(sorted({t for t, _ in GRAPH[start]})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted({t for t, _ in GRAPH[succ]}))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    assert not cycles, f"import cycles: {cycles}"
