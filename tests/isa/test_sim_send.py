"""SEND messages: untyped surface and byte scattered read/write, SLM, scratch, barrier across threads, EOT."""
import numpy as np
import pytest

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.builder import Builder, grf, imm, null, pred
from reconverge.isa.gen9.model import DataType as T
from reconverge.isa.gen9.simulator import SimulationError, Trace, run_program

LID = 1          # default payload: local id per lane (UD) from r1
PAY = 50         # message payload
RES = 70         # writeback


def eot(b):
    b.mov(grf(112, T.UD), grf(0, T.UD), n=8, mask_ctrl_we_all=True)
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)


def send(b, dst, payload_reg, sfid, desc, n, **kw):
    b.emit("send", dst, grf(payload_reg, T.UD), n=n, sfid=sfid, desc=desc, **kw)


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_untyped_read_add_write(simd, channels):
    regs = simd // 8
    src = np.arange(simd * channels * 2, dtype=np.uint32) * 7 + 3
    dst = np.zeros(simd * channels, np.uint32)
    b = Builder(simd)
    b.mul(grf(PAY, T.UD), grf(LID, T.UD), imm(4 * channels, T.UD))          # byte address of lane's vec
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, simd, channels, False), simd)
    for c in range(channels):
        b.add(grf(PAY + regs * (1 + c), T.UD), grf(RES + regs * c, T.UD), imm(1000 * (c + 1), T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(1, simd, channels, True), simd)
    eot(b)
    run_program(b.program(), simd, surfaces={0: src, 1: dst})
    want = src[:simd * channels].reshape(simd, channels) + 1000 * (np.arange(channels) + 1)
    np.testing.assert_array_equal(dst.reshape(simd, channels), want)


def test_send_only_touches_enabled_lanes():
    out = np.full(16, 0xAAAA, np.uint32)
    b = Builder(16)
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))
    b.mov(grf(PAY + 2, T.UD), imm(5, T.UD))
    b.cmp(null(T.UD), grf(LID, T.UD), imm(10, T.UD), cond_mod="lt")
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 16, 1, True), 16, predicate=pred())
    eot(b)
    run_program(b.program(), 16, surfaces={0: out}, dispatch_masks=[0xFFFE])
    np.testing.assert_array_equal(out, [0xAAAA] + [5] * 9 + [0xAAAA] * 6)


@pytest.mark.parametrize("size", [1, 2, 4])
def test_byte_scattered_read_write(size):
    src = np.arange(64, dtype=np.uint8) * 3
    out = np.zeros(64, np.uint8)
    b = Builder(8)
    b.mul(grf(PAY, T.UD), grf(LID, T.UD), imm(size + 1, T.UD))           # unaligned, overlapping-free
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC0, sm.byte_scattered_desc(3, 8, size, False), 8)
    b.mov(grf(PAY + 1, T.UD), grf(RES, T.UD))
    send(b, null(), PAY, sm.SFID_DC0, sm.byte_scattered_desc(4, 8, size, True), 8)
    eot(b)
    th = run_program(b.program(), 8, surfaces={3: src, 4: out})[0]
    want = np.zeros(64, np.uint8)
    for lane in range(8):
        a = lane * (size + 1)
        want[a:a + size] = src[a:a + size]
    np.testing.assert_array_equal(out, want)
    got = th.reg(RES, T.UD, 8)
    np.testing.assert_array_equal(got, [int.from_bytes(src[l * (size + 1):l * (size + 1) + size].tobytes(),
                                                       "little") for l in range(8)])


def test_out_of_bounds_reads_zero_and_writes_are_dropped():
    src = np.arange(4, dtype=np.uint32) + 1
    b = Builder(8)
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 8, 1, False), 8)
    b.add(grf(PAY + 1, T.UD), grf(RES, T.UD), imm(10, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 8, 1, True), 8)
    eot(b)
    th = run_program(b.program(), 8, surfaces={0: src})[0]
    np.testing.assert_array_equal(th.reg(RES, T.UD, 8), [1, 2, 3, 4, 0, 0, 0, 0])
    np.testing.assert_array_equal(src, [11, 12, 13, 14])


