#version 430
// The loop probe (gpu/program.cpp, probe_loop_cap): one invocation runs a loop whose bound comes
// from a uniform, so no compiler can unroll it, and counts the iterations it ran. llvmpipe counts
// every loop iteration of an invocation against a cap and quietly leaves its loops once it is
// reached; a driver without a cap runs them all. Each iteration reads a buffer, so the count
// cannot be replaced by the bound.
// ones is (2): 1u, 1u; count is (1).
layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer OnesBuf { uint ones[]; };
layout(std430, binding = 1) writeonly buffer CountBuf { uint count; };
uniform int bound;

void main() {
  uint c = 0u;
  for (int i = 0; i < bound; ++i) c += ones[i & 1];
  count = c;
}
