// RUN: kernel=rem_const global=64 local=16 out:int[64]=zero a:int[64]=rand(-100000,100000)
// RUN: kernel=rem_var global=64 local=16 out:int[64]=zero a:int[64]=rand(-100000,100000) z:int=-13
// RUN: kernel=mad24_rem global=64 local=16 out:int[64]=zero a:int[64]=rand(-100000,100000) b:int[64]=rand(-100000,100000)
// RUN: kernel=signed_mix global=64 local=16 out:int[64]=zero lo:long[64]=zero a:int[64]=rand(-100000,100000) b:int[64]=rand(-300,300)
// RUN: kernel=multi_exit_rem global=64 local=16 out:int[64]=zero a:int[64]=rand(-1000,1000)
// Signed instructions on negative operands: NVIDIA's 580 driver computed `a % 7` as ((uint)a) % 7 when
// OpSRem's operands had an unsigned type (the form every module had before signed types were emitted).
kernel void rem_const(global int *out, global const int *a)
{
    int gid = get_global_id(0);
    out[gid] = a[gid] % 7;
}

kernel void rem_var(global int *out, global const int *a, int z)
{
    int gid = get_global_id(0);
    out[gid] = a[gid] % z + a[gid] % (gid - 32 == 0 ? 1 : gid - 32);
}

kernel void mad24_rem(global int *out, global const int *a, global const int *b)
{
    int gid = get_global_id(0);
    out[gid] = mad24(a[gid] % 1000, b[gid] % 1000, 7);
}

// each signed instruction once: division, shifts, compares, conversions, min/max/abs/clamp, mul_hi,
// narrow sign extension and 64-bit remainder, with results feeding further signed operations
kernel void signed_mix(global int *out, global long *lo, global const int *a, global const int *b)
{
    int gid = get_global_id(0);
    int x = a[gid], y = b[gid] == 0 ? 3 : b[gid];
    int q = x / y;
    int r = (x >> 3) % y;
    int c = (x < y) + (x >= -q) * 2 + (r > -5) * 4;
    float f = (float)x * 0.25f;
    int back = (int)(f - 0.5f);
    short s = (short)(x * 7);
    char ch = (char)(x + y);
    int m = min(x, y) + max(q, r) + abs(r) + clamp(x, -500, 500) + mul_hi(x, y * 4099);
    out[gid] = q + r + c + back + (int)s + (int)ch + m + (q % 5) / (r == 0 ? 1 : r);
    long wide = (long)x * 100003L;
    lo[gid] = wide % -977L + (wide >> 5) / 3L + (long)(s >> 2);
}

// a loop with several exits whose values come from signed remainders of negative numbers
kernel void multi_exit_rem(global int *out, global const int *a)
{
    int gid = get_global_id(0);
    int v = a[gid];
    int result = 1001;
    for (int i = 0; i < 20; i++) {
        int r = v % 9;
        if (r == -4) { result = i; break; }
        if (r < -7) { result = -i - 1; break; }
        v = v / 2 - 3;
    }
    out[gid] = result + v % 11;
}
