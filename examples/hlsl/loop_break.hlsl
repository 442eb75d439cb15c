// Wave operations in a divergent loop with a break and a continue, then in a switch with a fall-through.
// clang -O2 moves the WaveActiveSum of the break into the loop's exit block; its convergence-control token
// (the loop's) still says it runs in the iteration the lanes break in, among the lanes breaking then.
RWStructuredBuffer<uint> Data : register(u0);
RWStructuredBuffer<uint> Out : register(u1);

[numthreads(32, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
  uint v = Data[tid.x];
  uint acc = 0;
  for (uint i = 0; i < 16; i++) {
    if (v % 5 == i) {
      acc += WaveActiveSum(i + 1) * 100;
      break;
    }
    if (WaveActiveAnyTrue(((v >> i) & 1) != 0))
      acc += WaveActiveCountBits(v > i * 4);
    if ((v & 3) == 0 && i == 2)
      continue;
    acc += WaveActiveMax(v + i) & 7;
  }
  switch (v % 4) {
  case 0:
    acc += WaveActiveSum(v);
    break;
  case 1:
    acc += WaveActiveMin(v) * 3;
  case 2:                        // case 1 falls through
    acc ^= WaveGetLaneIndex();
    break;
  default:
    acc += WaveActiveCountBits(true) << 8;
  }
  Out[tid.x] = acc;
}
