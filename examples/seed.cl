// RUN: global=16 local=8 out:int[16]=zero foo:int[16]=rand(0,1) bar:int[16]=rand(0,6) baz:int[16]=rand(0,1)
// The example of Mesa's NIR control-flow document: if (foo) return; while (bar) { if (baz) continue; ... }
kernel void seed(global int *out, global const int *foo, global const int *bar, global const int *baz)
{
    int i = get_global_id(0);
    int n = bar[i];
    if (foo[i])
        return;
    while (n) {
        n--;
        if (baz[i] && (n & 1))
            continue;
        out[i] += n;
    }
}
