// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): redteam c05 (a goto loop -O1 and above delete, a reduction on its way out) with a #line that names another
// file for the code from the reduction on: the goto loop's span covers only the file of its first code
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
again:
    if (j == (v & 7u)) {
#line 300 "elsewhere.cl"
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    }
    j++;
    goto again;
out_:
    out[gid] = t;
}
