// RUN: global=64 local=16 out:float[64]=zero iters:int[64]=zero in:float[64]=rand(0.5,1000.0)
// Newton's iteration for a square root with a tolerance exit and an iteration bound.
kernel void float_loop(global float *out, global int *iters, global const float *in)
{
    int gid = get_global_id(0);
    float x = in[gid];
    float g = x > 1.0f ? x * 0.5f : 1.0f;
    int i = 0;
    for (; i < 30; i++) {
        float ng = 0.5f * (g + x / g);
        if (fabs(ng - g) <= 1e-4f * ng) {
            g = ng;
            break;
        }
        g = ng;
    }
    out[gid] = g;
    iters[gid] = i;
}
