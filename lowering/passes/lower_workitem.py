"""The global id and the global size from what every target has: the group id, the local id, the
local size, the number of groups and the global offset (OpenCL C 3.0, section 6.15.1: get_global_id(d) =
get_group_id(d) * get_local_size(d) + get_local_id(d) + get_global_offset(d), and get_global_size(d) =
get_num_groups(d) * get_local_size(d), uniform work-groups). Outside 0..2 the parts give 0 and 1, so the
results keep OpenCL's out-of-range values (0 and 1) too.
"""
from __future__ import annotations

from reconverge.lowering.ir.builder import InsertBefore, become
from reconverge.lowering.ir.core import Function, Instr
from reconverge.lowering.ir.types import I64
from reconverge.lowering.target import TargetCaps

NAME, FORM = "lower_workitem", "any"


def run(func: Function, caps: TargetCaps) -> bool:
    wanted = {fn for fn, native in (("global_id", caps.global_id), ("global_size", caps.global_size)) if not native}
    todo = [ins for ins in func.instructions() if ins.opcode == "workitem" and ins.attrs.get("fn") in wanted]
    for ins in todo:
        _lower(ins)
    return bool(todo)


def _lower(ins: Instr) -> None:
    b = InsertBefore(ins)
    dim = ins.operands[0]

    def part(fn: str) -> Instr:
        return b.op("workitem", [dim], I64, fn=fn)

    if ins.attrs["fn"] == "global_size":
        become(ins, "mul", [part("num_groups"), part("local_size")])
        return
    base = b.binary("add", b.binary("mul", part("group_id"), part("local_size")), part("local_id"))
    become(ins, "add", [base, part("global_offset")])
