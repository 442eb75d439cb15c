"""The batched simulator (isa/gen9/sim_batch.py) against the one-thread simulator it replaces for dispatches.

The hand-written simulator tests of control flow, jmpi and messages run here again with each work-group's
threads stepping together (Workgroup.run replaced by sim_batch.run_workgroup), the random structured programs
against their scalar reference included; and a compiled kernel with several work-groups, barriers, SLM and
atomics gives the same buffers and counts batched and one thread at a time.
"""
import numpy as np
import pytest

from reconverge.isa.gen9 import sim_batch, simulator
from tests.isa import test_sim_cf, test_sim_jmpi, test_sim_send

# asserts that a race shows under round-robin; the batched schedule runs the lagging thread up to the others
# first, so it shows the barrier's answer without the barrier (a legitimate schedule, not an error)
RACY = {"test_slm_exchange_across_threads_needs_the_barrier"}
CODEC = {"test_random_programs_run_the_same_after_binary_encode_decode"}     # the encoder's test, not the engine's

for _module in (test_sim_cf, test_sim_jmpi, test_sim_send):
    for _name in dir(_module):
        if _name.startswith("test_") and _name not in RACY | CODEC:
            globals()[f"{_name}_batched"] = getattr(_module, _name)


@pytest.fixture(autouse=True, scope="module")
def _batched_workgroups():
    original = simulator.Workgroup.run
    simulator.Workgroup.run = sim_batch.run_workgroup              # type: ignore[method-assign]
    yield
    simulator.Workgroup.run = original                            # type: ignore[method-assign]


KERNEL = r"""
kernel void k(global int *out, global int *hits, global const int *in, local int *tile) {
    int lid = get_local_id(0), gid = get_global_id(0);
    int x = in[gid], n = 0;
    while (x != 1 && n < 40) { x = (x & 1) ? 3 * x + 1 : x >> 1; n++; }
    tile[lid] = n;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[(lid + 1) % get_local_size(0)] + n;
    atomic_add(&hits[n % 4], 1);
}
"""


def _on_both_engines(tmp_path, monkeypatch, source: str, make_args, global_size, local_size, simd: int) -> dict:
    """{batched: (the kernel k's buffers after the launch, each work-group's per-thread counts)} for the
    one-thread reference engine (False) and the batched one (True)."""
    from reconverge.backend.gen import launch
    from reconverge.isa.gen9 import dispatch
    from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target
    src = tmp_path / "k.cl"
    src.write_text(source)
    program = load_program(str(src), "-O2")
    results = {}
    for batched in (False, True):
        counts: list = []

        def run(*args, on_group=None, batched=batched, counts=counts, **kw):
            def count(group):
                counts.append([(t.steps, t.lane_steps, t.branches, t.sends) for t in group.threads])
                on_group(group)
            return dispatch.run_ndrange(*args, on_group=count, batched=batched, **kw)
        monkeypatch.setattr(launch, "run_ndrange", run)
        out = run_target("gen", program, "k", make_args(), global_size, local_size, GenRunOptions(simd, "auto"))
        results[batched] = (out, counts)
    return results


def test_compiled_kernel_runs_the_same_batched_and_one_thread_at_a_time(tmp_path, monkeypatch):
    from reconverge.tools.targets.harness import LocalArg
    data = np.random.default_rng(5).integers(1, 500, 48).astype(np.int32)
    runs = _on_both_engines(tmp_path, monkeypatch, KERNEL, lambda: [np.zeros(48, np.int32), np.zeros(4, np.int32), data,
                            LocalArg(16, np.int32)], (48,), (16,), 8)
    results = {batched: ([a.tolist() for a in out[:2]], counts) for batched, (out, counts) in runs.items()}
    assert results[True] == results[False]
    assert sum(results[True][0][1]) == 48 and len(results[True][1]) == 3


def test_an_out_of_bounds_store_names_the_same_work_item_batched(tmp_path):
    from reconverge.lowering.errors import CompileError
    from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target
    src = tmp_path / "oob.cl"
    src.write_text("kernel void oob(global int *out) { int g = get_global_id(0); if (g == 37) out[g + 100] = 1; }")
    program = load_program(str(src), "-O2")
    with pytest.raises(CompileError, match=r"work-item \(37\): out-of-bounds store"):
        run_target("gen", program, "oob", [np.zeros(64, np.int32)], (64,), (16,), GenRunOptions(16, "auto"))


