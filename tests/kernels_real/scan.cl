// Inclusive prefix sums per work-group (Hillis-Steele), reading into a register between two barriers
// in every step of the loop.
kernel void scan(global int *out, global const int *in, local int *buf)
{
    int lid = get_local_id(0), n = get_local_size(0);
    buf[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < n; d <<= 1) {
        int add = lid >= d ? buf[lid - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        buf[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = buf[lid];
}
