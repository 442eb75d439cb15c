// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): at_most_one_pass: `i < 0xFFFFFFFFu` is `icmp ult %i, -1`; the literal bound is read as -1 (signed), so
// the loop is taken to run one pass at most, where it runs v+1 passes
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u] & 7u;
    uint t = 0u;
    for (uint i = 0u; i < 0xFFFFFFFFu; i++) {
        if (i == v) {
            t = sub_group_reduce_add(i + 1u);
            break;
        }
    }
    out[gid] = t;
}