def slm_exchange_program(n_threads, with_barrier=True):
    """Thread t stores 100*t + lane to SLM, waits t*5 loop trips first, then reads thread t+1's slot."""
    b = Builder(8)
    b.mov(grf(20, T.D), grf(0, T.D, subreg=2, region=(0, 1, 0)))          # thread index from r0.2
    b.mul(grf(20, T.D), grf(20, T.D), imm(5))
    b.do()                                                                   # busy wait proportional to t
    b.add(grf(20, T.D), grf(20, T.D), imm(-1))
    b.cmp(null(), grf(20, T.D), imm(0), cond_mod="gt")
    b.while_(pred())
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))                      # SLM byte address = 4 * lid
    b.mul(grf(PAY + 1, T.UD), grf(0, T.UD, subreg=2, region=(0, 1, 0)), imm(100, T.UD))
    b.add(grf(PAY + 1, T.UD), grf(PAY + 1, T.UD), grf(LID, T.UD))
    b.emit("and", grf(PAY + 1, T.UD), grf(PAY + 1, T.UD), imm(0xFFFF, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 1, True), 8)
    if with_barrier:
        b.mov(grf(60, T.UD), grf(0, T.UD), n=8, mask_ctrl_we_all=True)
        send(b, null(), 60, sm.SFID_GATEWAY, sm.barrier_desc(), 8, mask_ctrl_we_all=True)
        b.emit("wait", None, n=1)
    b.add(grf(PAY, T.UD), grf(PAY, T.UD), imm(32, T.UD))                    # neighbour thread's slot
    b.emit("and", grf(PAY, T.UD), grf(PAY, T.UD), imm(32 * n_threads - 1, T.UD))
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 1, False), 8)
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))                    # out[lid] = neighbour value
    b.mov(grf(PAY + 1, T.UD), grf(RES, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 8, 1, True), 8)
    eot(b)
    return b.program()


@pytest.mark.parametrize("n_threads", [2, 4])
def test_slm_exchange_across_threads_needs_the_barrier(n_threads):
    out = np.zeros(8 * n_threads, np.uint32)
    trace = Trace()
    run_program(slm_exchange_program(n_threads), 8, n_threads, surfaces={0: out}, trace=trace)
    lid = np.arange(8 * n_threads)
    neighbour = (lid + 8) % (8 * n_threads)
    np.testing.assert_array_equal(out, 100 * (neighbour // 8) + neighbour)
    # without the barrier, thread 0 reads thread 1's slot before it is written
    out2 = np.zeros(8 * n_threads, np.uint32)
    run_program(slm_exchange_program(n_threads, with_barrier=False), 8, n_threads, surfaces={0: out2})
    assert not np.array_equal(out2, out)
    assert {e.thread for e in trace.events} == set(range(n_threads))


def test_slm_is_per_workgroup_not_per_thread():
    # every thread sees the same SLM: covered above; a fresh workgroup starts from zeros
    out = np.zeros(8, np.uint32)
    b = Builder(8)
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 1, False), 8)
    b.add(grf(PAY + 1, T.UD), grf(RES, T.UD), imm(1, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 1, True), 8)
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 8, 1, True), 8)
    eot(b)
    run_program(b.program(), 8, surfaces={0: out})
    np.testing.assert_array_equal(out, 1)


def test_barrier_after_a_thread_ended_is_a_hang():
    b = Builder(8)
    b.cmp(null(T.UD), grf(0, T.UD, subreg=2, region=(0, 1, 0)), imm(0, T.UD), cond_mod="eq", n=1,
          mask_ctrl_we_all=True)
    b.jmpi("end", pred(control="any8h"))
    b.emit("send", null(), grf(60, T.UD), n=8, sfid=sm.SFID_GATEWAY, desc=sm.barrier_desc(),
           mask_ctrl_we_all=True)
    b.label("end")
    eot(b)
    with pytest.raises(SimulationError, match="barrier"):
        run_program(b.program(), 8, 2)


def test_scratch_is_private_per_thread():
    b = Builder(8)
    b.mov(grf(PAY + 1, T.UD), grf(LID, T.UD))
    b.mov(grf(PAY, T.UD), grf(0, T.UD), mask_ctrl_we_all=True)
    send(b, null(), PAY, sm.SFID_DC0, sm.scratch_desc(64, 1, True), 8, mask_ctrl_we_all=True)
    b.mov(grf(PAY + 1, T.UD), imm(0, T.UD))
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC0, sm.scratch_desc(64, 1, False), 8, mask_ctrl_we_all=True)
    eot(b)
    threads = run_program(b.program(), 8, 3)
    for t in threads:
        np.testing.assert_array_equal(t.reg(RES, T.UD, 8), np.arange(8) + 8 * t.tid)
        assert t.scratch[64:96].view(np.uint32).tolist() == list(range(8 * t.tid, 8 * t.tid + 8))


