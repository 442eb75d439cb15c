// MISMATCH at -O1/-O2/-Os (ir, spirv, gen): one helper loop with a reduction on its break path, inlined twice; LLVM deletes the first copy (empty but for the exit) and keeps the second, whose !llvm.loop names the same source range, so removed_loops counts the loop as kept and the first reduction meets every lane
static inline uint f(uint v, uint key, uint flag, __global const uint *in)
{
    uint r = 0u, acc = 0u;
    for (uint j = 0u;; j++) {
        if (j == key) {
            r = sub_group_reduce_add(v);
            break;
        }
        if (flag)
            acc += in[(j * 7u + v) & 255u];
    }
    return r + acc;
}
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint a = f(v, v & 7u, 0u, in);
    uint b = f(v + 1u, (v >> 3) & 3u, 1u, in);
    out[gid] = a * 3u + b;
}
