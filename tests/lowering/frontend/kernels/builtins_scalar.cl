// RUN: global=16 local=4 out:float[256]=zero x:float[16]=rand(-3,3) y:float[16]=rand(0.5,4) n:int[16]=rand(-100,100) u:uint[16]=rand(0,4000000000)
kernel void builtins_scalar(global float *out, global const float *x, global const float *y, global const int *n, global const uint *u)
{
  int i = get_global_id(0);
  float a = x[i], b = y[i]; int k = n[i]; uint w = u[i];
  int o = i * 16;
  out[o+0] = sqrt(b) + rsqrt(b) + exp(a) + exp2(a) + log(b) + log2(b) + log10(b);
  out[o+1] = sin(a) + cos(a) + tan(a*0.3f) + atan(a) + atan2(a, b) + tanh(a);
  out[o+2] = pow(b, a) + fabs(a) + floor(a) + ceil(a) + round(a) + trunc(a) + rint(a);
  out[o+3] = fmin(a, b) + fmax(a, b) + mad(a, b, 1.0f) + fma(a, b, 2.0f) + mix(a, b, 0.25f) + clamp(a, -1.0f, 1.0f);
  out[o+4] = copysign(b, a) + fmod(b, 1.5f) + hypot(a, b) + cbrt(a) + step(0.0f, a) + smoothstep(-1.0f, 1.0f, a);
  out[o+5] = (float)(min(k, 3) + max(k, -3) + clamp(k, -10, 10) + abs(k) + popcount(w) + clz(w) + (int)rotate(w, 5u));
  out[o+6] = (float)(mul_hi(k, 123456789) + (int)mul_hi(w, 3000000000u) + (int)min(w, 5u) + (int)max(w, 7u) + (int)clamp(w, 3u, 100000u));
  out[o+7] = native_sqrt(b) + native_exp(a) + native_log(b) + native_recip(b) + native_divide(a, b) + native_sin(a) + powr(b, 0.5f) + pown(b, 3);
  float4 v = (float4)(a, b, a*b, a-b);
  float4 v2 = v * 2.0f + (float4)(1.0f);
  out[o+8] = dot(v, v2) + length(v) + distance(v, v2);
  float4 nv = normalize(v2);
  out[o+9] = nv.x + nv.y * 2 + nv.z * 3 + nv.w * 4;
  float4 cr = cross(v, v2);
  out[o+10] = cr.x + cr.y * 2 + cr.z * 3;
  int4 iv = (int4)(k, k+1, k*3, -k);
  int4 sel = select(iv, iv * 2, iv > 0);
  out[o+11] = (float)(sel.x + sel.y + sel.z + sel.w) + select(a, b, k > 0);
  out[o+12] = (float)(isnan(a) + isinf(b) + isfinite(a) + signbit(a) + isless(a, b) + isgreater(a, b));
  int4 c4 = convert_int4(v2);
  float4 f4 = convert_float4(iv);
  out[o+13] = (float)(c4.x + c4.y + c4.z + c4.w) + f4.x + f4.w;
  out[o+14] = degrees(a) + radians(b) + sign(a) + as_float(as_int(a) ^ 0x80000000) + (float)abs_diff(k, 5) + (float)add_sat(k*20000000, 2000000000) + (float)sub_sat(w, 2000000000u);
  out[o+15] = (float)(hadd(k, 7) + rhadd(k, 8) + (int)upsample((short)k, (ushort)w) + mad24(k, 3, 1) + mul24(k, k) + mad_hi(k, k, 1) + ctz(w));
}
