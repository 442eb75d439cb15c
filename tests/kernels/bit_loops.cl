// RUN: global=64 local=16 out:int[64]=zero in:uint[64]=rand(0,4294967295) stop:uint=0x00f00000
// A loop over the bits of a word: continue on clear bits, break when the stop mask is reached.
kernel void bit_loops(global int *out, global const uint *in, uint stop)
{
    int gid = get_global_id(0);
    uint w = in[gid];
    int score = 0;
    for (int b = 0; b < 32; b++) {
        uint bit = 1u << b;
        if (!(w & bit))
            continue;
        if (bit & stop) {
            score += 1000;
            break;
        }
        score += b;
        if (score > 300)
            break;
    }
    out[gid] = score;
}
