"""The target-independent analyses backends share: pointer provenance and the kernel ABI's parameter kinds
and host values, on kernels written as IR text."""
from reconverge.lowering.analysis.provenance import CONFLICT, Provenance
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.kernel_abi import host_values, kernel_params

KERNEL = """
kernel @k(ptr1 %a, ptr1 %b, ptr2 %c, ptr3 %scratch, i32 %n, ptr0 %priv) {
  local @tile size 64 align 4
  block b0:
    %t = global_addr ptr3, symbol "tile"
    %pa = ptradd ptr1 %a, i64 8
    %cond = icmp.slt i32 %n, 3
    %either = select ptr1 %cond, %a, %b
    %loaded = load ptr1 %pa, align 8
    %raw = inttoptr ptr1 i64 4096
    %q = ptradd ptr3 %t, i64 4
    %box = alloca ptr0, size 16, align 4
    %g = workitem.global_id i64 i32 0
    ret
}
"""


def _kernel():
    return parse_module(KERNEL).functions["k"]


def test_every_pointer_gets_its_object_a_conflict_or_a_reason():
    func = _kernel()
    p = Provenance(func)
    by_name = {v.name: v for v in [*func.args, *func.instructions()]}
    kinds = {o.name: o.kind for o in p.objects}
    assert kinds == {"a": "buffer", "b": "buffer", "c": "buffer", "scratch": "workgroup", "priv": "buffer",
                     "tile": "workgroup", "box": "private"}
    assert p.base[by_name["pa"]] is p.by_arg[by_name["a"]]
    assert p.base[by_name["q"]] is p.by_symbol["tile"]
    assert p.base[by_name["either"]] is CONFLICT and p.conflicts == [by_name["either"]]
    assert [(i.name, why) for i, why in p.unknown_origin] == [("loaded", "loaded from memory"),
                                                              ("raw", "made from an integer")]
    assert next(o for o in p.objects if o.name == "c").readonly


def test_parameter_kinds_and_host_values():
    func = _kernel()
    assert [(p.name, p.kind) for p in kernel_params(func)] == [
        ("a", "buffer"), ("b", "buffer"), ("c", "readonly_buffer"), ("scratch", "local"), ("n", "scalar"),
        ("priv", "unsupported")]
    assert host_values(func) == ("global_offset",)
