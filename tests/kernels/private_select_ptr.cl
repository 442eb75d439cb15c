// RUN: global=64 local=32 out:uint[64]=zero in:uint[64]=rand(0,1000)
// A store through `c ? &x : &y` over two private variables, which clang -O2 leaves as a select of two
// allocas (reduced from `reconverge fuzz --seed 114 --mode barrier`): split_private_selects must turn
// it into accesses of each variable for SPIR-V and Gen to take it.
kernel void private_select_ptr(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    uint pa[4];
    for (uint c = 0; c < 4; c++)
        pa[c] = in[(gid * 4u + c) & 63u];
    pa[((uint)(as_int(in[gid]) >= 500)) & 3u] = in[(gid + 7u) & 63u] * 3u;
    uint h = 0;
    for (uint i = 0; i < 2u; i++) {
        if (in[(gid + i) & 63u] >= (i >> (pa[(1u ^ i) & 3u] & 31u))) {
            for (uint c = 0; c < 4; c++)
                h = (h ^ pa[c]) * 16777619u + 1u;
            out[gid] = h;
            return;
        }
    }
    for (uint c = 0; c < 4; c++)
        h = (h ^ pa[c]) * 31u + 7u;
    out[gid] = h;
}
