// MISMATCH at -O2/-O3/-Os: 't = hit ? reduce(..) : t; if (hit) break;' in an 8-pass loop: inside the natural loop in clang's code, on the break path after threading, then unrolled/deleted
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j;
    for (j = 0u; j < 8u; j++) {
        uint hit = j == (v & 7u);
        t = hit ? sub_group_reduce_add(j + 1u) : t;
        if (hit) break;
    }
    out[gid] = t * 16u + j;
}
