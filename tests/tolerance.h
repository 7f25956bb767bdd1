// How far a computed softmax or attention result may be from the exact one, derived from the
// number format and the problem: never a constant tuned until a test passes on one machine.
// Every comparison test (engine against a long-double reference, fast kernel against recording,
// CPU against GPU) takes its tolerance from here.
//
// The derivation (first order in the unit roundoff u of the run's format; Higham, "Accuracy and
// Stability of Numerical Algorithms", ch. 3):
//
//  1. A sum or dot product of n terms, in any order, with or without fused multiply-adds, is
//     off by at most γ_n·Σ|terms|, γ_n = n·u/(1 − n·u). This covers the engines' sequential
//     sums, the fast kernels' vector lanes and the shaders' loops alike. For long sums this
//     worst case (every rounding at its extreme, all in one direction) is far from what
//     happens; Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019, Thm 3.1) show that with
//     rounding errors independent and of mean zero it is exceeded with probability at most
//     2n·exp(−λ²/2) by λ√n·u + n·u². We use the smaller of the two with λ = 7: a chance below
//     5e-11 per term, below 1e-6 over every sum this suite checks.
//  2. exp() is not correctly rounded anywhere. On the CPU we assume 8 ulp: glibc's exp/expf are
//     within 1 ulp, Eigen's packet exp (the fast backward's) within about 4.5 over fp32's range
//     ("the CPU's exp is within the bound the tolerances assume" checks it in every build), the
//     fast kernels' vector exp within 1 (1.26 without FMA; test_fast checks it on each ISA);
//     GLSL 4.30 §4.7.1 allows (3 + 2|a|) ulp for exp(a). One ulp of y is at most 2u_c|y|,
//     u_c the unit roundoff of the type exp is evaluated in (fp32, or fp64 for fp64 runs). fp16
//     and bf16 runs evaluate in fp32 and round once more: + u. Call this η(a).
//  3. A score s_j = scale·q·k_j is a dot product of d terms: |Δs_j| ≤ (γ_d + 2u)·σ_j with
//     σ_j = |scale|·Σ_k|q_k k_jk| (the 2u covers scaling before or after the sum). A scaled
//     softmax input s_j = scale·x_j is off by u|s_j|; an unscaled one is exact.
//  4. e_j = exp(s_j − m) carries the relative error ε_j = |Δs_j| + u|s_j − m| + η(s_j − m),
//     plus u for each time it is stored or multiplied in the format (P stored, p·v). An error
//     in m itself multiplies numerator and denominator alike and cancels in y and O, but not in
//     l, which is reported against the run's own m.
//  5. l = Σ e_j: relative error γ_n + Σ_j y_j ε_j (the weights y_j are the exact softmax).
//     The online forms rescale l (and O) by α = exp(m_old − m_new) at each of R rescales: each
//     costs u|Δm| + η(Δm) + a few u of products. Within a row m only grows, so Σ|Δm| is at most
//     the range of the scores: the exp errors telescope. FlashAttention-1 keeps O normalized
//     and also rescales each tile's P̃V by exp(m̃ − m_new): two exps and five roundings a tile.
//  6. y_i = e_i / l: |Δy_i| ≤ y_i (ε_i + l's error + u). O_c = Σ_j p_j v_jc:
//     |ΔO_c| ≤ Σ_j p_j|v_jc|(ε_j + γ_n + R's error) + W_c·(l's error) + u|O_c|,
//     W_c = Σ_j p_j|v_jc| ≥ |O_c|.
//  7. Below the smallest normal number errors are absolute: + 2 subnormal spacings.
//
// Two computations of the same thing, each within its bound of the exact value, are within the
// sum of the bounds of each other: that is the CPU-against-GPU tolerance. Per-step m and l use
// the largest ε_j instead of the weighted mean, so the bound holds for every partial sum too.
//
// The bounds are worst cases; the tests print observed / limit, and "a perturbation of twice
// the tolerance is caught" shows the check still fails on an error of the bound's size.
#pragma once

