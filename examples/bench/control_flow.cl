// RUN: kernel=multi_exit global=64 local=16 out:int[64]=zero data:int[128]=rand(-9,9) key:int=4
// RUN: kernel=goto_retry global=64 local=16 out:int[64]=zero data:int[64]=rand(0,1000)
// RUN: kernel=switch_machine global=64 local=16 out:int[64]=zero data:int[96]=rand(0,7)
// RUN: kernel=binary_search global=64 local=16 out:int[64]=zero sorted:int[64]=iota keys:int[64]=rand(-4,70) n:int=64
// RUN: kernel=collatz global=64 local=16 out:int[64]=zero start:int[64]=rand(1,200)
// RUN: kernel=mandelbrot global=64 local=16 out:int[64]=zero limit:int=48
// RUN: kernel=private_sort global=64 local=16 out:int[64]=zero data:int[512]=rand(-50,50) n:int=7
// RUN: kernel=gcd global=64 local=16 out:int[64]=zero a:int[64]=rand(1,500) b:int[64]=rand(1,500)
// RUN: kernel=nested_exit global=64 local=16 out:int[64]=zero grid:int[256]=rand(0,40) rows:int=8 cols:int=8
// RUN: kernel=early_exits global=64 local=16 out:int[64]=zero data:int[64]=rand(-100,100)
// RUN: kernel=skip_continue global=64 local=16 out:int[64]=zero data:int[128]=rand(-20,20) n:int=40
// RUN: kernel=count_words global=64 local=16 out:int[64]=zero text:uchar[128]=rand(30,100) n:int=48
// Twelve control-flow kernels for the Gen code-quality benchmark (tools/bench_gen_quality.py): loops
// with several exits, goto, switch, binary search, Collatz, Mandelbrot, a private array sort. Every
// loop's trip count comes from the data, so IGC (the anchor) keeps the loops as loops.

kernel void multi_exit(global int *out, global const int *data, int key)
{
    int gid = get_global_id(0);
    int i = gid, how = 0;
    while (i < gid + 48) {
        int v = data[i];
        if (v == key) { how = 1; break; }
        if (v == -key) { how = 2; break; }
        if (v == 0 && i > gid + 8) { how = 3; break; }
        i++;
    }
    out[gid] = how * 1000 + (i - gid);
}

kernel void goto_retry(global int *out, global const int *data)
{
    int gid = get_global_id(0);
    int x = data[gid], tries = 0;
again:
    x = (x * 7 + 3) % 1009;
    tries++;
    if (x % 5 != 0 && tries < 40)
        goto again;
    if (x % 2 == 0 && tries < 40)
        goto again;
    out[gid] = x + tries * 10000;
}

kernel void switch_machine(global int *out, global const int *data)
{
    int gid = get_global_id(0);
    int state = 0, acc = 0;
    for (int i = 0; i < 32; i += 1 + (state & 1)) {
        switch ((data[gid + i] + state) & 7) {
        case 0: acc += 3; state = 1; break;
        case 1: acc -= 1;
        case 2: acc *= 2; state = 2; break;
        case 3: state = acc & 3; break;
        case 5: acc ^= i; break;
        case 6: if (acc > 100) { i = 32; } break;
        default: acc += i; state = 0; break;
        }
    }
    out[gid] = acc * 4 + state;
}

kernel void binary_search(global int *out, global const int *sorted, global const int *keys, int n)
{
    int gid = get_global_id(0);
    int key = keys[gid], lo = 0, hi = n - 1, found = -1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        int v = sorted[mid];
        if (v == key) { found = mid; break; }
        if (v < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    out[gid] = found;
}

kernel void collatz(global int *out, global const int *start)
{
    int gid = get_global_id(0);
    uint x = start[gid];
    int steps = 0;
    while (x != 1 && steps < 200) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        steps++;
    }
    out[gid] = steps;
}

kernel void mandelbrot(global int *out, int limit)
{
    int gid = get_global_id(0);
    float cr = -2.0f + (gid & 7) * 0.35f, ci = -1.2f + (gid >> 3) * 0.3f;
    float zr = 0.0f, zi = 0.0f;
    int k = 0;
    while (k < limit) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        k++;
    }
    out[gid] = k;
}

kernel void private_sort(global int *out, global const int *data, int n)
{
    int gid = get_global_id(0);
    int a[8];
    int m = min(n, 8);
    for (int i = 0; i < m; i++)
        a[i] = data[gid * 8 + i] ^ i;
    for (int i = 1; i < m; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
    int sum = 0;
    for (int i = 0; i < m; i++)
        sum = sum * 3 + a[i];
    out[gid] = sum;
}

kernel void gcd(global int *out, global const int *a, global const int *b)
{
    int gid = get_global_id(0);
    int x = a[gid], y = b[gid];
    while (y != 0) {
        int t = x % y;
        x = y;
        y = t;
    }
    out[gid] = x;
}

kernel void nested_exit(global int *out, global const int *grid, int rows, int cols)
{
    int gid = get_global_id(0);
    int target = gid & 31, where = -1;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int v = grid[(r * cols + c + gid) & 255];
            if (v == target) { where = r * 16 + c; goto done; }
            if (v > 38) break;
        }
    }
done:
    out[gid] = where;
}

kernel void early_exits(global int *out, global const int *data)
{
    int gid = get_global_id(0);
    int v = data[gid];
    if (v < -50) { out[gid] = -1; return; }
    if (v > 50) { out[gid] = 1; return; }
    int s = 0;
    for (int i = 0; i < (v & 15); i++) {
        s += v * i;
        if (s > 400) { out[gid] = s; return; }
    }
    out[gid] = s + 7;
}

kernel void skip_continue(global int *out, global const int *data, int n)
{
    int gid = get_global_id(0);
    int s = 0, seen = 0;
    for (int i = 0; i < n; i++) {
        int v = data[gid + i];
        if (v < 0) continue;
        if ((v & 3) == 1) { s -= v; continue; }
        s += v;
        if (++seen == 12) break;
    }
    out[gid] = s * 100 + seen;
}

kernel void count_words(global int *out, global const uchar *text, int n)
{
    int gid = get_global_id(0);
    int words = 0, in_word = 0, len = 0, longest = 0;
    for (int i = gid; i < n + gid; i++) {
        uchar ch = text[i];
        if (ch < 48) {
            if (in_word) { words++; longest = max(longest, len); }
            in_word = 0;
            len = 0;
        } else {
            in_word = 1;
            len++;
        }
    }
    out[gid] = words * 100 + max(longest, len);
}
