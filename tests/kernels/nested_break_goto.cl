// RUN: global=32 local=8 out:int[32]=zero grid:int[512]=rand(0,99) target:int=97
// A three-level loop nest left with a forward goto from the innermost loop.
kernel void nested_break_goto(global int *out, global const int *grid, int target)
{
    int gid = get_global_id(0);
    int steps = 0;
    int a, b, c;
    for (a = 0; a < 4; a++) {
        for (b = 0; b < 4; b++) {
            for (c = 0; c < 4; c++) {
                steps++;
                if (grid[(gid * 7 + a * 16 + b * 4 + c) % 512] >= target)
                    goto found;
            }
        }
    }
    out[gid] = -steps;
    return;
found:
    out[gid] = a * 100 + b * 10 + c + steps * 1000;
}
