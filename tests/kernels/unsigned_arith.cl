// RUN: global=64 local=16 out:uint[64]=zero in:uint[256]=rand(0,4294967295)
// Wrapping unsigned arithmetic: an FNV-1a style hash and xorshift mixing over four words.
kernel void unsigned_arith(global uint *out, global const uint *in)
{
    int gid = get_global_id(0);
    uint h = 2166136261u;
    for (int i = 0; i < 4; i++) {
        uint w = in[gid * 4 + i];
        for (int k = 0; k < 4; k++) {
            h ^= (w >> (8 * k)) & 0xffu;
            h *= 16777619u;
        }
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
    }
    out[gid] = h > 0x80000000u ? h - 0x80000000u : h + (uint)gid;
}
