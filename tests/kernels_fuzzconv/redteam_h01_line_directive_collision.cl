// MISMATCH at -O1/-O2/-O3/-Os: two loops given the same start by #line 40 (same column); the first (empty) is deleted, the second (loads) kept: removed_loops keys loops by (file, line, column), so the deleted one counts as kept (contrived; same root as redteam_a01/h05)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint a = 0u, b = 0u, acc = 0u;
#line 40
    for (uint j = 0u;; j++) { if (j == (v & 7u)) { a = sub_group_reduce_add(v); break; } }
#line 40
    for (uint j = 0u;; j++) { if (j == ((v >> 3) & 3u)) { b = sub_group_reduce_add(v + 1u); break; } acc += in[(j * 7u + v) & 255u]; }
    out[gid] = a * 3u + b + acc;
}
