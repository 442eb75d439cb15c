// a natural do-while, then a goto into a second loop's middle: the function is irreducible, its first
// loop is not (tests/gen/test_cf_regions.py: the hybrid still runs that loop as a region)
kernel void mixed(global const int *in, global int *out) {
  int i = (int)get_global_id(0);
  int s = 0;
  int k = 0;
  do {
    s += in[k];
    k++;
  } while (k < 4);
  out[i] = s;
  if (out[i] >= 0)
    goto step;
  do {
    out[i] = 1;
step:
    i += (int)get_local_size(0);
  } while (i < 32);
}
