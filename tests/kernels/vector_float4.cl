// RUN: global=32 local=8 out:float[128]=zero in:float4[32]=rand(-4,4) k:float=0.25
// float4 arithmetic, dot and length, vstore4 into a scalar buffer, a loop over the components.
kernel void vector_float4(global float *out, global const float4 *in, float k)
{
    int gid = get_global_id(0);
    float4 v = in[gid];
    float4 u = v.yzwx * k + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    float d = dot(v, u);
    float4 r = u * d;
    float s = 0.0f;
    for (int i = 0; i < 4; i++) {
        if (r[i] < 0.0f)
            r[i] = -r[i] * 0.5f;
        s += r[i];
    }
    r.w = s + length(v);
    vstore4(r, gid, out);
}
