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


def test_compiled_kernel_runs_the_same_batched_and_one_thread_at_a_time(tmp_path, monkeypatch):
    from reconverge.backend.gen import launch
    from reconverge.isa.gen9 import dispatch
    from reconverge.tools.targets.harness import GenRunOptions, LocalArg, load_program, run_target
    src = tmp_path / "k.cl"
    src.write_text(KERNEL)
    program = load_program(str(src), "-O2")
    data = np.random.default_rng(5).integers(1, 500, 48).astype(np.int32)
    results = {}
    for batched in (False, True):
        counts: list = []

        def run(*args, on_group=None, batched=batched, counts=counts, **kw):
            def count(group):
                counts.append([(t.steps, t.lane_steps, t.branches, t.sends) for t in group.threads])
                on_group(group)
            return dispatch.run_ndrange(*args, on_group=count, batched=batched, **kw)
        monkeypatch.setattr(launch, "run_ndrange", run)
        args = [np.zeros(48, np.int32), np.zeros(4, np.int32), data, LocalArg(16, np.int32)]
        out = run_target("gen", program, "k", args, (48,), (16,), GenRunOptions(8, "auto"))
        results[batched] = ([a.tolist() for a in out[:2]], counts)
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
