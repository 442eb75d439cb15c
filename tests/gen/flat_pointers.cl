#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void two(global int *out, global int *a, global int *b) {
  int i = get_global_id(0);
  global int *p = (i & 1) ? a : b;
  p[i] = p[i] * 3 + i;
  out[i] = p[(i + 1) & 31];
}
kernel void stored(global int *out, global int *a, global int *b) {
  int i = get_global_id(0);
  global int *table[2] = {a, b};
  volatile int k = i % 3 == 0;
  global int *p = table[k];
  out[i] = p[i] + 1;
  ((global short *)p)[2 * i + 1] = (short)i;
}
kernel void fromint(global long *out, global int *a) {
  int i = get_global_id(0);
  uintptr_t base = (uintptr_t)a;
  global int *p = (global int *)(base + 4 * (uintptr_t)((i * 7) & 31));
  out[i] = *p + (long)(((uintptr_t)p - base) >> 2);
}
kernel void halves(global half *out, global half *a, global half *b) {
  int i = get_global_id(0);
  global half *p = (i & 1) ? a : b;
  p[i] = p[i] * (half)3.0f + (half)0.5f;
  out[i] = p[(i + 1) & 31];
}
