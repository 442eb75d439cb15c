// NVIDIA 580.159 (H200, 2026-11-28): fuzz subgroup-260 at -O0 reduced by deletions (README, "Replaying on a
// GPU"). The sub-group add inside the do/while's `if` runs with no lane in its mask there: 21 of 64 lanes
// differ (`sub_group_ballot(1).x` in its place gives 0), while lavapipe and our interpreter run it right.
// Record it with: python -m reconverge.tools.gpu_replay record DIR --group fuzz --fuzz-seed 260
//   --fuzz-modes subgroup --fuzz-source tests/data/nvidia_subgroup_260_reduced.cl
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ulong v0 = ((ulong)in[(gid + 195u) & 255u] << 32) | in[(gid * 3u + 195u) & 255u];
    uint v1 = (uint)in[(gid + 255u) & 255u];
    uint v2 = (uint)in[(gid + 212u) & 255u];
    uint v3 = (uint)in[(gid + 211u) & 255u];
    uint v4 = (uint)in[(gid + 31u) & 255u];
    float f5 = (float)(as_int(in[(gid + 178u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 190u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 43u) & 255u]) % 4096);
    uint pa8[8];
    for (uint c = 0u; c < 8u; c++) pa8[c] = in[(gid * 8u + c) & 255u];
    switch (((rotate(lid, (uint)(v0 >> 32)) << ((((((uint)(v0 >> 0)) & 1u) == 0u) ? (uint)(int)f6 : v4) & 31u)) + v2) & 7u) {
    default: {
        {
            uint fl2 = 0u;
            uint g1 = 0u;
            do {
                g1++;
                if (((v2 *= v2) & 1u)) {
                    f7 = fclampi(sub_group_non_uniform_reduce_add(f7 + 0.0f));
                    if (1) {
                    } else {
                    }
                } else {
                }
            } while (g1 < 3u);
        }
        }
        break;
    case 5u: {
        }
        break;
    case 4u: {
        }
        break;
    }
    out[gid] = as_uint(f7);
}
