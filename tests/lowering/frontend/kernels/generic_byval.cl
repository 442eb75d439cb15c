// RUN: global=8 local=4 out:int[8]=zero in:int[64]=rand(-50,50)
typedef struct { int a; short b[3]; } Rec;
int sum(const int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
void fill(Rec *r, int v) { r->a = v; for (int i = 0; i < 3; i++) r->b[i] = (short)(v + i); }
int total(Rec r) { return r.a + r.b[0] + r.b[1] + r.b[2]; }
kernel void generic_byval(global int *out, global const int *in)
{
  int i = get_global_id(0);
  int priv[4] = {in[i], in[i+1], 7, -3};
  int arr[5] = {0};
  arr[i % 5] = 4;
  Rec r;
  fill(&r, in[i + 8]);
  Rec rs[2] = {r, r};
  rs[1].b[2] = 100;
  out[i] = sum(in + 8 * (i % 7), 8) + sum(priv, 4) + sum(arr, 5) + total(rs[i & 1]);
}
