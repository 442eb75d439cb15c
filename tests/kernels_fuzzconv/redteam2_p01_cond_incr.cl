// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): at_most_one_pass: counter i starts at 0, bound 1, but i++ happens only in some passes
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u] & 7u;
    uint i = 0u, t = 0u, r = 0u;
    while (i < 1u) {
        t++;
        if (t > v) {
            r = sub_group_reduce_add(t);
            i++;
        }
    }
    out[gid] = r * 100u + t;
}
