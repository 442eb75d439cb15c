// RUN: global=64 local=16 out:float[64]=zero cls:int[64]=zero x:float[64]=rand(-3,3) y:float[64]=rand(-3,3)
// Control flow decided by float comparisons and relational builtins, with a float-bounded loop.
kernel void float_branchy(global float *out, global int *cls, global const float *x, global const float *y)
{
    int gid = get_global_id(0);
    float a = x[gid], b = y[gid];
    int c = 0;
    if (isless(a, b))
        c |= 1;
    if (a * b > 1.0f || fabs(a - b) < 0.25f)
        c |= 2;
    float t = a;
    int k = 0;
    while (t < 8.0f && k < 20) {
        t = t * 1.5f + (b > 0.0f ? b : 0.5f);
        if (t < -4.0f)
            t = -t;
        k++;
    }
    cls[gid] = c + 4 * k;
    out[gid] = c & 1 ? fmin(t, 100.0f) : fmax(t * 0.5f, a);
}
