#include "core/fast_backward.h"

#include "core/fast.h"
#include "core/workspace.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace flashstep::fast {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::int64_t floats(std::int64_t n) { return static_cast<std::int64_t>(sizeof(float)) * n; }

// Dᵢ = rowsum(dO ∘ O)ᵢ, every row.
void rowsum_do_o(const MatRM<float>& dO, const MatRM<float>& O, std::vector<float>& D) {
  const Eigen::Index N = O.rows();
  D.resize(static_cast<std::size_t>(N));
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < N; ++i) D[static_cast<std::size_t>(i)] = dO.row(i).dot(O.row(i));
}

int thread_count() {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}
int thread_id() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace

void attention_backward(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V,
                        const MatRM<float>& P, const MatRM<float>& O, const MatRM<float>& dO, float scale,
                        Gradients& g) {
  const Eigen::Index N = Q.rows();
  // P, saved by the forward for this pass alone, is held until its end: with dP and dS, the
  // three N × N matrices of the standard backward.
  const Workspace::Hold saved_p(floats(N * N));
  // dV = Pᵀ dO.
  g.dV.resize(N, V.cols());
  g.dV.noalias() = P.transpose() * dO;
  // dP = dO Vᵀ.
  MatRM<float> dP(N, N);
  const Workspace::Hold held_dp(floats(N * N));
  dP.noalias() = dO * V.transpose();
  // D = rowsum(dO ∘ O), then dS = P ∘ (dP − D).
  rowsum_do_o(dO, O, g.D);
  MatRM<float> dS(N, N);
  const Workspace::Hold held_ds(floats(N * N));
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < N; ++i)
    dS.row(i).array() = P.row(i).array() * (dP.row(i).array() - g.D[static_cast<std::size_t>(i)]);
  // dQ = s·dS K, dK = s·dSᵀ Q.
  g.dQ.resize(N, Q.cols());
  g.dQ.noalias() = scale * (dS * K);
  g.dK.resize(N, K.cols());
  g.dK.noalias() = scale * (dS.transpose() * Q);
}

void attention_flash_backward(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V,
                              const MatRM<float>& O, const std::vector<float>& L, const MatRM<float>& dO,
                              float scale, const Mask& mask, int Br, int Bc, Gradients& g) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const int Tr = (N + Br - 1) / Br, Tc = (N + Bc - 1) / Bc;
  // Line 1: D = rowsum(dO ∘ O), before the loops.
  rowsum_do_o(dO, O, g.D);
  g.dQ.setZero(N, d);
  g.dK.resize(N, d);
  g.dV.resize(N, d);
  std::vector<MatRM<float>> dQ_of_thread;
#pragma omp parallel
  {
    const int T = thread_count(), t = thread_id();
#pragma omp single
    dQ_of_thread.resize(static_cast<std::size_t>(T));
    // Each thread's dQ, then its tiles: Kⱼ, Vⱼ are read in place; dKⱼ, dVⱼ, Sᵢⱼ/Pᵢⱼ and dPᵢⱼ/dSᵢⱼ
    // are the chip's.
    MatRM<float>& dQ = dQ_of_thread[static_cast<std::size_t>(t)];
    dQ.setZero(N, d);
    MatRM<float> dKj(Bc, d), dVj(Bc, d), P(Br, Bc), dS(Br, Bc);
    const Workspace::Hold held(floats(1LL * N * d + 2LL * Bc * d + 2LL * Br * Bc));
    // K/V block j costs one tile per Q block its mask leaves visible: under the causal mask the
    // first blocks cost the most. The snake deal (fast.h) from the costliest balances them, and
    // being static it gives each block to the same thread every run, so that the sum of the
    // threads' dQ is the same every run.
    for (int round = 0; round * T < Tc; ++round) {
      const int snake = snake_block(round, t, T, Tc);
      if (snake < 0) continue;
      const int j = Tc - 1 - snake;  // snake_block deals from the last block; here the first cost most
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      const auto Kj = K.middleRows(c0, bc), Vj = V.middleRows(c0, bc);
      dKj.topRows(bc).setZero();
      dVj.topRows(bc).setZero();
      for (int i = 0; i < Tr; ++i) {
        const int r0 = i * Br, br = std::min(Br, N - r0);
        const TileKind kind = mask.tile(r0, br, c0, bc);
        if (kind == TileKind::empty) continue;
        const auto Qi = Q.middleRows(r0, br), dOi = dO.middleRows(r0, br);
        auto Pt = P.topLeftCorner(br, bc);
        auto dSt = dS.topLeftCorner(br, bc);
        // Sᵢⱼ = s·Qᵢ Kⱼᵀ, then Pᵢⱼ = exp(Sᵢⱼ − Lᵢ) from L alone; 0 where masked or where the row
        // has no visible key (L = −∞).
        Pt.noalias() = scale * (Qi * Kj.transpose());
        for (int a = 0; a < br; ++a) {
          const float La = L[static_cast<std::size_t>(r0 + a)];
          if (La == kNegInf) {
            Pt.row(a).setZero();
            continue;
          }
          Pt.row(a).array() = (Pt.row(a).array() - La).exp();
          if (kind == TileKind::partial) {
            const Mask::KeyRange keys = mask.keys(r0 + a);
            for (int b = 0; b < bc; ++b)
              if (c0 + b < keys.begin || c0 + b >= keys.end) Pt(a, b) = 0.0f;
          }
        }
        // dVⱼ += Pᵢⱼᵀ dOᵢ; dPᵢⱼ = dOᵢ Vⱼᵀ; dSᵢⱼ = Pᵢⱼ ∘ (dPᵢⱼ − Dᵢ).
        dVj.topRows(bc).noalias() += Pt.transpose() * dOi;
        dSt.noalias() = dOi * Vj.transpose();
        for (int a = 0; a < br; ++a)
          dSt.row(a).array() = Pt.row(a).array() * (dSt.row(a).array() - g.D[static_cast<std::size_t>(r0 + a)]);
        // dQᵢ += s·dSᵢⱼ Kⱼ; dKⱼ += s·dSᵢⱼᵀ Qᵢ.
        dQ.middleRows(r0, br).noalias() += scale * (dSt * Kj);
        dKj.topRows(bc).noalias() += scale * (dSt.transpose() * Qi);
      }
      g.dK.middleRows(c0, bc) = dKj.topRows(bc);
      g.dV.middleRows(c0, bc) = dVj.topRows(bc);
    }
#pragma omp barrier
    // dQ = the threads' dQ summed in thread order, rows split across the threads.
#pragma omp for schedule(static)
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < T; ++k) g.dQ.row(i) += dQ_of_thread[static_cast<std::size_t>(k)].row(i);
  }
}

}  // namespace flashstep::fast
