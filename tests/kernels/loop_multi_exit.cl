// RUN: global=64 local=16 out:int[64]=zero data:int[96]=rand(-9,9) key:int=4
// A search loop with three exits: found the key, hit a sentinel, or ran out of the window.
kernel void loop_multi_exit(global int *out, global const int *data, int key)
{
    int gid = get_global_id(0);
    int i = gid;
    int end = gid + 32;
    int how = 0;
    while (i < end) {
        int v = data[i];
        if (v == key) {
            how = 1;
            break;
        }
        if (v == -key) {
            how = 2;
            break;
        }
        i++;
    }
    out[gid] = how * 1000 + (i - gid);
}
