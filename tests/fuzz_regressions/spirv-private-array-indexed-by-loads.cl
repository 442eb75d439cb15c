__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    uint v0 = in[gid & 255u];
    uint pa6[4];
    pa6[0]=pa6[1]=pa6[2]=pa6[3]=0;
    uint lim2 = v0 % 4u + 1u;
    for (uint i1 = 0u; i1 < lim2; i1++) {
        pa6[i1 & 3u] = 9u;
        uint v2 = pa6[in[4] & 3u];
        pa6[(v0 + v2) & 3u] = (i1 == 0) ? 7u : i1 + 100u;
    }
    out[gid] = pa6[1];
}
