"""The NIR document's example comes out as the tree it draws.

    if (foo) return;  while (bar) { if (baz) continue; ... }

NIR draws: start block; if (foo) { return } else { (empty) }; padding block; loop { header block;
if (!bar) { break } else { (empty) }; block; if (baz) { continue } else { (empty) }; "..." block };
padding block; end. The CFG is built with llvmlite.ir exactly as clang -O0 shapes it (a shared return
block, the loop test in the header), so that only the structurizer decides the tree.
"""
import llvmlite.ir as ir

from reconverge.lowering.ir.core import Block, If, Loop
from reconverge.lowering.pipeline import compile_llvmlite


def seed_module() -> ir.Module:
    mod = ir.Module(name="seed")
    i1, i32 = ir.IntType(1), ir.IntType(32)
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [i32.as_pointer(), i1, i1, i1]), "seed")
    out, foo, bar, baz = fn.args
    entry, ret_path, pre, header, body, cont, rest, ret = (
        fn.append_basic_block(n) for n in ("entry", "then", "pre", "header", "body", "cont", "rest", "ret"))
    b = ir.IRBuilder(entry)
    b.cbranch(foo, ret_path, pre)
    ir.IRBuilder(ret_path).branch(ret)
    ir.IRBuilder(pre).branch(header)
    ir.IRBuilder(header).cbranch(bar, body, ret)
    ir.IRBuilder(body).cbranch(baz, cont, rest)
    ir.IRBuilder(cont).branch(header)
    b = ir.IRBuilder(rest)
    b.store(ir.Constant(i32, 1), out)       # the "..." of the loop
    b.branch(header)
    ir.IRBuilder(ret).ret_void()
    return mod


def shape(nodes) -> list:
    """The tree with blocks reduced to their last instruction's opcode (or 'empty'/'code')."""
    out: list = []
    for n in nodes:
        if isinstance(n, Block):
            if not n.instrs:
                out.append("empty")
            else:
                last = n.instrs[-1].opcode
                out.append(last if last in ("break", "continue", "return") else "code")
        elif isinstance(n, If):
            out.append(("if", shape(n.then_list), shape(n.else_list)))
        elif isinstance(n, Loop):
            out.append(("loop", shape(n.body)))
    return out


def test_seed_example_gives_the_nir_document_tree():
    func = compile_llvmlite(seed_module())["seed"]
    assert shape(func.body) == [
        "empty",                                            # start block (tests foo)
        ("if", ["return"], ["empty"]),
        "empty",                                            # padding before the loop
        ("loop", [
            "code",                                         # header: computes !bar
            ("if", ["break"], ["empty"]),
            "empty",
            ("if", ["continue"], ["empty"]),
            "code",                                         # "..."
        ]),
        "empty",                                            # padding after the loop, then (end)
    ]
    loop = func.body[3]
    header = loop.body[0]
    assert [i.opcode for i in header.instrs] == ["xor"]       # the if tests !bar
    assert loop.body[1].cond is header.instrs[0]
    assert func.body[1].cond is func.args[1]                # if (foo)
    assert loop.body[3].cond is func.args[3]                # if (baz)
    # the CFG view agrees with the tree: the break leads to the padding block, continue to the header
    brk = loop.body[1].then_list[0]
    cont = loop.body[3].then_list[0]
    assert brk.succs == [func.body[4]] and cont.succs == [header]
    assert set(header.preds) == {func.body[2], cont, loop.body[4]}