def test_split_send_takes_data_from_src1():
    out = np.zeros(8, np.uint32)
    b = Builder(8)
    b.shl(grf(PAY, T.UD), grf(LID, T.UD), imm(2, T.UD))
    b.mov(grf(90, T.UD), imm(77, T.UD))
    desc = sm.message_desc(1, 0) | sm.dp_desc(0, sm.DC1_UNTYPED_SURFACE_WRITE, 0xE | 2 << 4)
    b.emit("sends", null(), grf(PAY, T.UD), grf(90, T.UD), n=8, sfid=sm.SFID_DC1, desc=desc,
           ex_desc=1 << 6 | sm.SFID_DC1)
    eot(b)
    run_program(b.program(), 8, surfaces={0: out})
    np.testing.assert_array_equal(out, 77)


def test_descriptor_helpers_match_iga_checked_encodings():
    # iga64 decodes `send (8) null r112 0xC 0x04026E00` as an untyped surface write, SIMD8, X, BTI 0, mlen 2
    assert sm.untyped_surface_desc(0, 8, 1, True) == 0x04026E00
    assert sm.eot_desc() == 0x02000010


def test_unbound_surface_and_unknown_message_raise():
    b = Builder(8)
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(9, 8, 1, False), 8)
    with pytest.raises(SimulationError, match="binding table index 9"):
        run_program(b.program(), 8)
    b = Builder(8)
    send(b, grf(RES, T.UD), PAY, 2, 0x02100000, 8)      # sampler
    with pytest.raises(SimulationError, match="not modelled"):
        run_program(b.program(), 8)


ATOMICS = {  # aop: (python reference new value from old, a, b)
    sm.AOP_ADD: lambda o, a, b: o + a, sm.AOP_SUB: lambda o, a, b: o - a, sm.AOP_INC: lambda o, a, b: o + 1,
    sm.AOP_DEC: lambda o, a, b: o - 1, sm.AOP_AND: lambda o, a, b: o & a, sm.AOP_OR: lambda o, a, b: o | a,
    sm.AOP_XOR: lambda o, a, b: o ^ a, sm.AOP_MOV: lambda o, a, b: a, sm.AOP_REVSUB: lambda o, a, b: a - o,
    sm.AOP_UMAX: lambda o, a, b: max(o, a), sm.AOP_UMIN: lambda o, a, b: min(o, a),
    sm.AOP_IMAX: lambda o, a, b: max(o - (o >> 31 << 32), a - (a >> 31 << 32)),
    sm.AOP_IMIN: lambda o, a, b: min(o - (o >> 31 << 32), a - (a >> 31 << 32)),
    sm.AOP_CMPWR: lambda o, a, b: b if o == a else o,
}


@pytest.mark.parametrize("aop", sorted(ATOMICS))
@pytest.mark.parametrize("simd", [8, 16])
def test_untyped_atomics_serialise_lanes_on_the_same_address(aop, simd):
    rng = np.random.default_rng(aop)
    mem = rng.integers(0, 2**32, 4, dtype=np.uint64).astype(np.uint32)
    mem[1] = 5
    slots = rng.integers(0, 4, simd)
    a = rng.integers(0, 2**32, simd, dtype=np.uint64).astype(np.uint32)
    a[::3] = 5                                   # some cmpwr matches
    b_ = rng.integers(0, 2**32, simd, dtype=np.uint64).astype(np.uint32)
    regs = simd // 8
    b = Builder(simd)
    b.shl(grf(PAY, T.UD), grf(20, T.UD), imm(2, T.UD))
    b.mov(grf(PAY + regs, T.UD), grf(30, T.UD))
    b.mov(grf(PAY + 2 * regs, T.UD), grf(40, T.UD))
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_atomic_desc(0, simd, aop, True), simd)
    eot(b)

    def setup(th):
        th.set_reg(20, slots, T.UD)
        th.set_reg(30, a, T.UD)
        th.set_reg(40, b_, T.UD)

    want, returned = [int(x) for x in mem], []
    for lane in range(simd):
        returned.append(want[slots[lane]])
        want[slots[lane]] = ATOMICS[aop](want[slots[lane]], int(a[lane]), int(b_[lane])) & 0xFFFFFFFF
    th = run_program(b.program(), simd, setup=setup, surfaces={0: mem})[0]
    np.testing.assert_array_equal(mem, want)
    np.testing.assert_array_equal(th.reg(RES, T.UD, simd), returned)


