kernel void bad(global int *o) { o[0] = undefined_thing; }
