// RUN: global=64 local=16 out:float[512]=zero dout:double[128]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295)
// ldexp is exact (one rounding, where the result is subnormal): results past the largest float are
// infinite (GLSL's Ldexp is undefined there, and lavapipe's gave 1e34 for ldexp(a subnormal, 280)),
// subnormal results round to nearest even, subnormal inputs scale up past an exponent of 128; doubles too.
kernel void ldexp_exact(global float *out, global double *dout, global const uint *a, global const uint *b)
{
    uint g = get_global_id(0);
    float x = as_float((a[g] & 0x807fffffu) | 0x3f800000u);
    int k = (int)(b[g] % 600u) - 300;
    global float *o = out + g * 8;
    o[0] = ldexp(as_float(a[g]), k);
    o[1] = ldexp(x, 127) + ldexp(x, 128);
    o[2] = ldexp(x, -140);
    o[3] = ldexp(x, -150 + (int)(b[g] & 3u));
    o[4] = ldexp(as_float(a[g] & 0x807fffffu), 200 - (int)(b[g] & 255u));
    o[5] = ldexp(x * 1e30f, (int)(b[g] % 64u) + 40);
    float4 v = ldexp((float4)(x, -x, as_float(a[g] & 0x807fffffu), 0.0f), (int4)(k, -k, 149, 7));
    o[6] = v.x + v.y;
    o[7] = v.z + v.w;
    double d = (double)as_float(a[g]) * 1e-300;
    dout[g * 2] = ldexp(d, k * 4);
    dout[g * 2 + 1] = ldexp(as_double(((ulong)a[g] << 32) | b[g]), -(int)(b[g] % 2200u) + 1000);
}
