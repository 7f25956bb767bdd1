#version 430
// attn-tiled-v2, FlashAttention-2: one workgroup per Q block i (the outer loop, in parallel),
// one invocation per row of it. m_i, l_i and the unnormalized O_i stay in registers for the
// whole inner loop over K/V blocks j; each K_j, V_j is loaded into shared memory (the SRAM of
// the paper). O_i is divided by l_i once at the end and written with L_i = m_i + log l_i.
// The grid is (Tr, heads): head h = gl_WorkGroupID.y, as FlashAttention's grid covers
// batch x heads x Q blocks.
// Defines: D, BR (Br rows per Q block = invocations), BC (Bc rows per K/V block).
// Q, K, V, O are (heads, N, D) row-major; stats is (heads, N, 4): m, l, L, tiles done;
// tiles (heads, Tr, Tc): 1 once (i, j) ran.
// Traces (kept for one head only): TS, TP (N, N): S_ij and P~_ij; TO (Tc, N, D): O_i(j) after
// tile (i, j); TML (Tc, N, 4): m_i(j), l_i(j), rescale factor, unused.
layout(local_size_x = BR) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) writeonly buffer OBuf { float O[]; };
layout(std430, binding = 4) writeonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 5) writeonly buffer TSBuf { float TS[]; };
layout(std430, binding = 6) writeonly buffer TPBuf { float TP[]; };
layout(std430, binding = 7) writeonly buffer TOBuf { float TO[]; };
layout(std430, binding = 8) writeonly buffer TMLBuf { float TML[]; };
layout(std430, binding = 9) writeonly buffer TilesBuf { int tiles[]; };
uniform int N;
uniform int Tr;
uniform int Tc;
uniform float s;

shared float K_j[BC * D];
shared float V_j[BC * D];

// A driver that ends long loops (llvmpipe) can stop any of them, and every later one after its
// first iteration. So a tile counts as done only if its loads, the kUnroll-blocks of its S and
// PV products and O's update all ran; the engine refuses a row whose count falls short.
const int kDBlocks = (D + kUnroll - 1) / kUnroll;

void main() {
  int a = int(gl_LocalInvocationID.x);
  int h = int(gl_WorkGroupID.y);
  uint head = uint(h) * uint(N);  // this head's first row
  for (int i = int(gl_WorkGroupID.x); i < Tr; i += int(gl_NumWorkGroups.x)) {
    int r0 = i * BR;
    int br = tile_extent(BR, N - r0);
    int row = r0 + a;
    bool has_row = a < br;
    uint qi = (head + uint(row)) * uint(D);
    // Lines 3-4: Q_i in, O_i, l_i, m_i start on chip.
    float q[D];
    float o[D];
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int k = k0 + kk;
        if (k < D) {
          q[k] = has_row ? Q[qi + uint(k)] : 0.0;
          o[k] = o_init;
        }
      }
    float m = m_init;
    float l = l_init;
    int done = 0;
    for (int j = 0; j < Tc; ++j) {
      int c0 = j * BC;
      int bc = tile_extent(BC, N - c0);
      // The same for every invocation of the workgroup, so all of them still meet every barrier.
      int kind = tile_kind(r0, br, c0, bc);
      if (kind == TILE_EMPTY) continue;  // every score of the tile is masked
      // Line 6: K_j, V_j into shared memory, once the previous tile is no longer read.
      barrier();
      int loads = 0, blocks = 0;  // loop iterations run, checked against the tile's own counts
      for (int t = a; t < bc * D; t += BR, ++loads) {
        K_j[t] = K[(head + uint(c0)) * uint(D) + uint(t)];
        V_j[t] = V[(head + uint(c0)) * uint(D) + uint(t)];
      }
      memoryBarrierShared();
      barrier();
      // Only the invocations of real rows compute; the others still meet every barrier.
      if (has_row) {
        // Line 7: this row of S_ij.
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
        // Lines 8-9: the new running max, P~ against it, the rescaled running sum.
        float m_new = m;
        for (int b = 0; b < bc; ++b) m_new = max_of(m_new, S[b]);
        float rowsum = 0.0;
        for (int b = 0; b < bc; ++b) {
#if TRACE
          TS[row * N + c0 + b] = S[b];
#endif
          S[b] = exp_diff(S[b], exp_base(m_new));  // S now holds P~
          rowsum = R(rowsum + S[b]);
#if TRACE
          TP[row * N + c0 + b] = S[b];
#endif
        }
        float f = exp_diff(m, exp_base(m_new));
        l = R(R(f * l) + rowsum);
        m = m_new;
        // Line 10: O_i(j) = diag(f) O_i(j-1) + P~ V_j, not divided yet.
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
              o[k] = R(R(f * o[k]) + pv[k]);
#if TRACE
              TO[(j * N + row) * D + k] = o[k];
#endif
            }
          }
#if TRACE
        TML[(j * N + row) * 4] = m;
        TML[(j * N + row) * 4 + 1] = l;
        TML[(j * N + row) * 4 + 2] = f;
#endif
        if (loads == (bc * D - a + BR - 1) / BR && blocks == (2 * bc + 1) * kDBlocks) ++done;
      }
      if (a == 0) tiles[(h * Tr + i) * Tc + j] = 1;
    }
    // Lines 11-14: divide once, L = m + log l, write O_i and L_i.
    if (has_row) {
      int written = 0;
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++written)
        for (int kk = 0; kk < kUnroll; ++kk)
          if (k0 + kk < D) O[qi + uint(k0 + kk)] = div_mass(o[k0 + kk], l);
      if (written != kDBlocks) done = -1;
      uint st = (head + uint(row)) * 4u;
      stats[st] = m;
      stats[st + 1u] = l;
      // log(0) and log(NaN) are undefined in GLSL: a row with no finite score has L = −∞.
      stats[st + 2u] = l == 0.0 ? -kInf : nan_bits(l) || nan_bits(m) ? kNaN : R(m + R(log(l)));
      stats[st + 3u] = float(done);
    }
  }
}
