// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): redteam c05's goto loop with its way out (the reduction) written above the loop in the same braces: the
// scopes put the reduction in the loop (the braces hold the loop and no code that runs before it), but the
// goto loop's span (its first to last located code) starts below the reduction
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
    goto again;
    {
    found:
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    again:
        if (j == (v & 7u))
            goto found;
        j++;
        goto again;
    }
out_:
    out[gid] = t;
}
