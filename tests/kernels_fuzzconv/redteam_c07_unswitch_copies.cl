// NEAR-MISS: reduction on the break path of a for(;;) with an invariant 'if (flag)' load in the body (unswitching candidate): ok at -O2, refused at -O3 (reached from before the loop)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint r = 0u, acc = 0u;
    uint flag = in[(gid + 7u) & 255u] & 1u;
    for (uint j = 0u;; j++) {
        if (j == (v & 7u)) {
            r = sub_group_reduce_add(v);
            break;
        }
        if (flag)
            acc += in[(j * 7u + v) & 255u];
    }
    out[gid] = r + acc;
}
