// The backward engines: attn-backward (the standard backward, every N × N matrix in HBM) and
// attn-flash-backward (FlashAttention-2's backward, Dao 2023, Algorithm 2), in the scalar type T
// of the chosen precision. Each runs its forward first in the same recording, then the backward
// from the upstream gradient dO, with the loss ℓ = Σ dO ∘ O in mind:
//
//   dV = Pᵀ dO,  dP = dO Vᵀ,  Dᵢ = rowsum(dOᵢ ∘ Oᵢ),  dS = P ∘ (dP − D),  dQ = s · dS K,  dK = s · dSᵀ Q.
//
// Shapes: Q, K, V, O, dO, dQ, dK, dV are N × d; P, dP, dS are N × N (the flash one's tiles
// Br × Bc); D and L are N × 1. All row-major. What each step says, counts and writes is in
// narration_backward.cpp, shared with the GPU backend.
#include "core/attention_math.h"
#include "core/engine.h"
#include "core/mask.h"
#include "core/narration_backward.h"
#include "core/recorder.h"
#include "core/workspace.h"

#include <algorithm>
#include <cmath>

namespace flashstep {
namespace {

using namespace attention_math;

// s · x where the scores are scaled; x itself where s = 1 (no multiply, as the forward does).
template <class T>
void scale_in_place(MatRM<T>& M, bool scaled, T s) {
  if (!scaled) return;
  for (Eigen::Index k = 0; k < M.size(); ++k) M.data()[k] = M.data()[k] * s;
}

template <class T>
void attn_backward(const Resolved& r, Recorder& rec) {
  // The forward: attn-naive's three kernels, S and P through HBM; it hands back P as it left it.
  MatrixRM P_hbm;
  record_attn_naive(r, rec, P_hbm);
  AttnBackwardNarration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N, d = a.d;
  const MatRM<T> P = cast<T>(P_hbm), O = cast<T>(rec.recording().output()), dO = cast<T>(r.d_o);
  P_hbm = MatrixRM();  // P is held once, in T, as the forward left it
  const Workspace::Hold held(static_cast<std::int64_t>(sizeof(T)) * 3 * N * N);  // P, dP, dS

  // 1. dV = Pᵀ dO, one key row j at a time.
  const MatRM<T> dV = mul_atb<T>(P, dO);
  for (int j = 0; j < N; ++j) say.dv_row(j, rows(dV, j, 1));
  // 2. dP = dO Vᵀ, written to HBM.
  const MatRM<T> dP = mul_abt<T>(dO, a.V);
  for (int i = 0; i < N; ++i) say.dp_row(i, rows(dP, i, 1));
  // 3. D_i = rowsum(dO_i ∘ O_i), shown beside rowsum(P_i ∘ dP_i): the same sum in exact arithmetic.
  std::vector<T> D(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) {
    T from_o = T(0), from_p = T(0);
    for (int c = 0; c < d; ++c) from_o = from_o + dO(i, c) * O(i, c);
    for (int j = 0; j < N; ++j) from_p = from_p + P(i, j) * dP(i, j);
    D[static_cast<std::size_t>(i)] = from_o;
    say.d_row(i, to_double(from_o), to_double(from_p));
  }
  // 4. dS = P ∘ (dP − D): a masked entry has P = 0, so its dS is 0.
  MatRM<T> dS(N, N);
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) dS(i, j) = P(i, j) * (dP(i, j) - D[static_cast<std::size_t>(i)]);
    say.ds_row(i, rows(dS, i, 1));
  }
  // 5. dQ = s · dS K.
  MatRM<T> dQ = mul_ab<T>(dS, a.K);
  scale_in_place(dQ, a.scaled, a.s);
  for (int i = 0; i < N; ++i) say.dq_row(i, rows(dQ, i, 1));
  // 6. dK = s · dSᵀ Q.
  MatRM<T> dK = mul_atb<T>(dS, a.Q);
  scale_in_place(dK, a.scaled, a.s);
  for (int j = 0; j < N; ++j) say.dk_row(j, rows(dK, j, 1));
  say.finish();
}

