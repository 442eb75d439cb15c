// RUN: global=64 local=16 out:int[64]=zero sorted:int[128]=iota keys:int[64]=rand(-5,140)
// Binary search with an early exit on a hit, over a sorted (iota) table.
kernel void binary_search(global int *out, global const int *sorted, global const int *keys)
{
    int gid = get_global_id(0);
    int key = keys[gid];
    int lo = 0, hi = 127;
    int probes = 0;
    int pos = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        probes++;
        int v = sorted[mid];
        if (v == key) {
            pos = mid;
            break;
        }
        if (v < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    out[gid] = pos * 100 + probes;
}
