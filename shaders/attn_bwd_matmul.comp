#version 430
// attn-backward's four matmuls, one invocation per element of C = A B (times s for dQ and dK):
//   dV = Pᵀ dO,  dP = dO Vᵀ,  dQ = s · dS K,  dK = s · dSᵀ Q.
// dP is computed at masked cells too, as the matmul it is; P = 0 there makes dS = 0.
// A transposed operand is its buffer read with the strides swapped, so one shader does all four,
// each reading and writing whole N × N or N × d matrices in HBM: the traffic the lesson counts.
// The grid is (cols / 16, rows / 16, heads): head h = gl_WorkGroupID.z.
// A(r, k) = A[h·a_head + r·a_row + k·a_k], B(k, c) = B[h·b_head + k·b_k + c·b_col],
// C(r, c) = C[(h·rows + r)·cols + c]; all floats, summed over k in ascending order.
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer ABuf { float A[]; };
layout(std430, binding = 1) readonly buffer BBuf { float B[]; };
layout(std430, binding = 2) writeonly buffer CBuf { float C[]; };
uniform int rows;
uniform int cols;
uniform int inner;
uniform int a_row;
uniform int a_k;
uniform int a_head;
uniform int b_k;
uniform int b_col;
uniform int b_head;
uniform int times_s;  // 1: C = s · A B (dQ, dK)
uniform float s;

void main() {
  int r = int(gl_GlobalInvocationID.y);
  int c = int(gl_GlobalInvocationID.x);
  if (r >= rows || c >= cols) return;
  uint h = gl_WorkGroupID.z;
  uint out_at = (h * uint(rows) + uint(r)) * uint(cols) + uint(c);
  uint a0 = h * uint(a_head) + uint(r) * uint(a_row);
  uint b0 = h * uint(b_head) + uint(c) * uint(b_col);
  float acc = 0.0;
  for (int k = 0; k < inner; ++k) acc = R(acc + R(A[a0 + uint(k) * uint(a_k)] * B[b0 + uint(k) * uint(b_k)]));
#if SCALED
  if (times_s == 1) acc = R(acc * s);
#endif
  C[out_at] = acc;
}
