// MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): a while loop on the for loop's break path; LLVM deletes the for loop (its one exit's count is known) but keeps the while, all of whose code lies in the for's range, so _loops_written_in takes the for loop as kept and the reduction meets every lane
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint r = 0u;
    for (uint j = 0u; j < 8u; j++) {
        if (j == (v & 7u)) {
            uint x = v;
            while (x > 1u)
                x >>= 1;
            r = sub_group_reduce_add(j) + x;
            break;
        }
    }
    out[gid] = r;
}
