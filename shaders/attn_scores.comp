#version 430
// attn-naive, kernel 1: S = Q K^T * s with the mask, one invocation per score, written
// to a buffer of N x N floats (the N^2 memory the lesson is about). The grid is
// (N / 16, N / 16, heads): head h = gl_WorkGroupID.z reads its own Q, K and writes its own S.
// Q, K are (heads, N, D) row-major; S is (heads, N, N) row-major.
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) writeonly buffer SBuf { float S[]; };
uniform int N;
uniform float s;

void main() {
  int i = int(gl_GlobalInvocationID.y);
  int j = int(gl_GlobalInvocationID.x);
  if (i >= N || j >= N) return;
  uint h = gl_WorkGroupID.z;
  uint qi = (h * uint(N) + uint(i)) * uint(D), kj = (h * uint(N) + uint(j)) * uint(D);
  float acc = 0.0;
  for (int k0 = 0; k0 < D; k0 += kUnroll)
    for (int kk = 0; kk < kUnroll; ++kk) {
      int k = k0 + kk;
      if (k < D) acc = R(acc + R(Q[qi + uint(k)] * K[kj + uint(k)]));
    }
#if SCALED
  acc = R(acc * s);
#endif
  if (!visible(i, j)) acc = -kInf;
  S[(h * uint(N) + uint(i)) * uint(N) + uint(j)] = acc;
}
