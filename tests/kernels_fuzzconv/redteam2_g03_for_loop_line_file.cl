// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): a for loop -O1 and above delete (its one exit counted), a reduction on its way out, and a #line that names
// another file for the code from the reduction on: the loop's range is in the file of its start only
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    for (uint j = 0u;; j++) {
        if (j == (v & 7u)) {
#line 300 "elsewhere.cl"
            t = sub_group_reduce_add(j + 1u);
            break;
        }
    }
    out[gid] = t;
}
