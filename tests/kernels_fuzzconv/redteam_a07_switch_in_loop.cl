// MISMATCH at -O2/-O3 (ir, spirv, gen): reduction in a switch case inside the loop sets a flag and 'if (done) break' follows; in clang's code it lies inside the natural loop (not at risk), jump threading moves it onto the break path and full unrolling gives the 10 passes one shared block
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    uint j = 0u;
    for (; j < 10u; j++) {
        uint done = 0u;
        switch ((v + j) & 3u) {
        case 0u:
            if (j >= (v & 3u)) {
                t = sub_group_reduce_add(j + 1u);
                done = 1u;
            }
            break;
        case 1u:
            t += 1u;
            break;
        default:
            break;
        }
        if (done) break;
    }
    out[gid] = t * 16u + j;
}
