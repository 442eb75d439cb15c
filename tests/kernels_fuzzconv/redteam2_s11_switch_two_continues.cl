// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): fuzz 29708's while with a switch, two of whose cases are `continue`, then a reduction
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        switch ((v >> cj) & 3u) {
        case 3u:
            continue;
        case 1u:
            continue;
        }
        w += sub_group_reduce_add(cj * 16u + 1u);
    }
    out[gid] = w;
}