#include "core/compare.h"
#include "core/algorithms.h"
#include "core/engine.h"
#include "core/scenario.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tolerance {

using flashstep::Algorithm;
using flashstep::Precision;

// Which exp() produced the numbers.
enum class Exp { cpu, glsl };

// Unit roundoff u: the largest relative error of one rounded operation (half an ulp of 1).
inline double unit_roundoff(Precision p) {
  switch (p) {
    case Precision::fp64: return 0x1p-53;
    case Precision::fp32: return 0x1p-24;
    case Precision::fp16: return 0x1p-11;
    case Precision::bf16: return 0x1p-8;
  }
  return 1.0;
}

// Spacing of the subnormals: below the smallest normal value an error is absolute, not relative.
inline double subnormal_spacing(Precision p) {
  switch (p) {
    case Precision::fp64: return std::numeric_limits<double>::denorm_min();
    case Precision::fp32: return std::numeric_limits<float>::denorm_min();
    case Precision::fp16: return 0x1p-24;
    case Precision::bf16: return 0x1p-133;
  }
  return 0.0;
}

// γ_n, or the probabilistic λ√n·u when smaller (point 1).
inline constexpr double kLambda = 7.0;
inline double gamma(long long n, double u) {
  const double nn = static_cast<double>(n);
  const double worst = nn * u < 1.0 ? nn * u / (1.0 - nn * u) : std::numeric_limits<double>::infinity();
  return std::min(worst, kLambda * std::sqrt(nn) * u + nn * u * u);
}

// A number as a step sentence prints it (core/text.h: num, 5 significant digits) is off by at most
// half a unit in its fifth digit.
inline double printed_error(double v) {
  if (v == 0 || !std::isfinite(v)) return 0.0;
  return 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(v))) - 4.0);
}

// A score s = scale·q·k of d terms, computed in p, against its exact value (point 3); sigma =
// |scale|·Σ_k |q_k k_k|.
inline double score_error(Precision p, int d, double sigma) {
  const double u = unit_roundoff(p);
  return (gamma(d, u) + 2.0 * u) * sigma;
}

// Ulps that exp() may be off by (point 2), and what one ulp is relative to the result.
inline double exp_ulps(Exp e, double a) { return e == Exp::cpu ? 8.0 : 3.0 + 2.0 * std::fabs(a); }
inline double exp_unit(Precision p) { return p == Precision::fp64 ? 0x1p-53 : 0x1p-24; }

// η(a): relative error of one computed exp(a) in a run of format p (point 2).
inline double exp_error(Exp e, Precision p, double a) {
  const bool emulated = p == Precision::fp16 || p == Precision::bf16;
  return 2.0 * exp_ulps(e, a) * exp_unit(p) + (emulated ? unit_roundoff(p) : 0.0);
}

// log(x) as the engines compute it: < 1 ulp on the CPU; GLSL allows 3 ulp, or 2^-21 absolute for
// x in [0.5, 2]. Returned as an absolute error.
inline double log_error(Exp e, Precision p, double x) {
  const double y = std::fabs(std::log(x));
  const bool emulated = p == Precision::fp16 || p == Precision::bf16;
  double err = 2.0 * (e == Exp::cpu ? 1.0 : 3.0) * exp_unit(p) * y;
  if (e == Exp::glsl && x >= 0.5 && x <= 2.0) err = std::max(err, 0x1p-21);
  return err + (emulated ? unit_roundoff(p) * y : 0.0);
}

// Bounds on the differences compare() reports: output and lse absolute, m and l as rel_diff.
struct Bound {
  double output = 0, m = 0, l = 0, lse = 0;
};
inline Bound operator+(const Bound& a, const Bound& b) {
  return {a.output + b.output, a.m + b.m, a.l + b.l, a.lse + b.lse};
}
inline Bound max(const Bound& a, const Bound& b) {
  return {std::max(a.output, b.output), std::max(a.m, b.m), std::max(a.l, b.l), std::max(a.lse, b.lse)};
}

