"""tools/gpu_replay.py: a few launches recorded here and replayed on lavapipe, by a process that loads
nothing of ours but vulkan_run (and reconverge.lowering.errors), as on a bare GPU machine."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from reconverge.tools import gpu_replay

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A program in the random generator's form whose module, as `--emit spirv` writes it (acquire-release
# atomics), is wrong on lavapipe (tests/test_atomics.py's compare-exchange retry loop): replay dispatching
# that module, not lavapipe's own, shows as a difference there.
ATOMIC_LOOP = """
__kernel void k(__global const uint *in, __global uint *out, __global uint *cnt, uint n) {
  uint seen = cnt[0], want;
  do { want = seen + 1u; } while ((seen = atomic_cmpxchg(cnt, seen, want)) != want - 1u);
  out[get_global_id(0)] = 1u;
}
"""

REPLAY = """
import json, sys
sys.path.insert(0, {tools!r})
import gpu_replay
gpu_replay.main(["replay", {folder!r}, "--vk-device", "lavapipe", "--json", {out!r}])
ours = sorted(m for m in sys.modules if m.split(".")[0] in ("reconverge", "backend", "tools", "lowering", "llvmlite"))
print("LOADED", json.dumps(ours))
"""


def test_record_then_replay_on_lavapipe(tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"id": "fuzz/7-O2", "source": ATOMIC_LOOP}]))
    folder = tmp_path / "record"
    recorded = []
    for group in ("corpus", "random", "subgroups"):
        recorded += gpu_replay.record(str(folder / group), [group], str(cases), limit=2, log=print)
    assert [(v["id"], v["status"]) for v in recorded] == [
        ("corpus/binary_search/binary_search-O0", "agrees"), ("corpus/binary_search/binary_search-O2", "agrees"),
        ("random/7", "agrees"), ("subgroups/layout", "agrees"), ("subgroups/every_i8", "agrees")]     # lavapipe's own launches carry its workarounds
    verdicts, details = {}, {}
    for group in ("corpus", "random", "subgroups"):
        out = tmp_path / f"{group}.json"
        done = subprocess.run([sys.executable, "-c", REPLAY.format(tools=os.path.join(ROOT, "tools"),
                                                                   folder=str(folder / group), out=str(out))],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "| group | launches | differ | which |" in done.stdout
        loaded = json.loads(done.stdout.split("LOADED ", 1)[1])
        assert loaded == ["reconverge", "reconverge.lowering", "reconverge.lowering.errors"], loaded
        report = json.loads(out.read_text())
        assert report["device"].startswith("0: llvmpipe")
        verdicts.update({v["id"]: v["status"] for v in report["launches"]})
        details.update({v["id"]: v["detail"] for v in report["launches"]})
    assert verdicts == {"corpus/binary_search/binary_search-O0": "agrees", "corpus/binary_search/binary_search-O2": "agrees",
                        "random/7": "differs", "subgroups/layout": "agrees", "subgroups/every_i8": "error"}
    assert "lacks the sub-group feature 'clustered'" in details["subgroups/every_i8"]   # native, not lavapipe's


def test_ulp_distance_and_differences():
    import numpy as np
    a = np.array([1.0, -0.0, np.nan, 2.0], np.float32)
    b = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, np.nan, 2.0], np.float32)
    assert gpu_replay.ulp_distance(a, b).tolist() == [1, 0, 0, 0]
    assert gpu_replay.differences({0: a}, {0: b}, 1) is None
    assert "binding 0 [0]" in gpu_replay.differences({0: a}, {0: b}, 0)
    assert "binding 1 [1]" in gpu_replay.differences({1: np.array([1, 2], np.int32)}, {1: np.array([1, 3], np.int32)}, 5)


def test_launch_ids_stay_unique():
    """A corpus kernel with two RUN lines (switch_fallthrough) once wrote both launches to one file."""
    used: set[str] = set()
    assert [gpu_replay._unique(n, used) for n in ("k-O0", "k-O0", "j-O0", "k-O0")] == ["k-O0", "k-O0#2", "j-O0",
                                                                                      "k-O0#3"]


def test_irreducible_and_fuzz_groups_record_and_replay(tmp_path):
    """The guarded irreducible CFGs, and fuzz programs with a reference per subgroup size for a sub-group one
    (fuzz seed 60008 is mode subgroup), replayed on lavapipe: every launch agrees with its reference."""
    folder = str(tmp_path / "record")
    recorded = gpu_replay.record(folder, ["irreducible", "fuzz"], None, limit=2, log=print, fuzz=(60008, 1, ()))
    assert [(v["id"], v["status"]) for v in recorded] == [
        ("irreducible/1", "agrees"), ("irreducible/2", "agrees"),
        ("fuzz/subgroup-60008-O0", "agrees"), ("fuzz/subgroup-60008-O2", "agrees")]
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        widths = {launch["id"]: launch.get("widths") for launch in json.load(f)["launches"]}
    assert widths["fuzz/subgroup-60008-O2"] == list(gpu_replay.SUBGROUP_WIDTHS) and widths["irreducible/1"] is None
    verdicts, device = gpu_replay.replay(folder, "lavapipe")
    assert device.startswith("0: llvmpipe")
    assert {v["id"]: v["status"] for v in verdicts} == {v["id"]: "agrees" for v in recorded}



def test_a_reduced_fuzz_program_records_with_its_seeds_arguments(tmp_path):
    """--fuzz-source: the reduction of subgroup-260 that NVIDIA gets wrong (tests/data) is recorded as program 260
    of mode subgroup would be (the same arguments; a reference per subgroup size), named after its file, at -O0
    and -O2, and lavapipe agrees with it. Its module is the one the GPU replay hands the driver."""
    source = os.path.join(ROOT, "tests", "data", "nvidia_subgroup_260_reduced.cl")
    folder = str(tmp_path / "record")
    recorded = gpu_replay.record(folder, ["fuzz"], None, limit=None, log=print, fuzz=(260, 0, ("subgroup",)),
                                 fuzz_sources=(source,))
    assert [(v["id"], v["status"]) for v in recorded] == [
        ("fuzz/nvidia_subgroup_260_reduced-260-O0", "agrees"), ("fuzz/nvidia_subgroup_260_reduced-260-O2", "agrees")]
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        launches = json.load(f)["launches"]
    assert all(launch["widths"] == list(gpu_replay.SUBGROUP_WIDTHS) for launch in launches)
    from reconverge.tools.fuzz.generator import generate
    inputs = np.load(os.path.join(folder, launches[0]["data"]))
    np.testing.assert_array_equal(inputs["in_1"], generate(260, "subgroup").make_args()[1])

def test_the_replayed_module_is_the_plain_form_not_lavapipes_rewrite(tmp_path):
    """lavapipe's launches rewrite the kernel first (backend/spirv/launch.py: a float factor hidden behind
    `get_group_id(2) >= get_num_groups(2) ? 2.0 : f`, loop live-outs in private memory); the module saved
    for another device is the one made from the kernel as compiled, which no other driver's launch rewrites."""
    import numpy as np

    from reconverge.backend.spirv.tools import disassemble
    source = """
__kernel void k(__global const uint *in, __global uint *out, __global uint *cnt, uint n) {
  uint i = get_global_id(0);
  out[i] = as_uint(as_float(in[i] & 0x3fffffffu) * 3.0f);
}
"""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"id": "fuzz/3-O2", "source": source}]))
    folder = tmp_path / "record"
    recorded = gpu_replay.record(str(folder), ["random"], str(cases), limit=1, log=print)
    assert [v["status"] for v in recorded] == ["agrees"]
    manifest = json.loads((folder / "manifest.json").read_text())
    with np.load(folder / manifest["launches"][0]["data"]) as data:
        text = disassemble(data["module"].tobytes())
    assert "OpFMul" in text and "NumWorkgroups" not in text
