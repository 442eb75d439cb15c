// fuzz convergence-27368, written small: LLVM proves the loop's bound never ends it (the key is below 4),
// so the break is its only exit; full unrolling shares one exit block among the passes, and once unrolling is
// off, rotation copies the first pass's test before the loop, whose lanes joined the break path's reduction
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint lid = get_local_id(0);
    uint v2 = in[gid];
    uint v4 = in[gid + 64u];
    {
        uint xk1 = (lid * in[(gid + 3u) & 255u]) & 3u;
        uint xs1 = 0u;
        for (uint xj1 = 0u; xj1 < 5u; xj1++) {
            if (xj1 == xk1) {
                v2 ^= sub_group_non_uniform_reduce_add(v4 >> 13);
                break;
            }
            xs1 += xj1 * 8u + 2u;
        }
        v2 ^= xs1;
    }
    out[gid] = v2;
}
