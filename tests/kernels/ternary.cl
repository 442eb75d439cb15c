// RUN: global=64 local=16 out:int[64]=zero f:float[64]=zero in:int[64]=rand(-50,50) s:int=3
// Nested conditional expressions, integer and float.
kernel void ternary(global int *out, global float *f, global const int *in, int s)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int y = x > 0 ? (x > 25 ? x - 25 : x * 2) : (x < -25 ? -x : x * s);
    int z = (gid & 1) ? y : (gid & 2) ? -y : y + x;
    out[gid] = z;
    float v = (float)x * 0.5f;
    f[gid] = v > 3.0f ? v * v : (v < -3.0f ? -v : v + 1.0f);
}
