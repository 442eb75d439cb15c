__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint a = in[gid & 255u], c = in[(gid + 128u) & 255u];
    uint acc = 0u;
    uint g1 = 0u;
    while (g1 < 4u) {
        g1++;
        acc = acc * 31u + sub_group_non_uniform_reduce_or(1u << lid);
        switch ((c >> (g1 * 2u)) & 3u) {
        case 0u:
            acc += 5u;
            continue;
        case 1u:
            acc ^= a;
            break;
        default:
            acc += 1u;
            break;
        }
        acc *= 3u;
    }
    out[gid] = acc;
}
