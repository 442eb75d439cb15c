// C = A * B for N x N int matrices (N a multiple of TILE), tiles of A and B staged in host-sized
// __local buffers (TILE * TILE ints each), one barrier pair per tile step.
#define TILE 8
kernel void tiled_matmul(global int *c, global const int *a, global const int *b, int n,
                         local int *ta, local int *tb)
{
    int row = get_global_id(1), col = get_global_id(0);
    int ly = get_local_id(1), lx = get_local_id(0);
    int acc = 0;
    for (int t = 0; t < n / TILE; t++) {
        ta[ly * TILE + lx] = a[row * n + t * TILE + lx];
        tb[ly * TILE + lx] = b[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ly * TILE + k] * tb[k * TILE + lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
