// make bench's SPIR-V size and one-kernel compile rows (tools/bench_all.py): a private array written
// through unaligned (byte) stores, sorted, and folded into one word per work-item. private_array.comp
// is the same computation in GLSL, for glslangValidator -V (and spirv-opt -O on its output).
kernel void private_array(global const uint *in, global uint *out)
{
    uint gid = get_global_id(0);
    uint buf[16];
    private uchar *bytes = (private uchar *)buf;
    for (uint i = 0; i < 16; i++)
        vstore4(as_uchar4(in[gid * 16 + i] * 2654435761u), i, bytes);
    for (uint i = 1; i < 16; i++) {
        uint v = buf[i];
        int j = (int)i - 1;
        while (j >= 0 && buf[j] > v) {
            buf[j + 1] = buf[j];
            j--;
        }
        buf[j + 1] = v;
    }
    uint acc = 0;
    for (uint i = 0; i < 16; i++)
        acc = acc * 31u + buf[i];
    out[gid] = acc;
}
