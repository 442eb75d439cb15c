// MISMATCH at -O1/-O2/-O3/-Os: for(;;) waterfall-like loop whose break path runs an inner loading loop before the reduction; the outer loop is deleted, the inner one is kept and its code lies in the outer's range, so the outer counts as kept (_loops_written_in)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint r = 0u;
    for (uint j = 0u;; j++) {
        if (j == (v & 7u)) {
            uint s = 0u;
            for (uint i = 0u; i < (v >> 28); i++)
                s += in[(i + gid) & 255u];
            r = sub_group_reduce_add(j + 1u) + s;
            break;
        }
    }
    out[gid] = r;
}
