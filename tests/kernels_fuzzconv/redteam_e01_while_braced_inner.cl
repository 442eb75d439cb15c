// SILENT WRONG at -O1/-O2 hidden from the harness: as redteam_d08 with braces around the while body (ir -O0 still refuses; llvm -O0 and -O2 give the cfg answer)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint r = 0u;
    for (uint j = 0u; j < 8u; j++) {
        if (j == (v & 7u)) {
            uint x = v;
            while (sub_group_any(x != 0u)) {
                x >>= 1;
            }
            r = sub_group_reduce_add(j) + x;
            break;
        }
    }
    out[gid] = r;
}
