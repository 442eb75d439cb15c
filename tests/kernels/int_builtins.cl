// RUN: global=64 local=16 out:uint[2048]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295) c:uint[64]=rand(0,4294967295)
// Integer built-ins on every width, scalar and vector, with the edges of each range among the inputs (the
// first 16 lanes): mad_sat, mul_hi and mad_hi of chars, shorts and longs, 64-bit min, max and clamp,
// bitselect, saturating and rounding conversions, shuffles; and a long built from two dwords read back
// as its low dword ((uint)(((ulong)x << 32) | y): Gen's dword narrowing at -O0).
#pragma OPENCL FP_CONTRACT OFF
constant uint edges[16] = {0u, 1u, 2u, 0x7fu, 0x80u, 0xffu, 0x7fffu, 0x8000u, 0xffffu, 0x10000u,
                           0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu, 0x12345678u};

kernel void int_builtins(global uint *out, global const uint *a, global const uint *b, global const uint *c)
{
    uint g = get_global_id(0);
    uint x = g < 16 ? edges[g] : a[g];
    uint y = g < 16 ? edges[(g * 5 + 3) & 15] : b[g];
    uint z = g < 16 ? edges[(g * 11 + 7) & 15] : c[g];
    int sx = as_int(x), sy = as_int(y), sz = as_int(z);
    ulong lx = ((ulong)x << 32) | y, ly = ((ulong)z << 32) | x, lz = ((ulong)y << 32) | z;
    long slx = as_long(lx), sly = as_long(ly), slz = as_long(lz);
    global uint *o = out + g * 32;
    o[0] = (uint)lx;
    o[1] = mad_sat(x, y, z) ^ as_uint(mad_sat(sx, sy, sz));
    o[2] = (uint)mad_sat((uchar)x, (uchar)y, (uchar)z) | ((uint)(uchar)mad_sat((char)x, (char)y, (char)z) << 8)
           | ((uint)mad_sat((ushort)y, (ushort)z, (ushort)x) << 16);
    o[3] = (uint)(ushort)mad_sat((short)x, (short)y, (short)z) | ((uint)(ushort)mad_sat((short)z, (short)x, (short)y) << 16);
    o[4] = (uint)mad_sat(lx, ly, lz) ^ (uint)(mad_sat(lx >> 9, ly >> 30, lz) >> 32);
    o[5] = (uint)mad_sat(slx, sly, slz) ^ (uint)(mad_sat(slx >> 20, sly >> 21, slz) >> 32)
           ^ (uint)(mad_sat(slx >> 33, -(sly >> 30), -slz) >> 29);
    o[6] = (uint)mul_hi((uchar)x, (uchar)y) | ((uint)(uchar)mul_hi((char)x, (char)z) << 8)
           | ((uint)mad_hi((ushort)y, (ushort)z, (ushort)x) << 16);
    o[7] = (uint)(ushort)mul_hi((short)x, (short)y) | ((uint)(ushort)mad_hi((short)y, (short)z, (short)x) << 16);
    o[8] = (uint)(mad_hi(slx, sly, slz) >> 7) ^ (uint)mad_hi(lx, ly, lz);
    o[9] = (uint)(min(lx, ly) >> 3) ^ (uint)max(lx, lz) ^ (uint)(clamp(lx, min(ly, lz), max(ly, lz)) >> 11);
    o[10] = (uint)(min(slx, sly) >> 5) ^ (uint)max(slx, -5l) ^ (uint)clamp(slz, -1000l, 1000l);
    o[11] = bitselect(x, y, z) ^ as_uint(bitselect(as_float(x), as_float(z), as_float(y)));
    o[12] = (uint)convert_uchar_sat(sx) | ((uint)(uchar)convert_char_sat(y) << 8)
            | ((uint)convert_ushort_sat(slx) << 16);
    o[13] = as_uint(convert_int_sat(lx)) ^ convert_uint_sat(slz) ^ (uint)convert_ulong_sat(sly >> 31);
    o[14] = (uint)(ushort)convert_short_sat(y) | ((uint)(uchar)convert_char_sat(sly) << 16)
            | ((uint)convert_uchar_sat((char)z) << 24);
    float f = (float)(sx >> 12) * 0.37f + (float)(y & 1023u) * 0.5f;
    o[15] = as_uint(convert_int_rte(f)) ^ (as_uint(convert_int_rtz(f)) << 1) ^ (as_uint(convert_int_rtp(f)) << 2)
            ^ (as_uint(convert_int_rtn(f)) << 3);
    o[16] = (uint)(ushort)convert_short_sat_rte(f * 9.0f) | ((uint)convert_uchar_sat_rtn(f) << 16)
            | ((uint)(uchar)convert_char_sat_rtz(f) << 24);
    o[17] = convert_uint_sat_rtp(f) ^ as_uint(convert_float_rte(x)) ^ as_uint(convert_float_rte(slx));
    uint4 vx = (uint4)(x, y, z, x ^ y), vy = (uint4)(z, x, y, y ^ z), vz = (uint4)(y, z, x, x + z);
    uint4 r = mad_sat(vx, vy, vz) ^ as_uint4(mad_sat(as_int4(vx), as_int4(vy), as_int4(vz)));
    r ^= bitselect(vx, vy, vz) + shuffle(vx, vy & 3u) * 3u + shuffle2(vx, vz, vy & 7u) * 5u;
    r ^= as_uint4(mul_hi(as_ushort8(vx), as_ushort8(vy))) + as_uint4(mad_sat(as_char16(vx), as_char16(vy), as_char16(vz)));
    r ^= convert_uint4(convert_uchar4_sat(as_int4(vx))) + convert_uint4(convert_short4_sat(vy)) * 7u;
    ulong2 wx = (ulong2)(lx, ly), wy = (ulong2)(ly, lz), wz = (ulong2)(lz, lx);
    ulong2 w = mad_sat(wx, wy, wz) ^ as_ulong2(mad_sat(as_long2(wx) >> 21, as_long2(wy) >> 20, as_long2(wz)));
    w ^= min(wx, wy) + as_ulong2(max(as_long2(wy), as_long2(wz))) * 3ul;
    o[18] = r.x;
    o[19] = r.y;
    o[20] = r.z;
    o[21] = r.w;
    o[22] = (uint)w.x ^ (uint)(w.y >> 32);
    o[23] = (uint)(w.x >> 32) ^ (uint)w.y;
    o[24] = abs_diff(sx, sy) ^ as_uint(add_sat(sx, sy)) ^ (sub_sat(x, y) << 1) ^ as_uint(hadd(sx, sz)) ^ rhadd(y, z);
    o[25] = clz(x) | (ctz(y) << 6) | (popcount(z) << 12) | ((uint)clz(lx) << 18) | ((uint)ctz(ly) << 25);
    o[26] = rotate(x, y) ^ (uint)(rotate(lx, ly) >> 3) ^ (uint)rotate((uchar)x, (uchar)z);
    o[27] = (uint)upsample((ushort)x, (ushort)y) ^ (uint)(upsample(x, z) >> 13)
            ^ (uint)(ushort)upsample((char)y, (uchar)z);
    o[28] = mad24(x & 0xffffffu, y & 0xffffffu, z) ^ (uint)mul24(as_int(x << 8) >> 8, as_int(z << 8) >> 8);
}
