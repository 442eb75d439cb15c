// Included with -I tests/kernels_real/include; ORDER and SCALE come from -D.
inline int poly(int x) { int r = 0; for (int k = 0; k <= ORDER; k++) r = r * x + k + 1; return r; }
