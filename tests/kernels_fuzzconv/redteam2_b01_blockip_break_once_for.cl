// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH on gen blockip -O2 only (SIMD8 and 16): gen blockip at -O2 (not -O0, not ir/spirv/hybrid): a reduction in a one-pass for (kept under KEEP_LOOPS)
// inside a while, with a break out of the for before it. At -O2 the for is a loop of its own whose header
// branches straight back to the while's header; blockIP sends the lanes that broke round the while again
// before the lanes waiting at the reduction run it, so the reduction meets lanes of two while passes
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        for (uint k = 0u; k < 1u; k++) {
            if (((v >> cj) & 1u) != 0u)
                break;
            w += sub_group_reduce_add(cj * 16u + 1u);
        }
    }
    out[gid] = w;
}
