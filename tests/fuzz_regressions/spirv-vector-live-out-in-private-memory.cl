__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    int v0 = as_int(in[(gid + 236u) & 255u]);
    ushort v5 = (ushort)in[(gid + 19u) & 255u];
    float f6 = (float)(as_int(in[(gid + 109u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 38u) & 255u]) % 4096);
    uint4 w9 = vload4((gid + 50u) & 63u, in);
    uint4 w10 = vload4((gid + 6u) & 63u, in);
    {
        uint g1 = 0u;
        do {
            g1++;
            w10 = as_uint4(as_int4(max((uint4)(in[gid & 255u], (uint)v5, 4212149369u, (uint)(int)f7), vload4(((-(uint)(int)f6)) & 63u, in))) >> (w9.x & 31u));
            f7 = f6;
        } while (g1 < 5u && ((w10.x >> (gid & 31u)) < as_uint(v0)));
    }
    out[gid] = w10.x;
}
