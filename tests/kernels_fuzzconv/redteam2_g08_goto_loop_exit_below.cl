// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): a goto loop (deleted above -O0) whose way out (the reduction) is written after its backward goto, in the
// same braces: the scopes put the reduction in the loop, but the span ends at the backward goto
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
    {
    again:
        if (j == (v & 7u))
            goto found;
        j++;
        goto again;
    found:
        t = sub_group_reduce_add(j + 1u);
    }
    out[gid] = t;
}
