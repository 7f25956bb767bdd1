#version 430
// attn-tiled, FlashAttention-1, one dispatch per step j of the paper's outer loop over K/V
// blocks; in it one workgroup per Q block i (the inner loop, run in parallel), one invocation per
// row of the block. The workgroup loads K_j, V_j into shared memory (the SRAM of the paper) once;
// each row then reads its O_i, l_i, m_i from HBM, computes its row of S_ij, m~, P~, l~ on chip
// and writes O_i, l_i, m_i back to HBM: the write-back after every tile that FlashAttention-2
// removes.
// The grid is (Tr, heads): head h = gl_WorkGroupID.y, each head's Q blocks in parallel.
// Defines: D, BR (Br rows per Q block = invocations), BC (Bc rows per K/V block).
// Q, K, V, O are (heads, N, D) row-major; ML is (heads, N, 4): m, l in HBM, tiles done, unused;
// tiles (heads, Tr, Tc): 1 once tile (i, j) ran.
// Traces (kept for one head only): TS, TP (N, N): S_ij and P~_ij where tile (i, j) put them;
// TO (Tc, N, D): O_i after tile (i, j); TML (Tc, N, 4): m_new, l_new, m~, l~.
layout(local_size_x = BR) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) buffer OBuf { float O[]; };
layout(std430, binding = 4) buffer MLBuf { float ML[]; };
layout(std430, binding = 5) writeonly buffer TSBuf { float TS[]; };
layout(std430, binding = 6) writeonly buffer TPBuf { float TP[]; };
layout(std430, binding = 7) writeonly buffer TOBuf { float TO[]; };
layout(std430, binding = 8) writeonly buffer TMLBuf { float TML[]; };
layout(std430, binding = 9) writeonly buffer TilesBuf { int tiles[]; };
uniform int N;
uniform int Tr;
uniform int Tc;
uniform int j;
uniform float s;

shared float K_j[BC * D];
shared float V_j[BC * D];

// A driver that ends long loops (llvmpipe) can stop any of them, and every later one after its
// first iteration. So a row counts its tile as done only if the loads, the kUnroll-blocks of
// its S and PV products and O's update all ran; the engine refuses a row whose count falls short.
const int kDBlocks = (D + kUnroll - 1) / kUnroll;

void main() {
  int a = int(gl_LocalInvocationID.x);
  int c0 = j * BC;
  int bc = tile_extent(BC, N - c0);
  int h = int(gl_WorkGroupID.y);
  uint head = uint(h) * uint(N);  // this head's first row
  // Line 6: K_j, V_j into shared memory, every invocation loading a share.
  int loads = 0;
  for (int t = a; t < bc * D; t += BR, ++loads) {
    K_j[t] = K[(head + uint(c0)) * uint(D) + uint(t)];
    V_j[t] = V[(head + uint(c0)) * uint(D) + uint(t)];
  }
  memoryBarrierShared();
  barrier();
  for (int i = int(gl_WorkGroupID.x); i < Tr; i += int(gl_NumWorkGroups.x)) {
    int r0 = i * BR;
    int br = tile_extent(BR, N - r0);
    int kind = tile_kind(r0, br, c0, bc);
    if (kind == TILE_EMPTY) continue;  // every score of the tile is masked
    int row = r0 + a;
    if (a < br) {
      uint qi = (head + uint(row)) * uint(D), mi = (head + uint(row)) * 4u;
      // Line 8: this row of Q_i, O_i, l_i, m_i from HBM.
      float q[D];
      for (int k0 = 0; k0 < D; k0 += kUnroll)
        for (int kk = 0; kk < kUnroll; ++kk)
          if (k0 + kk < D) q[k0 + kk] = Q[qi + uint(k0 + kk)];
      float m = ML[mi];
      float l = ML[mi + 1u];
      // Line 9: this row of S_ij = Q_i K_j^T * s.
      int blocks = 0;  // loop iterations run, checked against the tile's own count
      float S[BC];
      for (int b = 0; b < bc; ++b) {
        float acc = 0.0;
        for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
          for (int kk = 0; kk < kUnroll; ++kk) {
            int k = k0 + kk;
            if (k < D) acc = R(acc + R(q[k] * K_j[b * D + k]));
          }
#if SCALED
        acc = R(acc * s);
#endif
        if (kind == TILE_PARTIAL && !visible(row, c0 + b)) acc = -kInf;
        S[b] = acc;
      }
      // Line 10: m~, P~, l~ of the tile alone.
      float m_tilde = m_init;  // the tile's own (m~, l~) start where every running (m, l) does
      for (int b = 0; b < bc; ++b) m_tilde = max_of(m_tilde, S[b]);
      float l_tilde = l_init;
      for (int b = 0; b < bc; ++b) {
#if TRACE
        TS[row * N + c0 + b] = S[b];
#endif
        S[b] = exp_diff(S[b], exp_base(m_tilde));  // S now holds P~
        l_tilde = R(l_tilde + S[b]);
#if TRACE
        TP[row * N + c0 + b] = S[b];
#endif
      }
      // Lines 11-13: merge with the running (m, l), rescale O_i, write all back to HBM.
      float m_new = max_of(m, m_tilde);
      float f_old = exp_diff(m, exp_base(m_new));
      float f_tile = exp_diff(m_tilde, exp_base(m_new));
      float l_new = R(R(f_old * l) + R(f_tile * l_tilde));
      float pv[D];  // this row of P~_ij V_j, summed over b in order
      for (int k0 = 0; k0 < D; k0 += kUnroll)
        for (int kk = 0; kk < kUnroll; ++kk)
          if (k0 + kk < D) pv[k0 + kk] = 0.0;
      for (int b = 0; b < bc; ++b)
        for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
          for (int kk = 0; kk < kUnroll; ++kk) {
            int k = k0 + kk;
            if (k < D) pv[k] = R(pv[k] + R(S[b] * V_j[b * D + k]));
          }
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int k = k0 + kk;
          if (k < D) {
            float o = div_mass(R(R(R(l * f_old) * O[qi + uint(k)]) + R(f_tile * pv[k])), l_new);
            O[qi + uint(k)] = o;
#if TRACE
            TO[(j * N + row) * D + k] = o;
#endif
          }
        }
      ML[mi] = m_new;
      ML[mi + 1u] = l_new;
      if (loads == (bc * D - a + BR - 1) / BR && blocks == (2 * bc + 1) * kDBlocks) ML[mi + 2u] += 1.0;
#if TRACE
      TML[(j * N + row) * 4] = m_new;
      TML[(j * N + row) * 4 + 1] = l_new;
      TML[(j * N + row) * 4 + 2] = m_tilde;
      TML[(j * N + row) * 4 + 3] = l_tilde;
#endif
    }
    if (a == 0) tiles[(h * Tr + i) * Tc + j] = 1;
  }
}
