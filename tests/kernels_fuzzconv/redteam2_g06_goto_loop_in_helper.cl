// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): redteam c05's goto loop (deleted above -O0) in a helper inlined once
static inline uint f(uint v)
{
    uint t = 0u, j = 0u;
again:
    if (j == (v & 7u)) {
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    }
    j++;
    goto again;
out_:
    return t;
}
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    out[gid] = f(in[gid & 255u]);
}
