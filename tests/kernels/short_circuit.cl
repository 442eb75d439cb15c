// RUN: global=64 local=16 out:int[64]=zero a:int[64]=rand(-10,10) b:int[64]=rand(-10,10) n:int=64
// && and || whose right-hand sides read memory that is only in bounds when the left-hand side allows it.
kernel void short_circuit(global int *out, global const int *a, global const int *b, int n)
{
    int gid = get_global_id(0);
    int r = 0;
    if (gid + 1 < n && a[gid + 1] > a[gid])
        r |= 1;
    if (gid == 0 || b[gid - 1] < 0)
        r |= 2;
    if ((a[gid] > 0 && b[gid] > 0) || (a[gid] < 0 && b[gid] < 0))
        r |= 4;
    if (!(a[gid] == 0 || b[gid] == 0) && (gid & 1 || a[gid] * b[gid] > 20))
        r |= 8;
    int k = gid;
    while (k > 0 && (a[k] != b[k] || k > 50))
        k--;
    out[gid] = r + 16 * k;
}
