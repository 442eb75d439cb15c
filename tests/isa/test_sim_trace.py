"""Trace hook, the timeline a lane picture is drawn from, the `trace` CLI command, and decoded (assembled)
programs. The pictures themselves: tests/test_lane_picture.py."""
import argparse
import shutil
import subprocess

import numpy as np
import pytest

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.builder import Builder, grf, imm, null, pred
from reconverge.isa.gen9.model import DataType as T
from reconverge.isa.gen9.sim_trace import Step, block_entries, timeline
from reconverge.isa.gen9.simulator import Trace, layout, run_program
from reconverge.lowering.errors import CompileError
from reconverge.tools.usage import UsageError

ASM = """\
        mov (16|M0)              r10.0<1>:d    0:d
        cmp (16|M0)   (lt)f0.0   null<1>:d     r1.0<8;8,1>:d    5:d
(f0.0)  if (16|M0)                             L_else           L_end
        mov (16|M0)              r10.0<1>:d    1:d
        else (16|M0)                           L_end            L_end
L_else:
        mov (16|M0)              r10.0<1>:d    2:d
L_end:
        endif (16|M0)                          L_next
L_next:
        shl (16|M0)              r50.0<1>:ud   r1.0<8;8,1>:ud   0x2:ud
        mov (16|M0)              r52.0<1>:ud   r10.0<8;8,1>:ud
        send (16|M0)             null:ud       r50              0xC         0x08025E00
(W)     mov (8|M0)               r112.0<1>:ud  r0.0<8;8,1>:ud
(W)     send (8|M0)              null:ud       r112             0x27        0x02000010 {EOT}
"""


def eot(b):
    b.mov(grf(112, T.UD), grf(0, T.UD), n=8, mask_ctrl_we_all=True)
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)


def divergent_program():
    b = Builder(8)
    b.cmp(null(), grf(1, T.D), imm(3), cond_mod="lt")
    b.if_(pred())
    b.add(grf(10), grf(1, T.D), imm(1))
    b.endif()
    eot(b)
    return b.program()


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_trace_hook_sees_every_executed_instruction_with_its_mask():
    seen = []
    prog = divergent_program()
    run_program(prog, 8, trace=lambda tid, addr, inst, mask: seen.append((tid, addr, inst.opcode, mask.copy())))
    addrs = layout(prog)
    assert [s[1] for s in seen] == addrs            # straight-line: every instruction once, in order
    add = next(s for s in seen if s[2] == "add")
    assert add[3].tolist() == [True] * 3 + [False] * 5
    assert all(s[0] == 0 for s in seen)


def test_timeline_rows_carry_each_threads_lanes_and_kinds():
    trace = Trace()
    run_program(divergent_program(), 8, 2, trace=trace)
    line = timeline(trace)
    assert sorted(line.steps) == [0, 1] and line.lanes == 8 and line.timed
    add = next(s for s in line.steps[0] if s.kind == "alu" and not s.mask.all())
    assert add.mask.tolist() == [True] * 3 + [False] * 5
    # thread 1 (local ids 8-15) jumps over the if body; its rows are rounds, in order
    assert [e.opcode for e in trace.events if e.thread == 1] == ["cmp", "if", "endif", "mov", "send"]
    rows = [s.row for s in line.steps[1]]
    assert rows == sorted(rows) and line.rows == max(s.row for ss in line.steps.values() for s in ss) + 1
    assert [s.kind for s in line.steps[1]] == ["alu", "cf", "cf", "scalar", "send"]


def test_untimed_events_are_numbered_per_thread():
    prog = divergent_program()
    events = []
    run_program(prog, 8, 2, trace=lambda tid, addr, inst, mask: events.append((tid, addr, inst, mask.copy())))
    line = timeline(events)
    assert not line.timed
    assert [s.row for s in line.steps[1]] == list(range(5))


def _steps(addresses):
    return [Step(row, a, "alu", np.ones(8, bool)) for row, a in enumerate(addresses)]


def test_block_entries_are_once_per_entry_not_per_loop_iteration():
    labels = {0: "entry", 16: "outer", 32: "inner", 48: "inner_exit", 64: "done"}
    # entry; outer loop twice, each time the inner loop three times; then done
    inner = [32, 40] * 3
    trace = [0, 8] + ([16, 24] + inner + [48, 56]) * 2 + [64]
    entries = block_entries(_steps(trace), labels)
    names = [(e.name, e.first) for e in entries]
    # every block labelled where first entered; the inner loop again when the outer loop's next iteration
    # enters it anew; no label for the inner loop's second and third iterations
    assert names == [("entry", True), ("outer", True), ("inner", True), ("inner_exit", True),
                     ("inner", False), ("done", True)]
    assert [e.row for e in entries] == [0, 2, 4, 10, 14, 22]


def test_block_entries_of_a_block_first_reached_in_a_later_iteration():
    labels = {0: "head", 16: "rare", 32: "latch"}
    entries = block_entries(_steps([0, 32, 0, 16, 32, 40]), labels)
    assert [(e.name, e.row) for e in entries] == [("head", 0), ("latch", 1), ("rare", 3)]


def _cli(argv):
    from reconverge.tools.trace_command import add_commands
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(argv)
    args.func(args)


