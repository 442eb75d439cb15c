// MISMATCH at -O2/-O3/-Os: do/while(go) where the reduction's branch clears go; inside the natural loop in clang's code, so not at risk; -O2 threads it onto the exit and deletes the loop (exit value j = key in closed form)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u, go = 1u;
    do {
        if (j == (v & 7u)) {
            t = sub_group_reduce_max(j + gid);
            go = 0u;
        } else {
            j++;
        }
    } while (go);
    out[gid] = t + j;
}
