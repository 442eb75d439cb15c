// fuzz convergence-27926, written small: the one-exit loop of scopes_one_exit_loop_removed.cl in a kernel
// with a private array indexed at run time, which -O2 keeps in memory: the Gen CFG pipeline reads a copy of
// the module through SROA, and that copy lost what the front end found of the removed loop
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint pa[8];
    for (uint c = 0u; c < 8u; c++) pa[c] = in[(gid * 8u + c) & 255u];
    uint v = pa[in[gid] & 7u];
    uint r = 0;
    for (uint j = 0;; j++) {
        if (j == (v & 7u)) {
            r = sub_group_reduce_add(v);
            break;
        }
    }
    out[gid] = r + pa[(v >> 3) & 7u];
}
