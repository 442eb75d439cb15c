// NEAR-MISS: two break paths with &&/|| tests in a 12-pass loop: ok at -O1/-O2/-Os, refused at -O3 (a rotated copy of the first test reaches the reduction)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    for (uint j = 0u; j < 12u; j++) {
        if (j >= (v & 7u) && ((v >> 4) & 1u)) {
            t = sub_group_reduce_add(j);
            break;
        }
        if (j >= ((v >> 5) & 7u) || j == 11u) {
            t = sub_group_reduce_max(j + 100u);
            break;
        }
    }
    out[gid] = t;
}
