// RUN: global=64 local=16 out:float[64]=zero in:float[64]=rand(0.1,20.0)
// Float builtins: sqrt exp log sin cos fabs floor fmin fmax mad mix clamp pow.
kernel void float_math(global float *out, global const float *in)
{
    int gid = get_global_id(0);
    float x = in[gid];
    float r = sqrt(x) + log(x) * 0.5f + exp(-x * 0.25f);
    r += sin(x) * cos(x * 0.5f) + fabs(x - 10.0f) * 0.1f;
    r += floor(x) * 0.01f + fmin(x, 5.0f) - fmax(x * 0.1f, 1.0f);
    r = mad(r, 0.5f, 1.0f) + mix(x, 2.0f * x, 0.25f) + clamp(r, -1.0f, 1.0f);
    r += pow(x, 0.5f);
    out[gid] = r;
}
