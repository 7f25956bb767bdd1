// How far computed gradients of attention (dQ, dK, dV and D = rowsum(dO ∘ O)) may be from the
// exact ones, element by element, derived as tests/tolerance.h derives the forward's bounds
// (first order in the unit roundoff u; its points 1-7), through the backward's chain:
//
//  8. P: the standard backward reads the forward's P = e/l, off by ρ_ij·P_ij with ρ_ij = ε_j + the
//     error of l + u (points 4-6). The flash backward recomputes P = exp(S − L): ρ_ij = |ΔS_ij| +
//     |ΔL_i| + u|S_ij − L_i| + η(S_ij − L_i) + u, with ΔL the forward's LSE bound.
//  9. A product C = A B over n terms, with A and B off by ΔA, ΔB: |ΔC| ≤ |ΔA||B| + |A||ΔB| +
//     γ_n·|A||B| (point 1). The flash backward sums each tile first and adds the T tiles' sums
//     into the running dK, dV or dQ after scaling: γ_{n + 2T} covers that grouping too.
// 10. dP = dO Vᵀ (d terms), D = rowsum(dO ∘ O) (d terms, O off by the forward's output bound),
//     dS = P ∘ (dP − D) (two roundings), dV = Pᵀ dO, dQ = s·dS K and dK = s·dSᵀ Q (N terms; the
//     scale, rounded to the format, and the product by it: 2u of the result).
//
// Every bound is a sum of non-negative terms over the summed rows or keys, so it bounds every
// partial sum too (the flash backward's dKⱼ, dVⱼ and dQᵢ after each tile). Two computations (CPU
// and GPU, or standard and flash) are within the sum of their bounds.
#pragma once

#include "tolerance.h"

#include <cmath>
#include <vector>

