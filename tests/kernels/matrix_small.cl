// RUN: global=16 local=4 out:float[256]=zero a:float[256]=rand(-1,1) b:float[256]=rand(-1,1)
// A 4x4 matrix product per work-item through private arrays, with a row skipped by continue.
kernel void matrix_small(global float *out, global const float *a, global const float *b)
{
    int gid = get_global_id(0);
    float m[16], n[16];
    for (int i = 0; i < 16; i++) {
        m[i] = a[gid * 16 + i];
        n[i] = b[gid * 16 + i];
    }
    for (int r = 0; r < 4; r++) {
        if (m[r * 4] > 0.9f) {
            for (int c = 0; c < 4; c++)
                out[gid * 16 + r * 4 + c] = -1.0f;
            continue;
        }
        for (int c = 0; c < 4; c++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++)
                s += m[r * 4 + k] * n[k * 4 + c];
            out[gid * 16 + r * 4 + c] = s;
        }
    }
}
