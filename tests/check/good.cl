// RUN: global=32 local=8 out:int[32]=zero grid:int[256]=rand(-20,20)
// Leaving two loops at once (a multi-level break), a continue of the outer loop from the inner one,
// and an early return: the shapes LLVM's -O2 CFG keeps and NIR can only say with ladders.
kernel void nested_break(global int *out, global const int *grid)
{
    int id = get_global_id(0);
    int sum = 0;
    for (int y = 0; y < 16; y++) {
        for (int x = 0; x < 16; x++) {
            int v = grid[(y * 16 + x + id) & 255];
            if (v == 19)
                goto done;                 // leaves both loops
            if (v < -15)
                goto next_row;             // continues the outer loop
            if (v == 7 && id == 3)
                return;                    // leaves the kernel
            sum += v;
        }
    next_row:;
    }
done:
    out[id] = sum;
}
