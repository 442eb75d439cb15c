#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer B { int v[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  for (int k = 0; k < 4; k++) { if (v[i] > k) break; v[i] += k; }
}
