// RUN: global=64 local=16 out:int[64]=zero in:int[128]=rand(0,7)
// A switch inside two nested loops whose cases break the switch, continue the inner loop,
// continue the outer loop (goto) or leave the whole nest (goto).
kernel void nested_switch_loop(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int acc = 0;
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            int op = in[(gid + i * 6 + j) % 128];
            switch (op) {
            case 0:
                acc += 1;
                break;
            case 1:
                acc += 10;
                continue;
            case 2:
                goto next_outer;
            case 3:
                if (acc > 40)
                    goto done;
                acc *= 2;
                break;
            case 4:
            case 5:
                acc -= op;
                break;
            default:
                acc += j;
            }
            acc += 100;
        }
next_outer:
        acc += 1000;
    }
done:
    out[gid] = acc;
}
