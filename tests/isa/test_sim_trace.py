"""Trace hook, the lane-activity PNG, the `trace` CLI command, and decoded (assembled) programs."""
import argparse
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

from isa.gen9 import messages as sm
from isa.gen9.builder import Builder, grf, imm, null, pred
from isa.gen9.model import DataType as T
from isa.gen9.sim_trace import COLOURS, encode_png, render, trace_png
from isa.gen9.simulator import Trace, layout, run_program
from lowering.errors import CompileError
from tools.usage import UsageError

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


def decode_png(data: bytes) -> np.ndarray:
    """Minimal PNG reader for our own files: checks signature and CRCs, undoes filter 0."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, dict[bytes, bytes]()
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks.setdefault(tag, b"")
        chunks[tag] += body
        pos += 12 + n
    w, h, depth, ctype = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, ctype) == (8, 2) and b"IEND" in chunks
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + 3 * w)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:].reshape(h, w, 3)


def test_trace_hook_sees_every_executed_instruction_with_its_mask():
    seen = []
    prog = divergent_program()
    run_program(prog, 8, trace=lambda tid, addr, inst, mask: seen.append((tid, addr, inst.opcode, mask.copy())))
    addrs = layout(prog)
    assert [s[1] for s in seen] == addrs            # straight-line: every instruction once, in order
    add = next(s for s in seen if s[2] == "add")
    assert add[3].tolist() == [True] * 3 + [False] * 5
    assert all(s[0] == 0 for s in seen)


def test_png_round_trips_and_colours_lanes():
    trace = Trace()
    run_program(divergent_program(), 8, 2, trace=trace)
    img = render(trace)
    assert np.array_equal(decode_png(encode_png(img)), img)
    # find the add row of thread 0: lanes 0-2 green (ALU), lanes 3-7 grey
    green, off = np.array(COLOURS["alu"]), np.array(COLOURS["off"])
    rows = [y for y in range(img.shape[0]) if (img[y] == green).all(axis=1).sum() > 0
            and (img[y] == off).all(axis=1).sum() > 0]
    assert rows, "no row with both active and inactive lanes"
    y = rows[0]
    is_green = (img[y] == green).all(axis=1)
    is_off = (img[y] == off).all(axis=1)
    # thread 0 (local ids 0-7): 3 green lanes + the 4-px kind strip, 5 grey lanes (10 px, 1-px gap);
    # thread 1 (local ids 8-15) jumps over the if body, so it has no such row
    assert is_green.sum() == 3 * 9 + 4 and is_off.sum() == 5 * 9
    assert [e.opcode for e in trace.events if e.thread == 1] == ["cmp", "if", "endif", "mov", "send"]


def test_trace_png_is_a_picture_of_every_step():
    trace = Trace()
    run_program(divergent_program(), 8, trace=trace)
    img = decode_png(trace_png(trace))
    assert img.shape[0] > 10 and img.shape[1] > 8 * 10


def _cli(argv):
    from tools.trace_command import add_commands
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(argv)
    args.func(args)


def test_assembled_program_runs_and_traces(tmp_path):
    pytest.importorskip("isa.gen9.assembler")
    from isa.gen9.assembler import assemble
    from isa.gen9.encoding import decode_program
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
    img = decode_png(png.read_bytes())
    assert img.shape[1] > 2 * 16 * 10


@pytest.mark.skipif(shutil.which("iga64") is None, reason="iga64 not installed")
def test_iga64_binary_decodes_to_the_same_behaviour(tmp_path):
    from isa.gen9.encoding import decode_program
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
    pytest.importorskip("isa.gen9.assembler")
    from isa.gen9.assembler import assemble
    from isa.gen9.encoding import decode_program
    results = []
    for compact in (False, True):
        prog = decode_program(assemble(ASM, autocompact=compact))
        out = np.zeros(16, np.uint32)
        run_program(prog, 16, surfaces={0: out}, dispatch_masks=[0xF0F3])
        results.append((out.tolist(), sum(i.compacted for i in prog)))
    assert results[0][0] == results[1][0] == [1, 1, 0, 0, 1, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2, 2]
    assert results[0][1] == 0 and results[1][1] > 0


def test_split_send_from_assembly():
    pytest.importorskip("isa.gen9.assembler")
    from isa.gen9.assembler import assemble
    from isa.gen9.encoding import decode_program
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
    cli = pytest.importorskip("tools.cli")
    src = tmp_path / "k.asm"
    src.write_text(ASM)
    np.save(tmp_path / "s.npy", np.zeros(16, np.uint32))
    png = tmp_path / "k.png"
    assert cli.main(["trace", str(src), "--simd", "16", "--surface", f"0={tmp_path / 's.npy'}",
                     "-o", str(png)]) == 0
    decode_png(png.read_bytes())
    png.unlink()
    assert cli.main(["trace", str(src), "--simd", "16", "-o", str(png)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no surface bound" in err and not png.exists()
