// SILENT WRONG at -O1/-O2 hidden from the harness: sub_group_any in a brace-less while on a for loop's break path; ir -O0 refuses, llvm -O0 (the reference) and -O2 both give the whole sub-group's sum (60 for N=5) instead of the per-key sums: the for loop is deleted and the kept while's code in its range makes it count as kept
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint r = 0u;
    for (uint j = 0u; j < 8u; j++) {
        if (j == (v & 7u)) {
            uint x = v;
            while (sub_group_any(x != 0u))
                x >>= 1;
            r = sub_group_reduce_add(j) + x;
            break;
        }
    }
    out[gid] = r;
}
