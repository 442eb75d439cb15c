// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): s02 with `for (;;) { do` from one macro: the for's back edge and the do statement's start both sit at the
// macro's use, so the do statement's range holds the outer back edge and loop_separation leaves the loop merged
#define FOREVER_DO for (;;) { do
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint lane = get_sub_group_local_id();
    uint j = 0u, w = 0u, m = (in[gid & 255u] & 3u) + 2u;
    FOREVER_DO {
            w += sub_group_reduce_add(j + 1u);
            j++;
        } while ((lane & 1u) == 0u && j < m);
        if ((lane & 1u) == 0u || j >= m)
            break;
        w += 1000u * sub_group_reduce_add(1u);
    }
    out[gid] = w;
}
