// RUN: global=32 local=8 out:int4[32]=zero in:int4[32]=rand(-1000,1000) b:int[128]=rand(-9,9)
// int4 arithmetic, swizzles, component writes, vload4 and vector comparisons.
kernel void vector_int4(global int4 *out, global const int4 *in, global const int *b)
{
    int gid = get_global_id(0);
    int4 v = in[gid];
    int4 w = vload4(gid, b);
    int4 r = v * 3 + w.wzyx;
    r.xy = r.yx - v.zw;
    int4 m = v > w;
    r = (m & r) | (~m & (r + 1));
    r.z += r.x * w.y;
    if (r.w > r.x)
        r = r.yzwx;
    out[gid] = r;
}
