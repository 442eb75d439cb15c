// Where convergent calls were written, for test_source_scopes: `// IN` marks one written in a loop that
// the CFG places after it (a break or return path), `// AFTER` one written after a loop. After a while, a do
// and a for(;;) written in an if's block, in a for's break path, a while(1)'s, a do's return path.
kernel void shapes(global uint *r, global const uint *n, uint c)
{
    size_t i = get_global_id(0);
    uint m = n[i];
    uint a = 0;
    if (c) {
        uint k = 0;
        while (k < m) {
            a += k;
            k++;
        }
        a += sub_group_reduce_add(a);            // AFTER while
    }
    uint j = 0;
    do {
        a += j * 3;
        j++;
    } while (j < m);
    a += sub_group_reduce_min(a);                // AFTER do
    for (uint t = 0; t < m; t++) {
        if (t * 7 > m + a) {
            a += sub_group_reduce_max(t);        // IN for
            break;
        }
        a ^= t;
    }
    while (1) {
        if (sub_group_broadcast_first(m) == m) {
            a += sub_group_reduce_add(m);        // IN while1
            break;
        }
    }
    if (c > 1) {
        for (;;) {
            if (sub_group_broadcast_first(a) == a)
                break;
        }
        a += sub_group_reduce_add(a);            // AFTER for2
    }
    do {
        if (sub_group_broadcast_first(a) == a) {
            r[i] = sub_group_reduce_add(a);      // IN do2
            return;
        }
        a++;
    } while (a < 1000);
    r[i] = a;
}
