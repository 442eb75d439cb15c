// RUN: global=32 local=8 out:int4[32]=zero fo:float4[32]=zero f:float4[32]=rand(-100,100) c:uchar4[32]=rand(0,255)
// Conversions between vector types, as_type bit casts and a uchar4 computation widened to int4.
kernel void vector_convert(global int4 *out, global float4 *fo, global const float4 *f, global const uchar4 *c)
{
    int gid = get_global_id(0);
    float4 v = f[gid];
    int4 i = convert_int4(v);
    int4 w = convert_int4(c[gid]);
    int4 bits = as_int4(v) & (int4)(0xff);
    out[gid] = i * 2 + w - bits;
    fo[gid] = convert_float4(w.zyxw) * 0.5f + v;
}
