#version 430
// attn-naive, kernel 2: P = softmax(S) row by row, one invocation per row (safe softmax in
// registers), P written back to a second N x N buffer. The grid is (N / 64, heads): head
// h = gl_WorkGroupID.y.
// S, P are (heads, N, N) row-major; stats is (heads, N, 2): m, l of each row.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer SBuf { float S[]; };
layout(std430, binding = 1) buffer PBuf { float P[]; };
layout(std430, binding = 2) writeonly buffer StatsBuf { float stats[]; };
uniform int N;

void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i >= N) return;
  uint row = gl_WorkGroupID.y * uint(N) + uint(i);
  uint at = row * uint(N);
  // 1. max, 2. sum of exp(S - m), 3. normalize.
  float m = m_init;
  for (int j = 0; j < N; ++j) m = max_of(m, S[at + uint(j)]);
  float l = l_init;
  for (int j = 0; j < N; ++j) {
    float p = exp_diff(S[at + uint(j)], m);
    P[at + uint(j)] = p;
    l = R(l + p);
  }
  for (int j = 0; j < N; ++j) P[at + uint(j)] = div_mass(P[at + uint(j)], l);
  stats[row * 2u] = m;
  stats[row * 2u + 1u] = l;
}
