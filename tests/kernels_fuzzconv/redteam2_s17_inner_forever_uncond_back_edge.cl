// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): a for (;;) nested in a for (;;), the inner one's exit test before the end of its body, so its back edge
// is an unconditional branch: LLVM merges the two (no header tests) and loop_separation does not split them
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint lane = get_sub_group_local_id();
    uint j = 0u, w = 0u, m = (in[gid & 255u] & 3u) + 2u;
    for (;;) {
        for (;;) {
            w += sub_group_reduce_add(j + 1u);
            if ((lane & 1u) != 0u || j + 1u >= m)
                break;
            j++;
        }
        j++;
        if ((lane & 1u) == 0u || j >= m)
            break;
        w += 1000u * sub_group_reduce_add(1u);
    }
    out[gid] = w;
}
