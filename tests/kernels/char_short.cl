// RUN: global=64 local=16 out:short[64]=zero sat:uchar[64]=zero in:char[64]=rand(-128,127) w:short[64]=rand(-3000,3000)
// 8- and 16-bit types: promotions, narrowing stores, saturating adds and a loop on a char counter.
kernel void char_short(global short *out, global uchar *sat, global const char *in, global const short *w)
{
    int gid = get_global_id(0);
    char c = in[gid];
    short s = w[gid];
    int acc = 0;
    for (char k = 0; k < 10; k++) {
        if ((c & k) == k)
            acc += k;
    }
    out[gid] = (short)(s / 3 + c * 2 + acc);
    uchar u = (uchar)c;
    sat[gid] = add_sat(u, (uchar)100) - (uchar)(gid & 7);
}
