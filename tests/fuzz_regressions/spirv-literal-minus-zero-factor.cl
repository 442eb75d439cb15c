#pragma OPENCL FP_CONTRACT OFF
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    float f6 = (float)(as_int(in[(gid + 194u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 178u) & 255u]) % 4096);
    f6 = fclampi((f7 * (0.0f * -5.0f)));
    uint h = 0u;
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
