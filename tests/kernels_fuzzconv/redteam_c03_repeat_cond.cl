// MISMATCH at -O2/-O3/-Os: 'if (j == key) t = reduce(..); if (j == key) break;' : the reduction is inside the natural loop in clang's code, -O2 merges the two tests (reduction on the break path) and unrolls/deletes the 8-pass loop
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    for (uint j = 0u; j < 8u; j++) {
        if (j == (v & 7u))
            t = sub_group_reduce_add(j + 1u);
        if (j == (v & 7u))
            break;
    }
    out[gid] = t;
}