// The pieces every row bound needs: exact weights and the error of each exp term.
struct Terms {
  std::vector<long double> y;  // exact softmax weights of the finite scores
  std::vector<double> eps;     // ε_j of each term (point 4)
  double m = 0;                // exact max
  double dm = 0;               // error of the computed max (absolute)
  double range = 0;            // max − min of the finite scores
  double dm_any = 0;           // the largest score error: bounds the error of any prefix's max
  double dm_rel = 0;           // the same relative to the score, as rel_diff measures it
  long double l = 0;           // exact Σ exp(s_j − m)
};

// s: exact scores; ds: their error bounds (point 3); extra: roundings of each term in the format.
inline Terms terms(const std::vector<long double>& s, const std::vector<double>& ds, Precision p, Exp e,
                   bool subtract_max, int extra) {
  const double u = unit_roundoff(p);
  Terms t;
  long double m = -INFINITY, lo = INFINITY;
  for (std::size_t j = 0; j < s.size(); ++j) {
    if (!std::isfinite(static_cast<double>(s[j]))) continue;
    if (s[j] > m) m = s[j], t.dm = ds[j];
    t.dm_any = std::max(t.dm_any, ds[j]);
    t.dm_rel = std::max(t.dm_rel, ds[j] / std::max(std::fabs(static_cast<double>(s[j])), 1.0));
    lo = std::min(lo, s[j]);
  }
  t.m = static_cast<double>(m);
  t.range = static_cast<double>(m - lo);
  const long double shift = subtract_max ? m : 0.0L;
  for (long double v : s) t.l += std::isfinite(static_cast<double>(v)) ? std::exp(v - m) : 0.0L;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const bool finite = std::isfinite(static_cast<double>(s[j]));
    t.y.push_back(finite ? std::exp(s[j] - m) / t.l : 0.0L);
    const double a = static_cast<double>(s[j] - shift);
    t.eps.push_back(finite ? ds[j] + (subtract_max ? u * std::fabs(a) : 0.0) + exp_error(e, p, a) + extra * u : 0.0);
  }
  return t;
}

// The rescale errors of point 5: R rescales whose exponents sum to at most `telescoped`, and
// `per_tile` exps of up to `range` each that do not telescope (FlashAttention-1's P̃V factor).
inline double rescale_error(Precision p, Exp e, long long R, double telescoped, long long per_tile, double range,
                            int roundings) {
  const double u = unit_roundoff(p), uc = exp_unit(p);
  const double eta_sum_telescoped = e == Exp::cpu ? 2.0 * exp_ulps(e, 0) * uc * static_cast<double>(R)
                                                  : 2.0 * uc * (3.0 * static_cast<double>(R) + 2.0 * telescoped);
  const bool emulated = p == Precision::fp16 || p == Precision::bf16;
  const double tile_exps = static_cast<double>(per_tile) * (exp_error(e, p, range) + u * range);
  // The R·k roundings of the rescaled products accumulate like a sum of R·k terms (point 1).
  const long long products = R * (roundings + (emulated ? 1 : 0));
  return eta_sum_telescoped + u * telescoped + gamma(products, u) + tile_exps;
}

// How often the running max grows when the row is split into `parts` workers as every kernel
// splits it (worker w owns [w·n/parts, (w+1)·n/parts)), plus one rescale per merge.
inline long long rescales_in_parts(const std::vector<long double>& s, int parts) {
  const long long n = static_cast<long long>(s.size());
  long long count = parts - 1;
  for (long long w = 0; w < parts; ++w) {
    long double m = -INFINITY;
    for (long long j = w * n / parts; j < (w + 1) * n / parts; ++j)
      if (s[static_cast<std::size_t>(j)] > m) {
        if (m != -INFINITY) ++count;
        m = s[static_cast<std::size_t>(j)];
      }
  }
  return count;
}

