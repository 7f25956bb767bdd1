#version 430
// attn-flash-backward, FlashAttention-2's backward (Dao 2023, Algorithm 2), dK and dV: one
// workgroup per K/V block j (the outer loop, in parallel), one invocation per key row of it.
// K_j, V_j, dK_j and dV_j stay in registers for the whole inner loop over Q blocks i; each Q_i
// and dO_i is loaded into shared memory (the SRAM of the paper). S_ij and P_ij = exp(S_ij − L_i)
// are recomputed from the forward's L alone (no m, no l, no P in HBM).
// dQ is not summed here: attn_flash_bwd_dq.comp sums it in a pass of its own (see there why).
// The grid is (Tc, heads): head h = gl_WorkGroupID.y.
// Defines: D, BR (Br rows per Q block), BC (Bc rows per K/V block = invocations).
// Q, K, V, dO, dK, dV are (heads, N, D) row-major; stats is the forward's (heads, N, 4) with L at
// 2; Dr is (heads, N, 2) with D at 0; done (heads, N): tiles each key row finished; tiles
// (heads, Tc, Tr): 1 once tile (i, j) ran.
// Traces (kept for one head only): TS, TP, TdP, TdS (N, N) where tile (i, j) put them; TdK, TdV
// (Tr, N, D): dK_j, dV_j after tile (i, j), at their key rows.
layout(local_size_x = BC) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) readonly buffer dOBuf { float dO[]; };
layout(std430, binding = 4) readonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 5) readonly buffer DBuf { float Dr[]; };
layout(std430, binding = 6) writeonly buffer dKBuf { float dK[]; };
layout(std430, binding = 7) writeonly buffer dVBuf { float dV[]; };
layout(std430, binding = 8) writeonly buffer DoneBuf { int done_rows[]; };
layout(std430, binding = 9) writeonly buffer TilesBuf { int tiles[]; };
layout(std430, binding = 10) writeonly buffer TSBuf { float TS[]; };
layout(std430, binding = 11) writeonly buffer TPBuf { float TP[]; };
layout(std430, binding = 12) writeonly buffer TdPBuf { float TdP[]; };
layout(std430, binding = 13) writeonly buffer TdSBuf { float TdS[]; };
layout(std430, binding = 14) writeonly buffer TdKBuf { float TdK[]; };
layout(std430, binding = 15) writeonly buffer TdVBuf { float TdV[]; };
uniform int N;
uniform int Tr;
uniform int Tc;
uniform float s;

// Q_i and dO_i in shared memory: 2 × Br × d floats, 32 KiB at Br = d = 64, the forward's K_j, V_j
// and the least GL 4.3 guarantees. L_i and D_i (a float per row) are read where they are used.
shared float Q_i[BR * D];
shared float dO_i[BR * D];

// A driver that ends long loops (llvmpipe) can stop any of them: a tile counts as done only if
// its loads and every row of it ran with all their kUnroll-blocks; the engine refuses a key row
// whose count falls short.
const int kDBlocks = (D + kUnroll - 1) / kUnroll;

