#version 430
// attn-flash-backward's dQ, in a pass of its own after attn_flash_bwd_kv.comp: one workgroup per
// Q block i, one invocation per row of it, dQ_i in registers, an inner loop over K/V blocks j in
// ascending order with K_j, V_j in shared memory, recomputing S_ij, P_ij = exp(S_ij − L_i),
// dP_ij and dS_ij exactly as the dK, dV pass does, and adding s · dS_ij K_j.
// Why a second pass rather than the paper's atomic add of s · dS_ij K_j into dQ_i in HBM from
// every K/V workgroup: GLSL 4.30 has no float atomics, and one emulated with atomicCompSwap
// adds the K/V blocks in whatever order the workgroups reach it, so dQ would change in its last
// bits from run to run. Here every dQ_i is summed over j = 1, 2, … in the paper's order, the same
// on every run, and dQ_i after tile (i, j) is the paper's dQ_i after that tile. The price: S, P,
// dP and dS are computed twice (Triton's FlashAttention tutorial makes the same trade).
// The grid is (Tr, heads): head h = gl_WorkGroupID.y.
// Defines: D, BR (Br rows per Q block = invocations), BC (Bc rows per K/V block).
// Q, K, V, dO, dQ are (heads, N, D) row-major; stats is the forward's (heads, N, 4) with L at 2;
// Dr is (heads, N, 2) with D at 0; done (heads, N): tiles each query row finished.
// Trace (kept for one head only): TdQ (Tc, N, D): dQ_i after tile (i, j).
layout(local_size_x = BR) in;
layout(std430, binding = 0) readonly buffer QBuf { float Q[]; };
layout(std430, binding = 1) readonly buffer KBuf { float K[]; };
layout(std430, binding = 2) readonly buffer VBuf { float V[]; };
layout(std430, binding = 3) readonly buffer dOBuf { float dO[]; };
layout(std430, binding = 4) readonly buffer StatsBuf { float stats[]; };
layout(std430, binding = 5) readonly buffer DBuf { float Dr[]; };
layout(std430, binding = 6) writeonly buffer dQBuf { float dQ[]; };
layout(std430, binding = 7) writeonly buffer DoneBuf { int done_rows[]; };
layout(std430, binding = 8) writeonly buffer TdQBuf { float TdQ[]; };
uniform int N;
uniform int Tr;
uniform int Tc;
uniform float s;

shared float K_j[BC * D];
shared float V_j[BC * D];

// As in the dK, dV pass: a tile counts as done only if all its loops ran.
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
    float q[D];
    float do_row[D];
    float dq[D];
    for (int k0 = 0; k0 < D; k0 += kUnroll)
      for (int kk = 0; kk < kUnroll; ++kk) {
        int c = k0 + kk;
        if (c < D) {
          q[c] = has_row ? Q[qi + uint(c)] : 0.0;
          do_row[c] = has_row ? dO[qi + uint(c)] : 0.0;
          dq[c] = 0.0;
        }
      }
    float L = has_row ? stats[(head + uint(row)) * 4u + 2u] : 0.0;
    float Drow = has_row ? Dr[(head + uint(row)) * 2u] : 0.0;
    int done = 0;
    for (int j = 0; j < Tc; ++j) {
      int c0 = j * BC;
      int bc = tile_extent(BC, N - c0);
      int kind = tile_kind(r0, br, c0, bc);
      if (kind == TILE_EMPTY) continue;  // every score of the tile is masked
      barrier();
      int loads = 0, blocks = 0, cols_run = 0;
      for (int t = a; t < bc * D; t += BR, ++loads) {
        K_j[t] = K[(head + uint(c0)) * uint(D) + uint(t)];
        V_j[t] = V[(head + uint(c0)) * uint(D) + uint(t)];
      }
      memoryBarrierShared();
      barrier();
      if (has_row) {
        float dsk[D];  // this row of dS_ij K_j, summed over the tile's keys
        for (int k0 = 0; k0 < D; k0 += kUnroll)
          for (int kk = 0; kk < kUnroll; ++kk)
            if (k0 + kk < D) dsk[k0 + kk] = 0.0;
        for (int b = 0; b < bc; ++b, ++cols_run) {
          bool seen = kind == TILE_FULL || visible(row, c0 + b);
          float S = 0.0, dp = 0.0;
          for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
            for (int kk = 0; kk < kUnroll; ++kk) {
              int c = k0 + kk;
              if (c < D) {
                S = R(S + R(q[c] * K_j[b * D + c]));
                dp = R(dp + R(do_row[c] * V_j[b * D + c]));
              }
            }
#if SCALED
          S = R(S * s);
#endif
          if (!seen) S = -kInf;  // P = 0 there, so dS = 0 whatever dP is
          float P = exp_diff(S, L);
          float dS = R(P * R(dp - Drow));
          for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
            for (int kk = 0; kk < kUnroll; ++kk) {
              int c = k0 + kk;
              if (c < D) dsk[c] = R(dsk[c] + R(dS * K_j[b * D + c]));
            }
        }
        // Line 13: dQ_i += s · dS_ij K_j.
        for (int k0 = 0; k0 < D; k0 += kUnroll, ++blocks)
          for (int kk = 0; kk < kUnroll; ++kk) {
            int c = k0 + kk;
            if (c < D) {
#if SCALED
              dq[c] = R(dq[c] + R(s * dsk[c]));
#else
              dq[c] = R(dq[c] + dsk[c]);
#endif
#if TRACE
              TdQ[(uint(j) * uint(N) + uint(row)) * uint(D) + uint(c)] = dq[c];
#endif
            }
          }
        if (loads == (bc * D - a + BR - 1) / BR && cols_run == bc && blocks == (2 * bc + 1) * kDBlocks) ++done;
      }
    }
    if (has_row) {
      int written = 0;
      for (int k0 = 0; k0 < D; k0 += kUnroll, ++written)
        for (int kk = 0; kk < kUnroll; ++kk)
          if (k0 + kk < D) dQ[qi + uint(k0 + kk)] = dq[k0 + kk];
      if (written != kDBlocks) done = -1;
      done_rows[head + uint(row)] = done;
    }
  }
}