// One softmax row as the engine of algorithm `a` computes it. x: the row as the engine holds it
// (already rounded to the format), scale: the multiplier, chunks: workers of `chunked`. `each`,
// when given, receives the bound of every output element (point 6, element by element).
inline Bound softmax_row(Algorithm a, const std::vector<double>& x, double scale, Precision p, Exp e, int chunks = 1,
                         std::vector<double>* each = nullptr) {
  const double u = unit_roundoff(p);
  const std::size_t n = x.size();
  std::vector<long double> s(n);
  std::vector<double> ds(n);
  for (std::size_t j = 0; j < n; ++j) {
    s[j] = static_cast<long double>(scale) * x[j];
    // The scale is rounded to the format too: two roundings of the score.
    ds[j] = scale == 1.0 ? 0.0 : 2.0 * u * std::fabs(static_cast<double>(s[j]));
  }
  const bool subtract = a != Algorithm::naive;
  const Terms t = terms(s, ds, p, e, subtract, 1);
  double weighted = 0, worst = 0;
  for (std::size_t j = 0; j < n; ++j) {
    weighted += static_cast<double>(t.y[j]) * t.eps[j];
    worst = std::max(worst, t.eps[j]);
  }
  // Rescales: one each time a worker's running max grows, and one per merge; their exponents
  // telescope to the range within each worker and across the merges. A GLSL exp(0) in fp32 need
  // not be 1, so there every step counts.
  long long R = 0;
  double telescoped = 0;
  if (a == Algorithm::online || a == Algorithm::chunked) {
    const int workers = std::max(chunks, 1);
    R = e == Exp::glsl && p == Precision::fp32 ? static_cast<long long>(n) + workers
                                                : std::max(rescales_in_parts(s, 1), rescales_in_parts(s, workers));
    telescoped = static_cast<double>(workers + 1) * t.range;
  }
  const double rescales = rescale_error(p, e, R, telescoped, 0, 0, 2);
  const double sum = gamma(static_cast<long long>(n), u);
  Bound b;
  if (each) each->assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double yi = static_cast<double>(t.y[i]) * (t.eps[i] + sum + weighted + rescales + u) + 2.0 * subnormal_spacing(p);
    if (each) (*each)[i] = yi;
    b.output = std::max(b.output, yi);
  }
  // Per-step m and l: any prefix of the row, l against the run's own m (off by up to dm_any).
  b.m = t.dm_rel;
  b.l = sum + worst + rescales + t.dm_any + u;
  // LSE = m + log l; log y_i = s_i − LSE.
  const double l_err = sum + weighted + rescales + u;
  const double lse = t.m + std::log(static_cast<double>(t.l));
  b.lse = t.dm + l_err + log_error(e, p, static_cast<double>(t.l)) + 2.0 * u * std::fabs(lse);
  if (a == Algorithm::logsumexp) {
    b.output = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double li = ds[i] + b.lse + u * std::fabs(static_cast<double>(s[i]) - lse);
      if (each) (*each)[i] = li;
      b.output = std::max(b.output, li);
    }
  }
  return b;
}