DIVERGENT = r"""
kernel void k(global int *out, global const int *in, global uchar *tag) {
    int gid = get_global_id(0);
    int trips = (gid / 8) % 2 ? 3 : 30;          /* odd SIMD8 threads leave the loop early */
    int s = 0;
    for (int i = 0; i < trips + (gid & 3); i++)
        s += in[(gid + i) % 64] ^ i;
    out[gid] = s;
    tag[gid] = (uchar)(s + gid);
}
"""


def test_threads_that_are_not_consecutive_run_the_same_as_one_at_a_time(tmp_path, monkeypatch):
    """The even threads loop on alone (rows that are no range: index arrays instead of slices), and threads
    leave the loop at different times; buffers and every thread's counts match the reference engine."""
    data = np.random.default_rng(7).integers(-100, 100, 64).astype(np.int32)
    runs = _on_both_engines(tmp_path, monkeypatch, DIVERGENT,
                            lambda: [np.zeros(64, np.int32), data, np.zeros(64, np.uint8)], (64,), (32,), 8)
    results = {batched: ([out[0].tolist(), out[2].tolist()], counts) for batched, (out, counts) in runs.items()}
    assert results[True] == results[False]
    steps = [c[0] for group in results[True][1] for c in group]
    assert max(steps) > 2 * min(steps)                   # the threads did diverge


def test_masked_writes_keep_the_lane_order_for_slices_and_index_arrays():
    from reconverge.isa.gen9.sim_batch_ops import Rows, masked_set
    rng = np.random.default_rng(3)
    for idx in (np.arange(2, 6), np.array([0, 3, 4, 7])):
        for cols, distinct in ((slice(4, 12, 2), True), (np.array([9, 1, 5, 3]), True), (np.array([2, 2, 6, 2]), False)):
            arr = rng.integers(0, 100, (8, 16))
            values = rng.integers(100, 200, (4, 4))
            mask = rng.random((4, 4)) < 0.6
            want = arr.copy()
            col_list = np.arange(16)[cols] if isinstance(cols, slice) else cols
            for b in range(4):
                for i in range(4):
                    if mask[b, i]:
                        want[idx[b], col_list[i]] = values[b, i]
            masked_set(arr, Rows(idx), cols, values, mask, distinct)
            assert (arr == want).all()


def test_operand_columns_are_slices_where_elements_step_evenly():
    from reconverge.isa.gen9.sim_batch_ops import columns
    assert columns(np.array([8, 9, 10, 11])) == (slice(8, 12, 1), False)
    assert columns(np.array([4, 6, 8])) == (slice(4, 9, 2), False)
    assert columns(np.array([5, 5, 5])) == (slice(5, 6), True)
    cols, broadcast = columns(np.array([0, 1, 8, 9]))
    assert isinstance(cols, np.ndarray) and not broadcast


@pytest.mark.parametrize("size", [1, 2, 4])
@pytest.mark.parametrize("aligned", [True, False])
def test_batched_gather_and_scatter_match_the_byte_by_byte_memory(size, aligned):
    """Aligned accesses go through whole words, the others byte by byte: both as sim_memory does, lane by
    lane (a later lane wins where two write the same bytes)."""
    from reconverge.isa.gen9 import sim_memory
    from reconverge.isa.gen9.sim_batch_send import _gather, _scatter
    rng = np.random.default_rng(size + 10 * aligned)
    extent = 64
    offs = rng.integers(-4, extent + 4, (3, 1, 8)) // size * size
    if not aligned:
        offs[1, 0, 2] += 1
    active = rng.random((3, 1, 8)) < 0.8
    values = rng.integers(0, 1 << 32, (3, 1, 8), dtype=np.uint64).astype(np.uint32)
    base = np.array([0, extent, 2 * extent])
    buf = rng.integers(0, 256, 3 * extent).astype(np.uint8)
    want = buf.copy()
    for t in range(3):
        space = want[t * extent:(t + 1) * extent]
        got = _gather(buf, offs[t:t + 1], base[t:t + 1], extent, size, active[t:t + 1])[0, 0]
        assert (got == sim_memory.gather(space, offs[t, 0], size, active[t, 0])).all()
        sim_memory.scatter(space, offs[t, 0], values[t, 0], size, active[t, 0])
    _scatter(buf, offs, base, extent, values, size, active)
    assert (buf == want).all()
