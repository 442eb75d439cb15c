#pragma OPENCL FP_CONTRACT OFF
__constant float F[16] = { -65536.0f, 65536.0f, 600000.0f, -600000.0f, 880000.0f, -860000.0f, 450000.0f, -1.0f,
                           12345.0f, -300000.0f, 750000.0f, -720000.0f, 0.0f, 250000.0f, -999.0f, 887000.0f };
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const float f = F[gid & 15u];
    fapprox[gid * 4u + 3u] = exp(f * 0.0001f);
    fapprox[gid * 4u + 2u] = exp10(f * 0.00004f);
    out[gid] = in[gid];
}
