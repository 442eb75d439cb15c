// Reduced from the fuzzer's vector-2017 (FUZZ_FINDINGS F2): clang -O2 folds (float)(int)(cmp) into
// `uitofp i1`, which the Gen backend converted from the 0 / -1 dword an i1 lives in (-1.0 for true).
// The clamp keeps the conversion from being folded away; the loop gives the control-flow modes work.
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }

__kernel void bool_to_float(__global uint *out, __global const uint *in)
{
    const uint gid = get_global_id(0);
    float f = (float)(as_int(in[gid & 255u]) % 4096);
    uint t = 0u;
    for (uint i = 0u; i < 4u && (in[(gid + i) & 255u] & 1u) == 0u; i++) {
        f = fclampi((float)(as_int((uint)((gid & 15u) == 3u)) % 4096));
        t += (uint)(int)f > (in[(gid + 7u) & 255u] & 3u);
    }
    out[gid] = (uint)(int)f * 1000u + t;
}
