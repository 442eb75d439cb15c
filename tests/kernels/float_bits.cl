// RUN: global=64 local=16 out:float[512]=zero iout:int[256]=zero dout:double[256]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295)
// The exact float built-ins computed from the bits: frexp, ilogb, logb and nextafter (and fract, modf), on
// zeros of both signs, subnormals, the largest and smallest normals, infinities and NaN in the first 16 lanes,
// random bit patterns in the rest; floats and doubles, scalars and vectors.
constant uint edge[16] = {0u, 0x80000000u, 1u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u, 0x7f7fffffu,
                          0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000003u, 0x80400000u, 0x3effffffu,
                          0x4b000001u, 0xbf000000u};

kernel void float_bits(global float *out, global int *iout, global double *dout, global const uint *a,
                       global const uint *b)
{
    uint g = get_global_id(0);
    float x = g < 16 ? as_float(edge[g]) : as_float(a[g]);
    float y = g < 16 ? as_float(edge[(g * 7 + 3) & 15]) : as_float(b[g]);
    int e;
    float fl, ip;
    out[g * 8 + 0] = frexp(x, &e);
    iout[g * 4 + 0] = e;
    iout[g * 4 + 1] = ilogb(x);
    out[g * 8 + 1] = logb(x);
    out[g * 8 + 2] = nextafter(x, y);
    out[g * 8 + 3] = fract(x, &fl);
    out[g * 8 + 4] = fl;
    out[g * 8 + 5] = modf(x, &ip);
    out[g * 8 + 6] = ip;
    int4 e4;
    float4 m4 = frexp((float4)(x, y, x * 0.5f, -y), &e4);
    out[g * 8 + 7] = m4.x + m4.y + m4.z + m4.w;
    iout[g * 4 + 2] = e4.x ^ (e4.y << 8) ^ (e4.z << 16) ^ (e4.w << 24);
    iout[g * 4 + 3] = ilogb((float2)(y, x)).y;
    double dx = (double)x * 3.0;
    int de;
    dout[g * 4 + 0] = frexp(dx, &de);
    dout[g * 4 + 1] = (double)de + (double)ilogb(dx);
    dout[g * 4 + 2] = nextafter(dx, (double)y);
    dout[g * 4 + 3] = logb(dx) + logb(as_double(((ulong)a[g] << 32) | b[g]));
}