def test_assembled_program_runs_and_traces(tmp_path):
    pytest.importorskip("reconverge.isa.gen9.assembler")
    from reconverge.isa.gen9.assembler import assemble
    from reconverge.isa.gen9.encoding import decode_program
    prog = decode_program(assemble(ASM))
    out = np.zeros(16, np.uint32)
    run_program(prog, 16, surfaces={0: out})
    np.testing.assert_array_equal(out, [1] * 5 + [2] * 11)
    # the same through the command line, with a surface from a .npy file
    src = tmp_path / "k.asm"
    src.write_text(ASM)
    np.save(tmp_path / "s.npy", np.zeros(32, np.uint32))
    png = tmp_path / "k.png"
    _cli(["trace", str(src), "--simd", "16", "--threads", "2", "--surface", f"0={tmp_path / 's.npy'}",
          "-o", str(png)])
    assert png.read_bytes()[:8] == PNG_MAGIC


@pytest.mark.skipif(shutil.which("iga64") is None, reason="iga64 not installed")
def test_iga64_binary_decodes_to_the_same_behaviour(tmp_path):
    from reconverge.isa.gen9.encoding import decode_program
    src = tmp_path / "k.asm"
    src.write_text(ASM)
    krn = tmp_path / "k.krn"
    subprocess.run(["iga64", "-p=9", "-a", str(src), "-o", str(krn)], check=True, capture_output=True)
    out = np.zeros(16, np.uint32)
    run_program(decode_program(krn.read_bytes()), 16, surfaces={0: out}, dispatch_masks=[0x7FFF])
    np.testing.assert_array_equal(out, [1] * 5 + [2] * 10 + [0])


@pytest.mark.parametrize("content,argv_extra,message,error", [
    (None, [], "no such file", CompileError),
    ("mov (8|M0) r1.0<1>:zz r2:d\n", [], "k.asm", CompileError),
    (ASM, [], "no surface bound", CompileError),
    (ASM, ["--surface", "0=missing.npy"], "cannot load", CompileError),
    (ASM, ["--surface", "zero=x.npy"], "BTI=FILE", UsageError),
    (ASM, ["--surface", "253=x.npy"], "reserved", UsageError),
    (ASM, ["--simd", "12"], "--simd 12", UsageError),
    (ASM, ["--threads", "0"], "--threads 0", UsageError),
    (ASM, ["--max-steps", "-1"], "--max-steps -1", UsageError),
    (ASM, ["--dispatch-mask", "lots"], "--dispatch-mask lots", UsageError),
])
def test_cli_errors_are_one_line_and_leave_no_file(tmp_path, content, argv_extra, message, error):
    src = tmp_path / "k.asm"
    if content is not None:
        src.write_text(content)
    png = tmp_path / "k.png"
    argv = ["trace", str(src), "--simd", "16", "-o", str(png)]
    if "--simd" in argv_extra:
        argv = ["trace", str(src), "-o", str(png)]
    with pytest.raises(error) as e:
        _cli(argv + argv_extra)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert not png.exists()
    assert [p.name for p in tmp_path.iterdir()] == (["k.asm"] if content is not None else [])


def test_cli_rejects_unknown_extension(tmp_path):
    src = tmp_path / "k.txt"
    src.write_text("x")
    with pytest.raises(CompileError, match=r"\.krn"):
        _cli(["trace", str(src), "--simd", "8", "-o", str(tmp_path / "o.png")])


def test_compacted_program_runs_like_the_native_one():
    pytest.importorskip("reconverge.isa.gen9.assembler")
    from reconverge.isa.gen9.assembler import assemble
    from reconverge.isa.gen9.encoding import decode_program
    results = []
    for compact in (False, True):
        prog = decode_program(assemble(ASM, autocompact=compact))
        out = np.zeros(16, np.uint32)
        run_program(prog, 16, surfaces={0: out}, dispatch_masks=[0xF0F3])
        results.append((out.tolist(), sum(i.compacted for i in prog)))
    assert results[0][0] == results[1][0] == [1, 1, 0, 0, 1, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2, 2]
    assert results[0][1] == 0 and results[1][1] > 0


def test_split_send_from_assembly():
    pytest.importorskip("reconverge.isa.gen9.assembler")
    from reconverge.isa.gen9.assembler import assemble
    from reconverge.isa.gen9.encoding import decode_program
    text = """\
        shl (8|M0)               r50.0<1>:ud   r1.0<8;8,1>:ud   0x2:ud
        add (8|M0)               r90.0<1>:ud   r1.0<8;8,1>:ud   0x64:ud
        sends (8|M0)             null:ud       r50              r90         0x4C        0x02026E00
(W)     send (8|M0)              null:ud       r112             0x27        0x02000010 {EOT}
"""
    out = np.zeros(8, np.uint32)
    run_program(decode_program(assemble(text)), 8, surfaces={0: out})
    np.testing.assert_array_equal(out, np.arange(8) + 100)


def test_main_cli_trace_exit_codes(tmp_path, capsys):
    cli = pytest.importorskip("reconverge.tools.cli")
    src = tmp_path / "k.asm"
    src.write_text(ASM)
    np.save(tmp_path / "s.npy", np.zeros(16, np.uint32))
    png = tmp_path / "k.png"
    assert cli.main(["trace", str(src), "--simd", "16", "--surface", f"0={tmp_path / 's.npy'}",
                     "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG_MAGIC
    png.unlink()
    svg = tmp_path / "k.svg"                      # the format by name; the title names program, width, threads
    assert cli.main(["trace", str(src), "--simd", "16", "--surface", f"0={tmp_path / 's.npy'}",
                     "-o", str(svg)]) == 0
    assert b">k.asm \xc2\xb7 SIMD16 \xc2\xb7 1 thread</text>" in svg.read_bytes()
    assert cli.main(["trace", str(src), "--simd", "16", "-o", str(png)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no surface bound" in err and not png.exists()