void main() {
  int b = int(gl_LocalInvocationID.x);
  int h = int(gl_WorkGroupID.y);
  uint head = uint(h) * uint(N);  // this head's first row
  for (int j = int(gl_WorkGroupID.x); j < Tc; j += int(gl_NumWorkGroups.x)) {
    int c0 = j * BC;
    int bc = tile_extent(BC, N - c0);
    int col = c0 + b;  // this invocation's key row
    bool has_col = b < bc;
    uint kj = (head + uint(col)) * uint(D);
    // Lines 5-6: K_j, V_j in; dK_j = dV_j = 0 on chip.
    float k[D];
    float v[D];
    float dk[D];
    float dv[D];
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int c = k0 + kk;
        if (c < D) {
          k[c] = has_col ? K[kj + uint(c)] : 0.0;
          v[c] = has_col ? V[kj + uint(c)] : 0.0;
          dk[c] = 0.0;
          dv[c] = 0.0;
        }
      }
    int done = 0;
    for (int i = 0; i < Tr; ++i) {
      int r0 = i * BR;
      int br = tile_extent(BR, N - r0);
      // The same for every invocation of the workgroup, so all of them still meet every barrier.
      int kind = tile_kind(r0, br, c0, bc);
      if (kind == TILE_EMPTY) continue;  // every score of the tile is masked
      // Line 8: Q_i, dO_i into shared memory, once the previous tile is no longer read.
      barrier();
      int loads = 0, blocks = 0, rows_run = 0;
      for (int t = b; t < br * D; t += BC, ++loads) {
        Q_i[t] = Q[(head + uint(r0)) * uint(D) + uint(t)];
        dO_i[t] = dO[(head + uint(r0)) * uint(D) + uint(t)];
      }
      memoryBarrierShared();
      barrier();
      if (has_col) {
        // This key row's share of the tile: column b of S_ij, P_ij, dP_ij, dS_ij, one row a at a
        // time, with this column's sums P_ijᵀ dO_i and dS_ijᵀ Q_i of the tile alone.
        float pdo[D];
        float dsq[D];
        for (int k0 = 0; k0 < D; k0 += kUnroll)
          for (int kk = 0; kk < kUnroll; ++kk)
            if (k0 + kk < D) pdo[k0 + kk] = 0.0, dsq[k0 + kk] = 0.0;
        for (int a = 0; a < br; ++a, ++rows_run) {
          int row = r0 + a;
          float L = stats[(head + uint(row)) * 4u + 2u];
          float Drow = Dr[(head + uint(row)) * 2u];
          bool seen = kind == TILE_FULL || visible(row, col);
          // Line 9: S_ij = s · Q_i K_jᵀ, then P_ij = exp(S_ij − L_i): recomputed, not read.
          float S = 0.0, dp = 0.0;
          for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
            for (int kk = 0; kk < kUnroll; ++kk) {
              int c = k0 + kk;
              if (c < D) {
                S = R(S + R(Q_i[a * D + c] * k[c]));
                dp = R(dp + R(dO_i[a * D + c] * v[c]));
              }
            }
#if SCALED
          S = R(S * s);
#endif
          if (!seen) S = -kInf;  // P = 0 there, so dS = 0 whatever dP is
          float P = exp_diff(S, L);
          // Lines 11-12: dP_ij = dO_i V_jᵀ, dS_ij = P_ij ∘ (dP_ij − D_i).
          float dS = R(P * R(dp - Drow));
          // Lines 10 and 14: this tile's P_ijᵀ dO_i and dS_ijᵀ Q_i, summed over its rows.
          for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
            for (int kk = 0; kk < kUnroll; ++kk) {
              int c = k0 + kk;
              if (c < D) {
                pdo[c] = R(pdo[c] + R(P * dO_i[a * D + c]));
                dsq[c] = R(dsq[c] + R(dS * Q_i[a * D + c]));
              }
            }
#if TRACE
          uint cell = uint(row) * uint(N) + uint(col);
          TS[cell] = S;
          TP[cell] = P;
          TdP[cell] = dp;
          TdS[cell] = dS;
#endif
        }
        // dV_j += P_ijᵀ dO_i;  dK_j += s · dS_ijᵀ Q_i.
        for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
          for (int kk = 0; kk < kUnroll; ++kk) {
            int c = k0 + kk;
            if (c < D) {
              dv[c] = R(dv[c] + pdo[c]);
#if SCALED
              dk[c] = R(dk[c] + R(s * dsq[c]));
#else
              dk[c] = R(dk[c] + dsq[c]);
#endif
#if TRACE
              TdV[(uint(i) * uint(N) + uint(col)) * uint(D) + uint(c)] = dv[c];
              TdK[(uint(i) * uint(N) + uint(col)) * uint(D) + uint(c)] = dk[c];
#endif
            }
          }
        if (loads == (br * D - b + BC - 1) / BC && rows_run == br && blocks == (2 * br + 1) * kDBlocks) ++done;
      }
      if (b == 0) tiles[(h * Tc + j) * Tr + i] = 1;
    }
    // Line 16: dK_j, dV_j to HBM.
    if (has_col) {
      int written = 0;
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++written)
        for (int kk = 0; kk < kUnroll; ++kk) {
          int c = k0 + kk;
          if (c < D) {
            dK[kj + uint(c)] = dk[c];
            dV[kj + uint(c)] = dv[c];
          }
        }
      if (written != kDBlocks) done = -1;
      done_rows[head + uint(col)] = done;
    }
  }
}
