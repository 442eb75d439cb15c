// A 16-bin histogram: each work-group counts into __local bins with atomic_inc, then adds them to the
// global bins with atomic_add; lanes of every group contend on the same addresses.
#define BINS 16
kernel void histogram(global uint *bins, global const uint *data, local uint *counts)
{
    int lid = get_local_id(0);
    for (int i = lid; i < BINS; i += get_local_size(0))
        counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&counts[data[get_global_id(0)] % BINS]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < BINS; i += get_local_size(0))
        atomic_add(&bins[i], counts[i]);
}
