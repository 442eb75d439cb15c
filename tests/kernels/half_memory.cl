// RUN: global=64 local=16 out:uint[1024]=zero hb:ushort[1024]=zero a:uint[64]=rand(0,4294967295) b:uint[64]=rand(0,4294967295)
// Halves in memory (vload_half, vloada_half, vstore_half and vstorea_half of every width, from floats and
// doubles), byte and short vectors loaded and divided, and a private array of structs reached through a
// pointer whose index is data.
typedef struct { uchar tag; short s; uint v; ulong w; float f; } rec;

kernel void half_memory(global uint *out, global ushort *hb, global const uint *a, global const uint *b)
{
    uint g = get_global_id(0);
    uint x = a[g], y = b[g];
    global const half *ah = (global const half *)a;
    global half *h = (global half *)hb;
    global uint *o = out + g * 16;
    float f1 = vload_half(g, ah);
    float4 f4 = vload_half4(g & 15, ah);
    float3 f3 = vloada_half3(g & 15, (global const half *)b);
    float8 f8 = vload_half8(g & 7, ah);
    o[0] = as_uint(f1) ^ as_uint(f4.x + f4.y * 2.0f + f4.z * 4.0f + f4.w * 8.0f);
    o[1] = as_uint(f3.x) ^ as_uint(f3.y * 3.0f) ^ as_uint(f3.z * 5.0f);
    o[2] = as_uint(f8.s0 + f8.s7) ^ as_uint(f8.s3 * f8.s4);
    float v = (float)(int)(x & 0xffffu) * 0.25f - 4000.0f;
    vstore_half(v, g, h);
    vstore_half2_rte((float2)(v * 3.0f, v + 0.1f), 32 + g, h);
    vstorea_half3((float3)(v, -v, v * 0.001f), 64 + g, h);
    double d = (double)as_int(y) * 1e-5;
    vstore_half4((double4)(d, d * 1e-3, -d * 7.0, d + 65504.0), 128 + g, h);
    char4 c4 = as_char4(x);
    short2 s2 = as_short2(y);
    o[3] = as_uint(c4 / (char4)(3, -5, 7, 11)) ^ as_uint(c4 % (char4)(3, -5, 7, 11)) ^ as_uint(c4 >> (char4)(1, 2, 3, 9));
    o[4] = as_uint(s2 / (short2)(-3, 7)) ^ as_uint(rotate(s2, (short2)(5, 17))) ^ as_uint(as_ushort2(s2) << (ushort2)(3, 20));
    uchar8 c8 = vload8(g & 7, (global const uchar *)a);
    o[5] = as_uint(convert_char4(c8.s0246)) ^ as_uint(convert_uchar4(c8.s1357 + c8.s0246));
    rec r[4];
    for (int i = 0; i < 4; i++) {
        r[i].tag = (uchar)(x >> (8 * i));
        r[i].s = (short)(y >> (4 * i));
        r[i].v = x ^ (y << i);
        r[i].w = ((ulong)x << i) * y;
        r[i].f = (float)(x & 255u) * 0.5f + i;
    }
    rec *p = &r[(x ^ y) & 3];
    o[6] = p->tag + (uint)p->s + p->v + (uint)(p->w >> 7) + as_uint(p->f);
}
