// RUN: global=64 local=16 out:uint[256]=zero a:int[64]=rand(-20000,20000) c:char[64]=rand(-128,127) s:ushort[64]=rand(0,65535)
// Extended values compared with constants (clang -O0 keeps `(long)x > 8188` as a sext and a 64-bit
// compare, which lavapipe got true for 0 and every other value; -O2 narrows it itself): signed and
// unsigned, every width, constants inside and outside the narrower range, the constant on either side.
kernel void extended_compare(global uint *out, global const int *a, global const char *c, global const ushort *s)
{
    uint g = get_global_id(0);
    long k = (long)a[g];
    int ci = (int)c[g];
    uint su = (uint)s[g];
    ulong sl = (ulong)s[g];
    uint r = 0;
    r |= (k > 8188) << 0;
    r |= (k >= -3) << 1;
    r |= (k < 100000000000l) << 2;
    r |= (-5 > k) << 3;
    r |= (k == 1023) << 4;
    r |= (ci > 3) << 5;
    r |= (ci < -100) << 6;
    r |= (ci != 127) << 7;
    r |= (ci > 300) << 8;
    r |= (su > 65000u) << 9;
    r |= (su <= 7u) << 10;
    r |= (sl > 70000ul) << 11;
    r |= (sl != 12ul) << 12;
    r |= ((long)ci <= -128) << 13;
    r |= ((ulong)(uint)a[g] > 4294967000ul) << 14;
    out[g * 4] = r;
    out[g * 4 + 1] = (uint)(k > 8188 ? 8188 : (k < -8188 ? -8188 : k));
}