// Row i of attention as the engine of algorithm `a` computes it. Q, K, V as the engine holds
// them (rounded to the format), Tc: the number of K/V tiles of the tiled algorithms.
inline Bound attention_row(Algorithm a, const flashstep::MatrixRM& Q, const flashstep::MatrixRM& K,
                           const flashstep::MatrixRM& V, int i, double scale, bool causal, int Tc, Precision p,
                           Exp e) {
  const double u = unit_roundoff(p);
  const Eigen::Index N = K.rows(), d = Q.cols();
  const Eigen::Index visible = causal ? i + 1 : N;
  std::vector<long double> s(static_cast<std::size_t>(visible));
  std::vector<double> ds(s.size());
  const double dot = gamma(d, u) + 2.0 * u;
  for (Eigen::Index j = 0; j < visible; ++j) {
    long double acc = 0, sigma = 0;
    for (Eigen::Index k = 0; k < d; ++k) {
      acc += static_cast<long double>(Q(i, k)) * K(j, k);
      sigma += std::fabs(static_cast<long double>(Q(i, k)) * K(j, k));
    }
    s[static_cast<std::size_t>(j)] = static_cast<long double>(scale) * acc;
    ds[static_cast<std::size_t>(j)] = dot * std::fabs(scale) * static_cast<double>(sigma);
  }
  // e stored, p·v multiplied and, for the materialized path, P stored: three roundings.
  const Terms t = terms(s, ds, p, e, true, 3);
  double weighted = 0, worst = 0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    weighted += static_cast<double>(t.y[j]) * t.eps[j];
    worst = std::max(worst, t.eps[j]);
  }
  long long R = 0, per_tile = 0;
  int roundings = 0;
  if (a == Algorithm::attn_online)
    R = e == Exp::glsl && p == Precision::fp32 ? visible : rescales_in_parts(s, 1), roundings = 4;
  if (a == Algorithm::attn_tiled) R = Tc, per_tile = Tc, roundings = 6;
  if (a == Algorithm::attn_tiled_v2) R = Tc, roundings = 4;
  const double rescales = rescale_error(p, e, R, t.range, per_tile, t.range, roundings);
  const double sum = gamma(visible, u);
  const double l_err = sum + weighted + rescales + u;
  double worst_o = 0;
  for (Eigen::Index c = 0; c < d; ++c) {
    double W = 0, E = 0, O = 0;
    for (std::size_t j = 0; j < s.size(); ++j) {
      const double pv = static_cast<double>(t.y[j]) * std::fabs(V(static_cast<Eigen::Index>(j), c));
      W += pv;
      E += pv * t.eps[j];
      O += static_cast<double>(t.y[j]) * V(static_cast<Eigen::Index>(j), c);
    }
    worst_o = std::max(worst_o, W * (sum + rescales) + E + W * l_err + u * std::fabs(O));
  }
  Bound b;
  b.output = worst_o + 2.0 * subnormal_spacing(p);
  b.m = t.dm_rel;
  b.l = sum + worst + rescales + t.dm_any + u;
  const double lse = t.m + std::log(static_cast<double>(t.l));
  b.lse = t.dm + l_err + log_error(e, p, static_cast<double>(t.l)) + 2.0 * u * std::fabs(lse);
  return b;
}

// The bound of a whole run on one backend: the largest over its rows.
inline Bound of_run(const flashstep::Resolved& r, Exp e) {
  // A backward row's output is its forward's.
  const Algorithm a = flashstep::info(r.scenario.algorithm).runs_after.value_or(r.scenario.algorithm);
  const Precision p = r.scenario.precision;
  Bound b;
  if (flashstep::takes_qkv(a)) {
    for (int i = 0; i < r.n; ++i)
      b = max(b, attention_row(a, r.q, r.k, r.v, i, r.scale, r.scenario.causal, r.Tc, p, e));
  } else {
    for (int row = 0; row < r.rows; ++row) {
      std::vector<double> x(static_cast<std::size_t>(r.n));
      for (int j = 0; j < r.n; ++j) x[static_cast<std::size_t>(j)] = r.x(row, j);
      b = max(b, softmax_row(a, x, r.scale, p, e, r.chunks));
    }
  }
  return b;
}

// Two runs of the same scenario, each within its own bound of the exact result.
inline Bound between(const flashstep::Resolved& r, Exp a, Exp b) { return of_run(r, a) + of_run(r, b); }

// True when the report is within the bound; prints observed / limit for each figure.
inline bool within(const flashstep::CompareReport& rep, const Bound& b, const std::string& what = "") {
  MESSAGE(what << " observed / limit: output " << rep.max_abs_output_diff << " / " << b.output << ", m "
               << rep.max_rel_m_diff << " / " << b.m << ", l " << rep.max_rel_l_diff << " / " << b.l);
  return rep.max_abs_output_diff <= b.output && rep.max_rel_m_diff <= b.m && rep.max_rel_l_diff <= b.l;
}

