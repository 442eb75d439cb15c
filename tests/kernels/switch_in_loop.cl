// RUN: global=64 local=16 out:int[64]=zero prog:int[256]=rand(0,5)
// A tiny bytecode interpreter: a switch inside a loop, with break, continue and return in the cases.
kernel void switch_in_loop(global int *out, global const int *prog)
{
    int gid = get_global_id(0);
    int pc = 0;
    int acc = gid;
    for (int fuel = 0; fuel < 40; fuel++) {
        int op = prog[(gid * 4 + pc) % 256];
        pc++;
        switch (op) {
        case 0:
            acc += 3;
            break;
        case 1:
            acc -= pc;
            continue;
        case 2:
            if (acc > 50) {
                out[gid] = acc + 100000;
                return;
            }
            acc *= 2;
            break;
        case 3:
            pc += 2;
            break;
        case 4:
            acc = acc / 2;
            continue;
        default:
            acc ^= 5;
        }
        acc -= 1;
    }
    out[gid] = acc;
}
