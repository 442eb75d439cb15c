// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): MISMATCH at -O1/-O2/-O3/-Os (ir, spirv, gen): fuzz 29708's switch-continue, written as a `goto next` (the while's continue) in a do/while that runs
// once: LLVM drops the do's back edge and makes the switch a conditional branch back to the while's header,
// written inside the do statement's range (a loop statement of clang's module), so loop_separation takes
// it for an inner loop's test and splits the while
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        uint k = 0u;
        do {
            k++;
            switch ((v >> cj) & 3u) {
            case 3u:
                goto next;
            }
            w += sub_group_reduce_add(cj * 16u + 1u);
        } while (k < 1u);
        w += 3u;
    next:;
    }
    out[gid] = w;
}
