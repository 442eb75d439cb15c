// fuzz convergence-23120, written small: the inner `for` always breaks, so clang -O0 leaves its increment
// block with no predecessor; the outer loop's reduction on a break path makes the convergence pass pull
// a region into the loop, and its dominance repair refused the dead block's loads
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint found = 0u;
    for (uint j = 0u; j < 4u; j++) {
        if ((v & 7u) == j) {
            v += sub_group_non_uniform_reduce_add(v);
            break;
        }
        for (uint i = 0u; i < (v & 3u); i++) {
            if (((1u & 3u) == 1u)) {
                found += i + 1u;
                break;
            }
        }
    }
    out[gid] = v + found;
}
