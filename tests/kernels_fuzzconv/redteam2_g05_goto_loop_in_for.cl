// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): redteam c05's goto loop (deleted above -O0) inside a kept for loop
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint acc = 0u;
    for (uint q = 0u; q < (in[(gid + 7u) & 255u] & 3u) + 1u; q++) {
        uint v = in[(gid + q) & 255u];
        uint t = 0u, j = 0u;
    again:
        if (j == (v & 7u)) {
            t = sub_group_reduce_add(j + 1u);
            goto out_;
        }
        j++;
        goto again;
    out_:
        acc = acc * 3u + t;
    }
    out[gid] = acc;
}
