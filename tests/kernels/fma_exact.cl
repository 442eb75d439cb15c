// RUN: global=64 local=16 out:float[512]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295) c:uint[64]=rand(0,4294967295)
// fma rounds once: the rounding error of a product (fma(x, y, -(x * y)), 0.0 where the multiply and the add
// round apart, as Vulkan's GLSL Fma may and lavapipe's does), a subnormal addend, operands of every
// exponent (infinities and NaN among them), near cancellation, and a vector; every target must agree bit
// for bit with the JIT's fmaf.
#pragma OPENCL FP_CONTRACT OFF

kernel void fma_exact(global float *out, global const uint *a, global const uint *b, global const uint *c)
{
    uint g = get_global_id(0);
    float x = as_float((a[g] & 0x8fffffffu) | 0x30000000u), y = as_float((b[g] & 0x8fffffffu) | 0x30000000u);
    float z = -(x * y);
    global float *o = out + g * 8;
    o[0] = fma(x, y, z);
    o[1] = fma(x, y, as_float(c[g] & 0x807fffffu));
    o[2] = fma(as_float(a[g]), as_float(b[g]), as_float(c[g]));
    o[3] = fma(x, -y, x * y * (1.0f + 0x1p-23f));
    o[4] = fma(x * 0x1p100f, y * 0x1p100f, -0x1p127f);
    o[5] = fma(as_float(a[g] & 0x807fffffu), 0x1p23f, as_float(b[g] & 0x807fffffu));
    float4 v = fma((float4)(x, y, z, 1.0f), (float4)(y, x, 3.0f, 1e30f), (float4)(1.0f, -1.0f, z, 1e38f));
    o[6] = v.x + v.y;
    o[7] = v.z + v.w;
}
