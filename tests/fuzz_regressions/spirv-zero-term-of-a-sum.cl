static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    float f4 = 0.0f;
    float f6 = (float)(as_int(in[(gid + 27u) & 255u]) % 4096);
    for (uint i1 = 0u; i1 < 1u; i1++) {
        f4 = fclampi(((float)(as_int(i1) % 4096) - f6));
    }
    out[gid] = as_uint(f4);
}
