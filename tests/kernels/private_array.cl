// RUN: global=64 local=16 out:int[512]=zero in:int[512]=rand(-1000,1000)
// Insertion sort of eight values in a private array indexed with data-dependent indices.
kernel void private_array(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int a[8];
    for (int i = 0; i < 8; i++)
        a[i] = in[gid * 8 + i];
    for (int i = 1; i < 8; i++) {
        int v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
    for (int i = 0; i < 8; i++)
        out[gid * 8 + i] = a[i];
}
