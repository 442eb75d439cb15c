// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): a `continue` in a do/while that runs once (its back edge never taken, so LLVM drops it): at -O2 the
// continue is a conditional branch back to the while's header, written inside the do statement's range,
// so loop_separation takes it for an inner loop's test and splits the while
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        uint k = 0u;
        do {
            k++;
            if (((v >> cj) & 1u) != 0u)
                continue;
            w += sub_group_reduce_add(cj * 16u + 1u);
        } while (k < 1u);
    }
    out[gid] = w;
}
