// RUN: kernel=select_zero global=64 local=16 out:uint[64]=zero a:float[64]=rand(-9,9) b:float[64]=rand(-9,9)
// RUN: kernel=zero_terms global=64 local=16 out:uint[64]=zero a:float[64]=rand(-9,9)
// RUN: kernel=bool_to_float global=64 local=16 out:uint[64]=zero a:int[64]=rand(-3,3)
// Signed zeros, which OpenCL C keeps and Vulkan lets a driver drop unless the module declares
// SignedZeroInfNanPreserve: NVIDIA's 580 driver made `c ? -1.0f : 0.0f` -0.0 for a false c
// (`reconverge fuzz --seed 91763 --mode convergence`), as Mesa's algebraic rules do on lavapipe.
kernel void select_zero(global uint *out, global const float *a, global const float *b)
{
    int gid = get_global_id(0);
    float m = a[gid] > b[gid] ? -1.0f : 0.0f;
    float p = a[gid] < b[gid] ? 1.0f : -0.0f;
    out[gid] = as_uint(m) ^ (as_uint(p) >> 1);
}

// a zero term, a zero factor of a negative number, and a negated zero: each result's sign bit is its answer
kernel void zero_terms(global uint *out, global const float *a)
{
    int gid = get_global_id(0);
    float z = a[gid] * 0.0f;                   // -0.0 for negative a
    float s = (a[gid] > 100.0f ? a[gid] : -0.0f) + 0.0f;     // +0.0: -0.0 + 0.0
    float n = -(a[gid] - a[gid]);               // -0.0
    out[gid] = (as_uint(z) >> 31) | (as_uint(s) >> 30) | (as_uint(n) >> 29);
}

// clang -O2 makes `(float)(c ? -1 : 0)` a sitofp of an i1, which the SPIR-V emitter writes as
// `c ? -1.0 : 0.0`: lavapipe gave -0.0 for a false c (the unsigned one is `c ? 1.0 : 0.0`, read right)
kernel void bool_to_float(global uint *out, global const int *a)
{
    int gid = get_global_id(0);
    out[gid] = as_uint((float)(a[gid] > 0 ? -1 : 0)) ^ (as_uint((float)(a[gid] > 1 ? 1u : 0u)) >> 1);
}
