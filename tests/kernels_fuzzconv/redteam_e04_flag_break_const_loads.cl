// MISMATCH at -O2/-O3: flag-break loop of 8 passes that also loads; the reduction (inside the natural loop in clang's code) ends in one block after full unrolling, shared by all 8 passes' exits
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, s = 0u;
    for (uint j = 0u; j < 8u; j++) {
        uint done = 0u;
        s += in[(v + j) & 255u];
        if (j == (v & 7u)) {
            t = sub_group_reduce_add(s);
            done = 1u;
        }
        if (done) break;
    }
    out[gid] = t;
}
