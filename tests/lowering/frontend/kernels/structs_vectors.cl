// RUN: global=8 local=4 out:float[136]=zero x:float4[8]=rand(-3,3) n:int4[8]=rand(-100,100) c:uchar[64]=rand(0,255)
typedef struct { char c; float f; double d; short s[3]; int4 v; } S;
__constant int tab[5] = {3, -1, 4, -1, 5};
__constant float ftab[3] = {0.5f, 1.5f, -2.5f};
kernel void structs_vectors(global float *out, global const float4 *x, global const int4 *n, global const uchar *c)
{
  int i = get_global_id(0);
  __local float4 lv[4];
  S s; s.c = (char)i; s.f = x[i].y; s.d = (double)x[i].z; s.s[0] = 1; s.s[1] = (short)n[i].x; s.s[2] = 3; s.v = n[i];
  S t = s;
  float4 a = x[i];
  lv[get_local_id(0)] = a.wzyx;
  barrier(CLK_LOCAL_MEM_FENCE);
  float4 b = lv[get_local_id(0)];
  float3 f3 = a.xyz * b.zyx;
  int o = i * 16;
  out[o+0] = f3.x + f3.y + f3.z + t.f + (float)t.d + t.s[1] + t.v.w + t.c;
  float8 e = (float8)(a, b);
  float8 e2 = e.s76543210 * e;
  out[o+1] = e2.s0 + e2.s3 + e2.s7 + e2.s5;
  int4 m = n[i];
  int4 q = m / (int4)(3, -2, 5, 7) + m % (int4)(4, 3, -3, 9) + (m << 2) + (m >> 1);
  out[o+2] = (float)(q.x + q.y + q.z + q.w);
  uint4 um = as_uint4(m);
  uint4 uq = um / (uint4)(3u) + (um >> (uint4)(3u));
  out[o+3] = (float)(uq.x + uq.y + uq.z + uq.w);
  int idx = m.x & 3;
  out[o+4] = a[idx] + tab[idx] + ftab[idx % 3] + tab[(i + 1) % 5];
  float4 z = a; z[idx] = 100.0f;
  out[o+5] = z.x + z.y + z.z + z.w;
  uchar4 cv = vload4(i, c);
  out[o+6] = (float)(cv.x + cv.y * 2 + cv.z * 3 + cv.w * 4);
  vstore4(convert_uchar4(cv + (uchar4)(1)), i, (global uchar*)(out + 128));   // past the items' slots: no race
  int4 mx = max(m, (int4)(0)) + min(m, 5) + clamp(m, -3, 3) + as_int4(abs(m));
  out[o+7] = (float)(mx.x + mx.y + mx.z + mx.w);
  float4 fm = fmax(a, 0.5f) + clamp(a, -1.0f, 1.0f) + mix(a, b, 0.5f) + fabs(a) + sqrt(fabs(a));
  out[o+8] = fm.x + fm.y + fm.z + fm.w;
  long l = (long)m.x * 1000000007L + (long)m.y;
  ulong ul = (ulong)l * 3ul;
  out[o+9] = (float)(l % 1000) + (float)(ul >> 40) + (float)popcount(ul);
  int4 cmp = a > b;
  out[o+10] = (float)(cmp.x + cmp.y * 2 + cmp.z * 4 + cmp.w * 8) + (any(cmp) ? 1.0f : 0.0f) + (all(m > -1000) ? 2.0f : 0.0f);

  out[o+11] = 1.0f;
  short2 sh = as_short2(m.x);
  out[o+12] = (float)(sh.x + sh.y);
  char4 ch = as_char4(m.y);
  out[o+13] = (float)(ch.x + ch.y + ch.z + ch.w);
  double dd = (double)a.x * (double)a.y;
  out[o+14] = (float)(dd / 3.0) + (float)sqrt((double)fabs(a.z));
  out[o+15] = (float)(i == 3 ? 1 : 0);
}
