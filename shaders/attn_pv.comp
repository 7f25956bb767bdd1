#version 430
// attn-naive, kernel 3: O = P V, one invocation per output element, reading P back from its
// N x N buffer. The grid is (D / 16, N / 16, heads): head h = gl_WorkGroupID.z.
// P is (heads, N, N), V and O are (heads, N, D), all row-major.
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer PBuf { float P[]; };
layout(std430, binding = 1) readonly buffer VBuf { float V[]; };
layout(std430, binding = 2) writeonly buffer OBuf { float O[]; };
uniform int N;

void main() {
  int i = int(gl_GlobalInvocationID.y);
  int c = int(gl_GlobalInvocationID.x);
  if (i >= N || c >= D) return;
  uint h = gl_WorkGroupID.z;
  uint p0 = (h * uint(N) + uint(i)) * uint(N), v0 = h * uint(N) * uint(D) + uint(c);
  float acc = 0.0;
  for (int j = 0; j < N; ++j) acc = R(acc + R(P[p0 + uint(j)] * V[v0 + uint(j) * uint(D)]));
  O[(h * uint(N) + uint(i)) * uint(D) + uint(c)] = acc;
}
