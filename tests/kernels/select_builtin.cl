// RUN: global=32 local=8 out:int[32]=zero fo:float4[32]=zero a:int[32]=rand(-50,50) f:float4[32]=rand(-2,2)
// select() on scalars and on float4 with an int4 mask from a vector comparison.
kernel void select_builtin(global int *out, global float4 *fo, global const int *a, global const float4 *f)
{
    int gid = get_global_id(0);
    int x = a[gid];
    out[gid] = select(x * 2, -x, x & 1) + select(100, 200, (int)(x > 10));
    float4 v = f[gid];
    int4 m = isgreater(v, (float4)(0.0f));
    fo[gid] = select(v * v, -v, m) + select((float4)(0.5f), v.wzyx, v.x < v.y ? (int4)(-1) : (int4)(0));
}
