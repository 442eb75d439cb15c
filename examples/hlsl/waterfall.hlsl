// The waterfall loop: each pass, the lanes holding the smallest key left reduce among themselves and leave.
// Every lane must get the sum over exactly the lanes of its wave that share its key, at -O0 and at -O2,
// where clang moves the reduction out of the loop into its exit block.
RWStructuredBuffer<uint> Keys : register(u0);
RWStructuredBuffer<int> Values : register(u1);
RWStructuredBuffer<int> Sums : register(u2);

[numthreads(32, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
  uint key = Keys[tid.x];
  int value = Values[tid.x];
  int sum = 0;
  for (;;) {
    uint first = WaveActiveMin(key);
    if (key == first) {
      sum = WaveActiveSum(value);
      break;
    }
  }
  Sums[tid.x] = sum;
}
