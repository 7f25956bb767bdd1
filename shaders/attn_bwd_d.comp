#version 430
// The backward's D, one invocation per query row: D_i = rowsum(dO ∘ O)_i, what both backward
// lessons use (the flash one reads only O and dO, N·d each, never P). With WITH_P (attn-backward)
// the row also sums rowsum(P ∘ dP)_i, the same number by the softmax's Jacobian, read from the
// N × N matrices in HBM, and writes its row of dS = P ∘ (dP − D).
// The grid is (N / 64, heads): head h = gl_WorkGroupID.y.
// dO, O are (heads, N, D); Dout is (heads, N, 2): D from O, D from P (0 without WITH_P);
// P, dP, dS are (heads, N, N).
#ifndef WITH_P
#define WITH_P 0
#endif
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer dOBuf { float dO[]; };
layout(std430, binding = 1) readonly buffer OBuf { float O[]; };
layout(std430, binding = 2) writeonly buffer DBuf { float Dout[]; };
#if WITH_P
layout(std430, binding = 3) readonly buffer PBuf { float P[]; };
layout(std430, binding = 4) readonly buffer dPBuf { float dP[]; };
layout(std430, binding = 5) writeonly buffer dSBuf { float dS[]; };
#endif
uniform int N;

void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i >= N) return;
  uint row = gl_WorkGroupID.y * uint(N) + uint(i);
  uint at = row * uint(D);
  float from_o = 0.0;
  for (int k0 = 0; k0 < D; k0 += kUnroll)
    for (int kk = 0; kk < kUnroll; ++kk) {
      int k = k0 + kk;
      if (k < D) from_o = R(from_o + R(dO[at + uint(k)] * O[at + uint(k)]));
    }
  float from_p = 0.0;
#if WITH_P
  uint p0 = row * uint(N);
  for (int j = 0; j < N; ++j) from_p = R(from_p + R(P[p0 + uint(j)] * dP[p0 + uint(j)]));
  // dS = P ∘ (dP − D), with D = rowsum(dO ∘ O) as FlashAttention uses it.
  for (int j = 0; j < N; ++j) dS[p0 + uint(j)] = R(P[p0 + uint(j)] * R(dP[p0 + uint(j)] - from_o));
#endif
  Dout[row * 2u] = from_o;
  Dout[row * 2u + 1u] = from_p;
}
