// Uniform branches and scalar values on Gen (tests/gen/test_gen_uniform.py). in[0] and n are the same
// for every lane; gid, and what is loaded at gid, are not.

// A uniform if inside the else arm of a divergent one: the lanes of the then arm are disabled there with
// f0.0 bits still set by the divergent if's compare; the uniform if's jmpi must not see them.
kernel void stale_flags(global const int *in, global int *out) {
  int gid = get_global_id(0);
  int key = in[0];
  if (in[gid] & 1) {
    out[gid] = 1;
  } else {
    if (key == 12345)
      out[gid] = 2;
  }
}

// A divergent loop (lanes leave when i reaches their id) with a uniform break on a loaded value and a
// uniform if on the counter; the counter read after the loop differs per lane (temporal divergence).
kernel void divergent_loop(global const int *in, global int *out, int n) {
  int gid = get_global_id(0);
  int i = 0, s = 0;
  for (; i < n; i++) {
    if (i == (in[gid] & 7))
      break;
    if (in[i] == 99)
      break;
    if (i == 3)
      s += 100;
    s += i;
  }
  out[gid] = s * 64 + i;
}

// A uniform loop nested in a divergent if, its counter in a scalar register, with a continue on a
// uniform condition and a divergent one.
kernel void uniform_nest(global const int *in, global int *out, int n) {
  int gid = get_global_id(0);
  int s = 0;
  if (gid % 3 != 1) {
    for (int i = 0; i < n; i++) {
      if (i == 2)
        continue;
      if ((in[gid] + i) % 4 == 0)
        continue;
      s = s * 3 + i;
    }
  }
  out[gid] = s;
}
