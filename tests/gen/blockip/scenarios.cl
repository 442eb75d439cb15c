// Control-flow shapes from Beignet's unstructured-branch and lower-return unit tests, written anew: gotos
// into a loop's middle (an irreducible CFG), forward gotos across each other, returns under compound
// conditions, a plain if/else. Expected outputs (16 work-items per group) are Beignet's published ones.

kernel void into_loop(global const int *in, global int *out) {
  int i = (int)get_global_id(0);
  out[i] = in[i];
  if (out[i] >= 0)
    goto step;
  do {
    out[i] = 1;
step:
    i += (int)get_local_size(0);
  } while (i < 32);
}

kernel void crossing_gotos(global const int *in, global int *out) {
  int i = (int)get_global_id(0);
  out[i] = in[i];
  if (out[i] >= 0)
    goto minus;
  out[i] = 1;
  if (in[i] <= 2)
    goto plus;
minus:
  out[i] -= 2;
plus:
  out[i] += 2;
}

kernel void three_labels(global const int *in, global int *out) {
  int i = (int)get_global_id(0);
  out[i] = in[i];
  if (out[i] < 0)
    goto minus;
  out[i] = 1;
  if (out[i] > in[i])
    goto times;
  out[i]++;
  if (in[i] <= 2)
    goto plus;
minus:
  out[i] -= 2;
plus:
  out[i] += 2;
times:
  out[i] *= 3;
}

kernel void skip_decrement(global const int *in, global int *out) {
  int i = (int)get_global_id(0);
  out[i] = in[i];
  if (out[i] >= 2)
    goto minus;
  out[i] = 1;
  if (in[i] < 2)
    goto plus;
  out[i]--;
minus:
  out[i] -= 2;
plus:
  out[i] += 2;
}

kernel void return_under_or(global int *in, global int *out) {
  const int i = (int)get_global_id(0);
  out[i] = i;
  if (i < 11 && (in[i] > 0 || in[i + 16] < 2))
    return;
  out[i] = in[i];
}

kernel void plain_if_else(global int *in, global int *out) {
  int i = (int)get_global_id(0);
  out[i] = in[i];
  if (out[i] >= 0) {
    out[i] = in[i + 1];
    in[i] = 1;
  } else {
    out[i]--;
    in[i] = 2;
  }
}
