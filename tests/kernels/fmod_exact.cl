// RUN: global=64 local=16 out:float[512]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295)
// fmod is exact (OpenCL C 3.0, 7.4: 0 ULP) whatever the quotient: x - y * trunc(x / y), what Vulkan's OpFRem
// may be and lavapipe's is, is far off past 2^24; subnormal operands and results, infinities, NaN and
// zeros of both signs; every target must agree bit for bit with the JIT's fmodf.
kernel void fmod_exact(global float *out, global const uint *a, global const uint *b)
{
    uint g = get_global_id(0);
    float x = as_float((a[g] & 0x8fffffffu) | 0x40000000u), y = as_float((b[g] & 0x80ffffffu) | 0x3f000000u);
    global float *o = out + g * 8;
    o[0] = fmod(x, y);
    o[1] = fmod(x * 1e20f, y);
    o[2] = fmod(as_float(a[g]), as_float(b[g]));
    o[3] = fmod(-x * 3e9f, y * 7.0f);
    o[4] = fmod(as_float(a[g] & 0x807fffffu), as_float(b[g] & 0x000003ffu));
    o[5] = fmod(as_float(a[g]) * 1e-30f, as_float(b[g] & 0x80ffffffu));
    float4 v = fmod((float4)(x, -x, 1e38f, 0.0f), (float4)(y, 3.0f, y * 1e-10f, INFINITY));
    o[6] = v.x + v.y;
    o[7] = v.z + v.w + fmod(-0.0f, y) + fmod(x, 0.0f) * 0.0f;
}