// FlashAttention-2's backward: K/V blocks outer, Q blocks inner; P recomputed from L, dQ
// accumulated in HBM.
template <class T>
void attn_flash_backward(const Resolved& r, Recorder& rec) {
  // The forward: FlashAttention-2, which writes O and L = m + log l to HBM.
  record_attn_tiled_v2(r, rec);
  AttnFlashBackwardNarration say(r, rec);
  const AttnInputs<T> a(r);
  const int N = a.N, d = a.d, Br = r.Br, Bc = r.Bc, Tr = r.Tr, Tc = r.Tc;
  const MatRM<T> O = cast<T>(rec.recording().output()), dO = cast<T>(r.d_o);
  std::vector<T> L(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) L[static_cast<std::size_t>(i)] = from_double<T>(rec.recording().lse()[static_cast<std::size_t>(i)]);

  // Line 1: D = rowsum(dO ∘ O), block by block, to HBM.
  std::vector<T> D(static_cast<std::size_t>(N));
  for (int i = 0; i < Tr; ++i) {
    const int r0 = i * Br, br = std::min(Br, N - r0);
    for (int row = r0; row < r0 + br; ++row) {
      T sum = T(0);
      for (int c = 0; c < d; ++c) sum = sum + dO(row, c) * O(row, c);
      D[static_cast<std::size_t>(row)] = sum;
    }
    say.d_block(i, column(D, r0, br));
  }
  // dQ = 0 in HBM; dK, dV written block by block.
  MatRM<T> dQ = MatRM<T>::Zero(N, d);
  for (int j = 0; j < Tc; ++j) {
    const int c0 = j * Bc, bc = std::min(Bc, N - c0);
    // Lines 3-4: K_j, V_j to SRAM; dK_j = dV_j = 0 on chip.
    say.start_kv(j);
    const MatRM<T> Kj = a.K.middleRows(c0, bc), Vj = a.V.middleRows(c0, bc);
    MatRM<T> dKj = MatRM<T>::Zero(bc, d), dVj = MatRM<T>::Zero(bc, d);
    for (int i = 0; i < Tr; ++i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      if (a.mask.tile(r0, br, c0, bc) == TileKind::empty) continue;  // every score of the tile is masked
      // Line 6: Q_i, dO_i, dQ_i, L_i, D_i to SRAM.
      const MatRM<T> Qi = a.Q.middleRows(r0, br), dOi = dO.middleRows(r0, br);
      const Workspace::Hold held(static_cast<std::int64_t>(sizeof(T)) * 4 * br * bc);  // S, P, dP, dS
      // Lines 7-8: S_ij, and P_ij = exp(S_ij − L_i) from L alone; a −∞ score (masked, or a row
      // with no finite score, whose L is −∞) gives 0, never exp(−∞ + ∞).
      const MatRM<T> S = a.scores(r0, br, c0, bc);
      MatRM<T> P(br, bc);
      for (int x = 0; x < br; ++x)
        for (int y = 0; y < bc; ++y) P(x, y) = p_of(S(x, y), L[static_cast<std::size_t>(r0 + x)]);
      // Line 9: dV_j += P_ijᵀ dO_i.
      const MatRM<T> PtdO = mul_atb<T>(P, dOi);
      for (Eigen::Index k = 0; k < dVj.size(); ++k) dVj.data()[k] = dVj.data()[k] + PtdO.data()[k];
      // Line 10: dP_ij = dO_i V_jᵀ.
      const MatRM<T> dP = mul_abt<T>(dOi, Vj);
      // Line 11: dS_ij = P_ij ∘ (dP_ij − D_i).
      MatRM<T> dS(br, bc);
      for (int x = 0; x < br; ++x)
        for (int y = 0; y < bc; ++y) dS(x, y) = P(x, y) * (dP(x, y) - D[static_cast<std::size_t>(r0 + x)]);
      // Line 12: dQ_i += s · dS_ij K_j, read from and written back to HBM.
      MatRM<T> dSK = mul_ab<T>(dS, Kj);
      scale_in_place(dSK, a.scaled, a.s);
      for (int x = 0; x < br; ++x)
        for (int c = 0; c < d; ++c) dQ(r0 + x, c) = dQ(r0 + x, c) + dSK(x, c);
      // Line 13: dK_j += s · dS_ijᵀ Q_i.
      MatRM<T> dStQ = mul_atb<T>(dS, Qi);
      scale_in_place(dStQ, a.scaled, a.s);
      for (Eigen::Index k = 0; k < dKj.size(); ++k) dKj.data()[k] = dKj.data()[k] + dStQ.data()[k];
      say.tile(i, j, rows(S), rows(P), rows(dP), rows(dS), rows(dQ, r0, br), rows(dKj), rows(dVj));
    }
    // Line 15: dK_j, dV_j to HBM.
    say.finish_kv(j, rows(dKj), rows(dVj));
  }
  say.finish();
}

}  // namespace

void record_attn_backward(const Resolved& r, Recorder& rec) {
  with_scalar(r.scenario.precision, [&](auto zero) { attn_backward<decltype(zero)>(r, rec); });
}
void record_attn_flash_backward(const Resolved& r, Recorder& rec) {
  with_scalar(r.scenario.precision, [&](auto zero) { attn_flash_backward<decltype(zero)>(r, rec); });
}

// ---- the recordings' sizes ------------------------------------------------------------------

namespace {
using ll = long long;
}

RecordingSize size_attn_backward(const Resolved& r) {
  RecordingSize s = size_attn_naive(r);
  const ll n = r.n, d = r.d;
  s.steps += 6 * n;                       // a row each of dV, dP, D, dS, dQ, dK
  s.cells += 2 * n * n + 4 * n * d + n;  // dP, dS; dO, dQ, dK, dV; D
  s.deltas += 2 * n * n + 3 * n * d + n;
  return s;
}

RecordingSize size_attn_flash_backward(const Resolved& r) {
  RecordingSize s = size_attn_tiled_v2(r);
  const ll n = r.n, d = r.d;
  const Mask mask = Mask::of(r);
  s.steps += r.Tr + r.Tc;  // D per Q block, a write of dK_j, dV_j per K/V block
  s.cells += 2 * n * n + 4 * n * d + n;
  s.deltas += n + 2 * n * d;  // D; dK, dV zeroed
  for (int j = 0; j < r.Tc; ++j) {
    const ll bc = std::min(r.Bc, r.n - j * r.Bc);
    for (int i = 0; i < r.Tr; ++i) {
      const ll br = std::min(r.Br, r.n - i * r.Br);
      if (mask.tile(i * r.Br, static_cast<int>(br), j * r.Bc, static_cast<int>(bc)) == TileKind::empty) continue;
      ++s.steps;
      s.deltas += 4 * br * bc + br * d + 2 * bc * d;  // S, P, dP, dS; dQ_i; dK_j, dV_j
    }
  }
  return s;
}

}  // namespace flashstep
