// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): b01 with an inner for of three passes (gen blockip at -O2 only)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        for (uint k = 0u; k < 3u; k++) {
            if (((v >> (cj + k)) & 1u) != 0u)
                break;
            w += sub_group_reduce_add(cj * 16u + 1u);
        }
    }
    out[gid] = w;
}
