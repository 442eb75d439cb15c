// RUN: global=64 local=16 fout:float[256]=zero dout:double[128]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295)
// 64-bit integers to floats, rounded once: unsigned ones past 2^63 (Gen's simulator read a :uq source as
// signed), values past 2^53 that a float64 step would round twice (2^53 + 2^29 + 1 is 2^53 + 2^30 as a float,
// not 2^53), and random bit patterns.
constant ulong edges[8] = {0x8000000000000005ul, 0xfffffffffffffffful, 0x8000000000000000ul, 0x20000020000001ul,
                           0x7fffffffffffffffful >> 4, 0x8000008000000001ul, 0x20000000000001ul, 12345678901234567890ul};

kernel void long_to_float(global float *fout, global double *dout, global const uint *a, global const uint *b)
{
    uint g = get_global_id(0);
    ulong u = g < 8 ? edges[g] : ((ulong)a[g] << 32) | b[g];
    long s = as_long(u);
    fout[g * 4 + 0] = (float)u;
    fout[g * 4 + 1] = (float)s;
    fout[g * 4 + 2] = (float)(u >> (g & 63));
    fout[g * 4 + 3] = convert_float_rte(s >> (g & 31));
    dout[g * 2 + 0] = (double)u;
    dout[g * 2 + 1] = (double)s;
}