namespace tolerance {

// Element by element bounds of one run's gradients: dq, dk, dv N × d, D N × 1.
struct GradBounds {
  flashstep::MatrixRM dq, dk, dv;
  std::vector<double> D;
};
inline GradBounds operator+(const GradBounds& a, const GradBounds& b) {
  GradBounds s{a.dq + b.dq, a.dk + b.dk, a.dv + b.dv, a.D};
  for (std::size_t i = 0; i < s.D.size(); ++i) s.D[i] += b.D[i];
  return s;
}

// The gradients of attention as the backward after `forward` computes them (attn_naive: the
// standard backward from the stored P; attn_tiled_v2: the flash backward, P from L, with Tr × Tc
// tiles), for inputs as the engine holds them (rounded to p) and the upstream gradient dO.
inline GradBounds gradients(Algorithm forward, const flashstep::MatrixRM& Q, const flashstep::MatrixRM& K,
                            const flashstep::MatrixRM& V, const flashstep::MatrixRM& dO, double scale, bool causal,
                            int Tr, int Tc, Precision p, Exp e) {
  using LD = long double;
  const double u = unit_roundoff(p), tiny = 2.0 * subnormal_spacing(p);
  const bool flash = forward == Algorithm::attn_tiled_v2;
  const Eigen::Index N = Q.rows(), d = Q.cols();
  const double dot = gamma(d, u) + 2.0 * u;
  // The exact forward and backward, and the bounds of P, dP, D and dS (points 8-10).
  std::vector<std::vector<LD>> P(N, std::vector<LD>(N, 0)), dS(N, std::vector<LD>(N, 0));
  std::vector<std::vector<double>> eP(N, std::vector<double>(N, 0)), edS(N, std::vector<double>(N, 0));
  GradBounds b{flashstep::MatrixRM::Zero(N, d), flashstep::MatrixRM::Zero(N, d), flashstep::MatrixRM::Zero(N, d),
               std::vector<double>(static_cast<std::size_t>(N), 0.0)};
  for (Eigen::Index i = 0; i < N; ++i) {
    const Eigen::Index visible = causal ? i + 1 : N;
    std::vector<LD> s(static_cast<std::size_t>(visible));
    std::vector<double> ds(s.size());
    for (Eigen::Index j = 0; j < visible; ++j) {
      LD acc = 0, sigma = 0;
      for (Eigen::Index k = 0; k < d; ++k) {
        acc += static_cast<LD>(Q(i, k)) * K(j, k);
        sigma += std::fabs(static_cast<LD>(Q(i, k)) * K(j, k));
      }
      s[static_cast<std::size_t>(j)] = static_cast<LD>(scale) * acc;
      ds[static_cast<std::size_t>(j)] = dot * std::fabs(scale) * static_cast<double>(sigma);
    }
    const Terms t = terms(s, ds, p, e, true, 3);
    const Bound row = attention_row(forward, Q, K, V, static_cast<int>(i), scale, causal, Tc, p, e);
    double weighted = 0;
    for (std::size_t j = 0; j < s.size(); ++j) weighted += static_cast<double>(t.y[j]) * t.eps[j];
    const double l_err = gamma(visible, u) + weighted + u;
    const double L = t.m + std::log(static_cast<double>(t.l));
    // O and D = rowsum(dO ∘ O).
    std::vector<LD> O(static_cast<std::size_t>(d), 0);
    for (Eigen::Index j = 0; j < visible; ++j)
      for (Eigen::Index c = 0; c < d; ++c) O[static_cast<std::size_t>(c)] += t.y[static_cast<std::size_t>(j)] * V(j, c);
    LD D = 0;
    double dO_abs = 0, dO_O = 0;
    for (Eigen::Index c = 0; c < d; ++c) {
      D += static_cast<LD>(dO(i, c)) * O[static_cast<std::size_t>(c)];
      dO_abs += std::fabs(dO(i, c));
      dO_O += std::fabs(dO(i, c) * static_cast<double>(O[static_cast<std::size_t>(c)]));
    }
    const double eD = dO_abs * row.output + gamma(d, u) * dO_O;
    b.D[static_cast<std::size_t>(i)] = eD + tiny;
    for (Eigen::Index j = 0; j < visible; ++j) {
      const std::size_t js = static_cast<std::size_t>(j);
      P[i][js] = t.y[js];
      const double a = static_cast<double>(s[js]) - L;
      const double rho = flash ? ds[js] + row.lse + u * std::fabs(a) + exp_error(e, p, a) + u : t.eps[js] + l_err + u;
      eP[i][js] = rho * static_cast<double>(P[i][js]) + tiny;
      LD dP = 0;
      double dP_abs = 0;
      for (Eigen::Index c = 0; c < d; ++c) {
        dP += static_cast<LD>(dO(i, c)) * V(j, c);
        dP_abs += std::fabs(dO(i, c) * V(j, c));
      }
      const double gap = std::fabs(static_cast<double>(dP - D));
      dS[i][js] = P[i][js] * (dP - D);
      edS[i][js] = eP[i][js] * gap + static_cast<double>(P[i][js]) * (gamma(d, u) * dP_abs + eD) +
                   2.0 * u * static_cast<double>(P[i][js]) * gap + tiny;
    }
  }
  // dV = Pᵀ dO, dQ = s·dS K, dK = s·dSᵀ Q (points 9, 10).
  const double g_kv = gamma(N + 2LL * (flash ? Tr : 0), u), g_q = gamma(N + 2LL * (flash ? Tc : 0), u);
  const double as = std::fabs(scale);
  for (Eigen::Index x = 0; x < N; ++x)
    for (Eigen::Index c = 0; c < d; ++c) {
      double dv = 0, dv_mag = 0, dq = 0, dq_mag = 0, dk = 0, dk_mag = 0;
      for (Eigen::Index y = 0; y < N; ++y) {
        // dV and dK of key row x (sums over query rows y); dQ of query row x (over key rows y).
        dv += eP[y][x] * std::fabs(dO(y, c));
        dv_mag += static_cast<double>(P[y][x]) * std::fabs(dO(y, c));
        dk += edS[y][x] * std::fabs(Q(y, c));
        dk_mag += std::fabs(static_cast<double>(dS[y][x]) * Q(y, c));
        dq += edS[x][y] * std::fabs(K(y, c));
        dq_mag += std::fabs(static_cast<double>(dS[x][y]) * K(y, c));
      }
      b.dv(x, c) = dv + g_kv * dv_mag + tiny;
      // 2u of Σ|terms| rather than of the sum: a bound of every partial sum too (the flash
      // backward's dKⱼ and dQᵢ after each tile), whose terms are a subset of these.
      b.dk(x, c) = as * (dk + (g_kv + 2.0 * u) * dk_mag) + tiny;
      b.dq(x, c) = as * (dq + (g_q + 2.0 * u) * dq_mag) + tiny;
    }
  return b;
}

}  // namespace tolerance
