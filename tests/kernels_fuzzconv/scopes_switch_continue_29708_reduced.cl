// fuzz convergence-29708 reduced (tests/test_loop_separation.py): the `while` with a `switch` whose one case is
// `continue`, then a sub-group scan; at -O2 the switch is a conditional branch back to the shared latch
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    ushort v0 = (ushort)in[(gid + 58u) & 255u];
    ulong v1 = ((ulong)in[(gid + 23u) & 255u] << 32) | in[(gid * 3u + 23u) & 255u];
    uint v2 = (uint)in[(gid + 89u) & 255u];
    ulong v3 = ((ulong)in[(gid + 21u) & 255u] << 32) | in[(gid * 3u + 21u) & 255u];
    float f4 = (float)(as_int(in[(gid + 184u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 185u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 180u) & 255u]) % 4096);
    if ((((uint)(int)f5 * 0x7fffffffu) != popcount((uint)(v1 >> 13))) || ((v2 ^= 65535u) & 1u)) {
        {
            uint cj1 = 0u;
            uint cl1 = ((hadd(((uint)v0 - 2656867030u), ((uint)(int)f5 + 3u))) % 5u + 1u);
            while (cj1 < cl1) {
                cj1++;
                switch (((2495376485u ^ cj1) + v2) & 3u) {
                case 3u:
                    continue;
                }
                v2 = (uint)sub_group_non_uniform_scan_exclusive_or((ulong)((uint)(v1 >> 32)));
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(hmix(h, (uint)v1), (uint)(v1 >> 32));
    h = hmix(h, (uint)v2);
    h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