def test_atomic_histogram_over_slm_from_two_threads():
    out = np.zeros(4, np.uint32)
    b = Builder(8)
    b.emit("and", grf(PAY, T.UD), grf(LID, T.UD), imm(3, T.UD))
    b.shl(grf(PAY, T.UD), grf(PAY, T.UD), imm(2, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_atomic_desc(sm.BTI_SLM, 8, sm.AOP_INC, False), 8)
    b.mov(grf(60, T.UD), grf(0, T.UD), mask_ctrl_we_all=True)
    send(b, null(), 60, sm.SFID_GATEWAY, sm.barrier_desc(), 8, mask_ctrl_we_all=True)
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 1, False), 8)
    b.mov(grf(PAY + 1, T.UD), grf(RES, T.UD))
    send(b, null(), PAY, sm.SFID_DC1, sm.untyped_surface_desc(0, 8, 1, True), 8)
    eot(b)
    run_program(b.program(), 8, 2, surfaces={0: out})
    np.testing.assert_array_equal(out, [4, 4, 4, 4])


@pytest.mark.parametrize("nregs", [1, 2, 4, 8])
def test_scratch_block_sizes_round_trip(nregs):
    desc_w, desc_r = sm.scratch_desc(32 * 3, nregs, True), sm.scratch_desc(32 * 3, nregs, False)
    assert (desc_w >> 12 & 3) == nregs.bit_length() - 1 and sm.decode_mlen_rlen(desc_r) == (1, nregs)
    b = Builder(8)
    b.mov(grf(PAY, T.UD), grf(0, T.UD), mask_ctrl_we_all=True)
    for k in range(nregs):
        b.add(grf(PAY + 1 + k, T.UD), grf(LID, T.UD), imm(100 * k, T.UD))
    send(b, null(), PAY, sm.SFID_DC0, desc_w, 8, mask_ctrl_we_all=True)
    send(b, grf(RES, T.UD), PAY, sm.SFID_DC0, desc_r, 8, mask_ctrl_we_all=True)
    eot(b)
    th = run_program(b.program(), 8)[0]
    got = th.reg(RES, T.UD, 8 * nregs).reshape(nregs, 8)
    np.testing.assert_array_equal(got, np.arange(8)[None] + 100 * np.arange(nregs)[:, None])
    assert not th.scratch[:96].any() and not th.scratch[96 + 32 * nregs:].any()


IGA_NAMES = [  # (sfid, descriptor from our helpers, exec size, what iga64 1.1.0 prints for it)
    (sm.SFID_DC0, sm.scratch_desc(96, 4, False), 16, "wr:1h+0, rd:4; hdc.dc0; hword scratch block read x4"),
    (sm.SFID_DC0, sm.scratch_desc(96, 8, True), 8, "wr:9h+0, rd:0; hdc.dc0; hword scratch block write x8"),
    (sm.SFID_DC1, sm.untyped_surface_desc(1, 16, 2, False), 16, "wr:2+0, rd:4; hdc.dc1; untyped surface read with xy"),
    (sm.SFID_DC1, sm.untyped_surface_desc(sm.BTI_SLM, 8, 4, True), 8, "wr:5+0, rd:0; hdc.dc1; untyped surface write with xyzw"),
    (sm.SFID_DC0, sm.byte_scattered_desc(3, 16, 2, True), 16, "wr:4+0, rd:0; hdc.dc0; byte scattering write 16b"),
    (sm.SFID_DC0, sm.byte_scattered_desc(3, 8, 1, False), 8, "wr:1+0, rd:1; hdc.dc0; byte gathering read 8b"),
    (sm.SFID_DC1, sm.untyped_atomic_desc(0, 8, sm.AOP_ADD, True), 8, "wr:2+0, rd:1; hdc.dc1; untyped atomic int32 integer add"),
    (sm.SFID_GATEWAY, sm.barrier_desc(), 8, "wr:1+0, rd:0; gateway; signal barrier"),
    (sm.SFID_THREAD_SPAWNER, sm.eot_desc(), 8, "wr:1+0, rd:0; spawner; end of thread"),
]


def test_descriptor_helpers_read_back_the_same_in_iga64(tmp_path):
    import shutil
    import subprocess
    if shutil.which("iga64") is None:
        pytest.skip("iga64 not installed")
    codec = pytest.importorskip("reconverge.isa.gen9.encoding")
    b = Builder(8)
    for sfid, desc, n, _ in IGA_NAMES:
        b.emit("send", grf(70, T.UD), grf(50, T.UD), n=n, sfid=sfid, desc=desc, ex_desc=sfid)
    krn = tmp_path / "m.krn"
    krn.write_bytes(codec.encode_program(b.program()))
    text = subprocess.run(["iga64", "-p=9", "-d", str(krn)], check=True, capture_output=True, text=True).stdout
    comments = [line.split("//", 1)[1].strip() for line in text.splitlines() if "//" in line]
    assert comments == [name for *_, name in IGA_NAMES]