// CHECKs each figure of the report against the bound, so a failure names the one that failed.
inline void check(const flashstep::CompareReport& rep, const Bound& b, const std::string& what = "") {
  CAPTURE(what);
  within(rep, b, what);
  CHECK(rep.max_abs_output_diff <= b.output);
  CHECK(rep.max_rel_m_diff <= b.m);
  CHECK(rep.max_rel_l_diff <= b.l);
}

// ---- gradients (the backward rows) ----------------------------------------------------------
//
//  8. The backward from dO, first order, each quantity against its exact value from the rounded
//     inputs (Δ: the bound on |computed − exact|):
//     - Pᵢⱼ, relative error e_P: the standard backward reads the forward's P = e_j / l, off by
//       ε_j + (l's error) + 2u (divide, store), both within the forward's l bound b.l (points
//       4-5): e_P = 2·b.l + 2u. The flash backward recomputes P = exp(S − L) from its own S
//       (point 3: Δs) and the forward's L (its lse bound): e_P = Δs + ΔL + u|S − L| + η(S − L) + 2u.
//     - dPᵢⱼ = dOᵢ · vⱼ, a dot product of d terms: γ_d·Σ_c|dO v|.
//     - Dᵢ = dOᵢ · Oᵢ from the computed O (the forward's output bound ΔO): γ_d·Σ|dO O| + Σ|dO|·ΔO.
//     - dSᵢⱼ = Pᵢⱼ(dPᵢⱼ − Dᵢ): |dSᵢⱼ|(e_P + 2u) + Pᵢⱼ(ΔdP + ΔD).
//     - dV = Pᵀ dO, dQ = s·dS K, dK = s·dSᵀ Q: sums of N terms in any order (the flash one's
//       over tiles too), each term carrying its factor's error: Σ|ΔdS|·|K| + (γ_N + 2u)Σ|dS K|,
//       times |s| (the 2u: the scale and the product), and Σ P|dO|(e_P + γ_N + u) for dV.
//     - rowsum(Pᵢ ∘ dPᵢ), which the standard backward shows beside Dᵢ: Σⱼ Pᵢⱼ(|dPᵢⱼ|·e_P + ΔdPᵢⱼ)
//       + γ_N·Σⱼ|Pᵢⱼ dPᵢⱼ|.
//     Plus 2 subnormal spacings (point 7). Masked entries have P = 0 and add nothing.
struct GradBound {
  flashstep::MatrixRM dq, dk, dv;  // element by element
  std::vector<double> D, D_from_P;
};
inline GradBound attention_grads(const flashstep::Resolved& r, Exp e) {
  const Algorithm fwd = *flashstep::info(r.scenario.algorithm).runs_after;
  const bool flash = fwd == Algorithm::attn_tiled_v2;
  const Precision p = r.scenario.precision;
  const double u = unit_roundoff(p), tiny = 2.0 * subnormal_spacing(p);
  const flashstep::MatrixRM &Q = r.q, &K = r.k, &V = r.v, &dO = r.d_o;
  const int N = r.n, d = r.d;
  const double scale = r.scale;
  const double dot = gamma(d, u) + 2.0 * u;
  flashstep::MatrixRM P = flashstep::MatrixRM::Zero(N, N), eP = P, dS = P, ddS = P;
  GradBound g;
  g.D.assign(static_cast<std::size_t>(N), 0.0);
  g.D_from_P = g.D;
  for (int i = 0; i < N; ++i) {
    const Bound b = attention_row(fwd, Q, K, V, i, scale, r.scenario.causal, r.Tc, p, e);
    const int visible = r.scenario.causal ? i + 1 : N;
    const std::size_t nv = static_cast<std::size_t>(visible);
    std::vector<long double> s(nv);
    std::vector<double> ds(nv);
    long double m = -INFINITY;
    for (int j = 0; j < visible; ++j) {
      long double acc = 0, sigma = 0;
      for (int k = 0; k < d; ++k) {
        acc += static_cast<long double>(Q(i, k)) * K(j, k);
        sigma += std::fabs(static_cast<long double>(Q(i, k)) * K(j, k));
      }
      s[static_cast<std::size_t>(j)] = scale * acc;
      ds[static_cast<std::size_t>(j)] = dot * std::fabs(scale) * static_cast<double>(sigma);
      m = std::max(m, s[static_cast<std::size_t>(j)]);
    }
    long double l = 0;
    for (long double v : s) l += std::exp(v - m);
    const long double L = m + std::log(l);
    std::vector<long double> O(static_cast<std::size_t>(d), 0.0L);
    for (int j = 0; j < visible; ++j) {
      const long double pj = std::exp(s[static_cast<std::size_t>(j)] - m) / l;
      P(i, j) = static_cast<double>(pj);
      for (int c = 0; c < d; ++c) O[static_cast<std::size_t>(c)] += pj * V(j, c);
      const double a = static_cast<double>(s[static_cast<std::size_t>(j)] - L);
      eP(i, j) = flash ? ds[static_cast<std::size_t>(j)] + b.lse + u * std::fabs(a) + exp_error(e, p, a) + 2.0 * u
                       : 2.0 * b.l + 2.0 * u;
    }
    long double D = 0;
    double dD = 0;
    for (int c = 0; c < d; ++c) {
      D += static_cast<long double>(dO(i, c)) * O[static_cast<std::size_t>(c)];
      dD += gamma(d, u) * std::fabs(static_cast<double>(dO(i, c) * O[static_cast<std::size_t>(c)])) +
            std::fabs(dO(i, c)) * b.output;
    }
    g.D[static_cast<std::size_t>(i)] = dD + tiny;
    for (int j = 0; j < visible; ++j) {
      long double dp = 0, sigma = 0;
      for (int c = 0; c < d; ++c) {
        dp += static_cast<long double>(dO(i, c)) * V(j, c);
        sigma += std::fabs(static_cast<long double>(dO(i, c)) * V(j, c));
      }
      const double ddp = gamma(d, u) * static_cast<double>(sigma);
      const double pdp = std::fabs(P(i, j) * static_cast<double>(dp));
      g.D_from_P[static_cast<std::size_t>(i)] += pdp * (eP(i, j) + gamma(N, u)) + P(i, j) * ddp;
      dS(i, j) = P(i, j) * static_cast<double>(dp - D);
      ddS(i, j) = std::fabs(dS(i, j)) * (eP(i, j) + 2.0 * u) + P(i, j) * (ddp + dD);
    }
  }
  for (double& x : g.D_from_P) x += tiny;
  const double sum = gamma(N, u) + 2.0 * u;
  g.dq = flashstep::MatrixRM::Zero(N, d), g.dk = g.dq, g.dv = g.dq;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int c = 0; c < d; ++c) {
        g.dq(i, c) += std::fabs(scale) * (ddS(i, j) * std::fabs(K(j, c)) + sum * std::fabs(dS(i, j) * K(j, c)));
        g.dk(j, c) += std::fabs(scale) * (ddS(i, j) * std::fabs(Q(i, c)) + sum * std::fabs(dS(i, j) * Q(i, c)));
        g.dv(j, c) += P(i, j) * std::fabs(dO(i, c)) * (eP(i, j) + gamma(N, u) + u);
      }
  g.dq.array() += tiny, g.dk.array() += tiny, g.dv.array() += tiny;
  return g;
}

// A central difference (f(x + h) − f(x − h)) / 2h of a smooth f is off by h²/6·|f‴| plus the
// rounding of f over 2h. Halving h cuts the first by 4: with D(h) and D(h/2), Richardson's
// R = (4·D(h/2) − D(h)) / 3 removes the h² term, and |D(h) − D(h/2)| / 3 is what it removed: a
// bound on R's own (h⁴) error as long as h is small enough for the h² term to dominate. f_error:
// the rounding of one evaluation of f.
inline double central_difference_error(long double d_h, long double d_h2, double f_error, long double h) {
  return static_cast<double>(std::fabs(d_h - d_h2) / 3.0L) + 2.0 * f_error / static_cast<double>(h);
}

}  // namespace tolerance
