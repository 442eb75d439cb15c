// MISMATCH at -O2/-O3/-Os: 'if (visit(j, v, &t)) break;' with the reduction inside the helper (inside the natural loop in clang's code, so not at risk); after inlining, threading puts it on the break path and the loop is predicated and deleted
static inline bool visit(uint j, uint v, uint *t)
{
    if (j == (v & 7u)) {
        *t = sub_group_reduce_add(j + 1u);
        return true;
    }
    return false;
}
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    for (uint j = 0u; j < n + 8u; j++) {
        if (visit(j, v, &t))
            break;
    }
    out[gid] = t;
}
