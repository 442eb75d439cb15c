#version 450
// private_array.cl in GLSL (GLSL has no byte stores: each word is stored whole).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint data[]; } inb;
layout(std430, binding = 1) writeonly buffer Out { uint data[]; } outb;

void main()
{
    uint gid = gl_GlobalInvocationID.x;
    uint buf[16];
    for (uint i = 0u; i < 16u; i++)
        buf[i] = inb.data[gid * 16u + i] * 2654435761u;
    for (uint i = 1u; i < 16u; i++) {
        uint v = buf[i];
        int j = int(i) - 1;
        while (j >= 0 && buf[j] > v) {
            buf[j + 1] = buf[j];
            j--;
        }
        buf[j + 1] = v;
    }
    uint acc = 0u;
    for (uint i = 0u; i < 16u; i++)
        acc = acc * 31u + buf[i];
    outb.data[gid] = acc;
}
