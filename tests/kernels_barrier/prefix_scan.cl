// Work-group inclusive prefix sums (Hillis-Steele), out[g*L + i] = in[g*L] + ... + in[g*L + i] with
// L = get_local_size(0) (at most 64): scan_double double-buffers in a 2 x 64 __local array (one barrier
// per step); scan_two_barriers works in place, reading into a register between two barriers per step.
kernel void scan_double(global int *out, global const int *in)
{
    local int buf[2][64];
    int lid = get_local_id(0), n = get_local_size(0);
    int src = 0;
    buf[0][lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < n; offset <<= 1) {
        int dst = 1 - src;
        if (lid >= offset)
            buf[dst][lid] = buf[src][lid] + buf[src][lid - offset];
        else
            buf[dst][lid] = buf[src][lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        src = dst;
    }
    out[get_global_id(0)] = buf[src][lid];
}

kernel void scan_two_barriers(global int *out, global const int *in)
{
    local int data[64];
    int lid = get_local_id(0), n = get_local_size(0);
    data[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < n; offset *= 2) {
        int add = lid >= offset ? data[lid - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        data[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = data[lid];
}
