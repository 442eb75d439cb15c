// RUN: global=64 local=16 out:int[64]=zero in:int[256]=rand(-100,100) n:int=5
// A private array filled, copied and shifted by loops of a run-time trip count, which LLVM's loop idiom
// recognition at -O2 makes llvm.memset (a zero fill, a byte fill), llvm.memcpy (from global memory) and
// llvm.memmove (a[i] = a[i + 1]) calls of a run-time length: the reader makes each a loop of byte stores
// (lowering/frontend/mem_loops.py).
kernel void runtime_memset(global int *out, global const int *in, int n) {
    int gid = get_global_id(0);
    int a[16];
    int b[16];
    char c[24];
    for (int i = 0; i < 16; i++) {
        a[i] = in[(gid + i) & 255];
        b[i] = in[(gid * 3 + i) & 255];
    }
    for (int i = 0; i < 24; i++)
        c[i] = (char)(in[(gid + 2 * i) & 255]);
    int len = (gid + n) & 15;
    for (int i = 0; i < len; i++)
        a[i] = 0;
    for (int i = 0; i < len; i++)
        b[i] = in[gid + i];
    for (int i = 0; i < len + 8; i++)
        c[i] = (char)(gid + n);
    for (int i = 0; i < ((gid * 7 + n) & 7); i++)
        b[i] = b[i + 1];
    int h = 0;
    for (int i = 0; i < 16; i++)
        h = h * 31 + a[i] * 7 + b[i];
    for (int i = 0; i < 24; i++)
        h = h * 5 + c[i];
    out[gid] = h;
}
