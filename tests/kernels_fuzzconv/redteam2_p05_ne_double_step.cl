// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): at_most_one_pass: `i != 1u` from 0, but i grows by 2 a pass, so it skips 1 and the loop runs until the break
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u] & 7u;
    uint t = 0u, j = 0u;
    for (uint i = 0u; i != 1u; i++) {
        if (j == v) {
            t = sub_group_reduce_add(j + 1u);
            break;
        }
        j++;
        i++;
    }
    out[gid] = t;
}
