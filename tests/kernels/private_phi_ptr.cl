// RUN: global=64 local=32 out:uint[64]=zero in:uint[64]=rand(0,100000)
// A store through a pointer that a phi merges between private variables: clang -O2 splits q
// into one variable per element (SROA) and leaves `q[(uint)(c || f)]` as a phi of the variable for 1
// and a select of the variables for 0 and 1 (f is costly, so the short circuit stays a branch; reduced
// from `reconverge fuzz --seed 120072 --mode goto`). split_private_selects must carry a tag through the
// phi and select instead, for SPIR-V and Gen to take it.
kernel void private_phi_ptr(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    uint v = in[gid];
    uint q[4];
    for (uint c = 0u; c < 4u; c++)
        q[c] = v + c * 5u;
    q[(uint)((v & 3u) == 1u || (float)(as_int(v * 5u) % 4096) <= (float)(as_int(v * 7u) % 4096))] = v + 1u;
    uint h = 0u;
    for (uint c = 0u; c < 4u; c++)
        h = h * 31u + q[c];
    out[gid] = h;
}
