// Inlined copies (the scope chain continues at inlinedAt's call site) and a goto out of two loops, for
// test_source_scopes.
uint helper_sum(uint x) { return sub_group_reduce_add(x); }   // IN helper

uint find_turn(uint key, uint x)
{
    for (;;) {
        if (sub_group_broadcast_first(key) == key)
            return helper_sum(x);
    }
}

kernel void inl(global uint *r, global const uint *n)
{
    size_t i = get_global_id(0);
    uint m = n[i];
    uint a = find_turn(m, 1u);
    for (uint o = 0; o < m; o++) {
        for (uint p = 0; p < 4; p++) {
            if (sub_group_broadcast_first(p + o) == m) {
                a += sub_group_reduce_add(p);   // IN nested
                goto out;
            }
        }
    }
out:
    a += sub_group_reduce_add(a);               // AFTER goto
    r[i] = a;
}
