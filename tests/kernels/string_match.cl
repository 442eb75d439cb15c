// RUN: global=64 local=16 out:int[64]=zero text:uchar[96]=rand(97,100) pat:uchar[4]=rand(97,100) m:int=2
// Naive pattern matching: an inner comparison loop with an early exit, inside a bounded scan.
kernel void string_match(global int *out, global const uchar *text, global const uchar *pat, int m)
{
    int gid = get_global_id(0);
    int count = 0, first = -1;
    for (int i = gid; i < gid + 24; i++) {
        int j = 0;
        while (j < m && text[i + j] == pat[j])
            j++;
        if (j == m) {
            if (first < 0)
                first = i - gid;
            count++;
        }
    }
    out[gid] = count * 100 + first;
}
