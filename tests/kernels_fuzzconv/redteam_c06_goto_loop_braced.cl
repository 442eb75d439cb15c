// as redteam_c05_goto_loop with the goto loop's body in braces: no !llvm.loop; -O1 and above delete the loop and the kernel is refused
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
    {
again:
        {
            if (j == (v & 7u)) {
                t = sub_group_reduce_add(j + 1u);
                goto out_;
            }
            j++;
        }
        goto again;
    }
out_:
    out[gid] = t;
}
