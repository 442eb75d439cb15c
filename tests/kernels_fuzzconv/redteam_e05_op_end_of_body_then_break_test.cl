// MISMATCH at -O2/-O3/-Os: 'if (stop) t = reduce(..); j++; if (stop) break;' in for(;;): reduction inside the natural loop in clang's code; -O2 merges the tests, puts it after the loop and deletes the loop
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
    for (;;) {
        uint stop = j >= (v & 7u);
        if (stop)
            t = sub_group_reduce_add(j + 1u);
        j++;
        if (stop)
            break;
    }
    out[gid] = t * 16u + j;
}
