// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): at_most_one_pass: `while (i < 1u)` with i=0, but i++ only when j > 100 (never, j <= 7): the loop runs v+1 passes
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u] & 7u;
    uint i = 0u, j = 0u, t = 0u;
    while (i < 1u) {
        if (j == v) {
            t = sub_group_reduce_add(j + 1u);
            break;
        }
        j++;
        if (j > 100u)
            i++;
    }
    out[gid] = t;
}
