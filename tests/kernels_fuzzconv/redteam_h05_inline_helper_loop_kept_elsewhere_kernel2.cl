// MISMATCH at -O1/-O2/-O3/-Os (kernel k): a helper's loop with a reduction on its break path, used by two kernels; k's inlined copy is deleted, k2's (with loads) is kept, and removed_loops matches loops module-wide by source start, so k is not refused
static inline uint f(uint v, uint key, __global const uint *in, uint flag)
{
    uint r = 0u, acc = 0u;
    for (uint j = 0u;; j++) {
        if (j == key) {
            r = sub_group_reduce_max(v);
            break;
        }
        if (flag)
            acc += in[(j + v) & 255u];
    }
    return r + acc;
}
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    out[gid] = f(v, v & 7u, in, 0u);
}
__kernel void k2(__global uint *out, __global const uint *in)
{
    uint gid = get_global_id(0);
    out[gid] = f(in[gid], in[gid] & 3u, in, 1u);
}
