// RUN: global=4,4,4 local=2,2,2 out:int[64]=zero in:int[64]=iota
// A 3-D NDRange with a neighbourhood read whose extent depends on the position.
kernel void three_dim(global int *out, global const int *in)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int nx = get_global_size(0), ny = get_global_size(1);
    int idx = (z * ny + y) * nx + x;
    int s = 0;
    for (int dz = -1; dz <= 1; dz++) {
        int zz = z + dz;
        if (zz < 0 || zz >= get_global_size(2))
            continue;
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx;
            if (xx < 0 || xx >= nx)
                continue;
            s += in[(zz * ny + y) * nx + xx];
        }
    }
    out[idx] = s * 10 + get_work_dim() + (int)get_local_linear_id() * 100;
}
