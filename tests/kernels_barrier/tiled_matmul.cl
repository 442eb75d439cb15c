// Tiled integer matrix multiply, C = A * B (all n x n, row-major, n a multiple of 8): two 8x8 __local
// tiles, a 2-D NDRange of 8x8 work-groups, two barriers per tile step.
#define TILE 8
kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void tiled_matmul(global int *c, global const int *a, global const int *b, int n)
{
    local int ta[TILE][TILE];
    local int tb[TILE][TILE];
    int col = get_global_id(0), row = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    int acc = 0;
    for (int t = 0; t < n / TILE; t++) {
        ta[ly][lx] = a[row * n + t * TILE + lx];
        tb[ly][lx] = b[(t * TILE + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
