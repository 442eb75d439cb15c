// RUN: global=64 local=16 out:int[64]=-9 codes:int[256]=rand(0,9) base:int=3
// A while loop around a switch whose cases return, break out of the loop (goto) or fall through.
kernel void switch_return_loop(global int *out, global const int *codes, int base)
{
    int gid = get_global_id(0);
    int pos = gid * 3;
    int v = base;
    int n = 0;
    while (n < 16) {
        int c = codes[pos % 256];
        pos += c + 1;
        n++;
        switch (c) {
        case 9:
            out[gid] = -v;
            return;
        case 8:
            goto out_of_loop;
        case 0:
        case 1:
            v += 2;
        case 2:
            v *= 2;
            if (v > 1000)
                v -= 999;
            break;
        case 5:
            continue;
        default:
            v -= c;
        }
        v += n;
    }
out_of_loop:
    out[gid] = v * 100 + n;
}
