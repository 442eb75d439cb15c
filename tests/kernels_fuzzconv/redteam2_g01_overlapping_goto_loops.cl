// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): two goto loops whose spans overlap: B (lines 9-15, kept: its exit depends on loaded data) runs first,
// A (lines 12-18, c05's shape, deleted by -O1 and above) after it. B's back-edge branch (line 15) lies in A's
// span and in no loop nested in it, so removed_loops may take B for A and miss A's removal
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u] & 7u;
    uint t = 0u, j = 0u, b = 0u;
b_top:
    b++;
    goto b_test;
a_top:
    if (j == v) { t = sub_group_reduce_add(j + 1u); goto done; }
    goto a_inc;
b_test:
    if ((in[(b + gid) & 255u] & 3u) != 0u && b < 20u) goto b_top;
    goto a_top;
a_inc:
    j++;
    goto a_top;
done:
    out[gid] = t * 100u + b;
}
