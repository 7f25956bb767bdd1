// The backward rows' references, written plainly: the loss ℓ = Σ dO ∘ O in long double (for
// central differences) and the gradients from their definitions in long double loops, with the
// checks of a recording's gradients against them within tests/tolerance.h's bounds. Shared by
// the recorded engines' tests (test_backward.cpp) and the fast kernels' (test_fast_backward.cpp).
#pragma once

#include "core/algorithms.h"
#include "core/recording.h"
#include "core/scenario.h"
#include "tests/core/support.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace backward_reference {

using namespace flashstep;

using LMat = std::vector<std::vector<long double>>;

inline std::vector<Algorithm> backward_rows() {
  return rows::where([](const AlgorithmInfo& a) { return takes(a.algorithm, kInputDO); });
}

inline Scenario backward_scenario(Algorithm a, Precision p, int N, int d, std::uint64_t seed, bool causal, ScaleMode mode) {
  const support::Qkv in = support::attention_inputs(N, d, seed, 0.7);
  Scenario s;
  s.algorithm = a;
  s.precision = p;
  s.q = in.q, s.k = in.k, s.v = in.v;
  s.d_o = support::grid_normal(N, d, seed + 3000, 1.0, 3.96875);
  s.causal = causal;
  s.scale_mode = mode;
  return s;
}

inline LMat to_l(const MatrixRM& m) {
  LMat out(static_cast<std::size_t>(m.rows()), std::vector<long double>(static_cast<std::size_t>(m.cols())));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] = m(i, c);
  return out;
}

// ℓ = Σ dO ∘ O with O = softmax(s · Q Kᵀ + mask) V, in long double: the loss whose gradient the
// backward computes.
inline long double loss(const LMat& Q, const LMat& K, const LMat& V, const LMat& dO, long double s, bool causal) {
  const std::size_t N = Q.size(), d = Q[0].size();
  long double total = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t visible = causal ? i + 1 : N;
    std::vector<long double> S(visible);
    long double m = -INFINITY;
    for (std::size_t j = 0; j < visible; ++j) {
      long double dot = 0;
      for (std::size_t c = 0; c < d; ++c) dot += Q[i][c] * K[j][c];
      S[j] = s * dot;
      m = std::max(m, S[j]);
    }
    long double l = 0;
    for (long double x : S) l += std::exp(x - m);
    for (std::size_t j = 0; j < visible; ++j) {
      const long double p = std::exp(S[j] - m) / l;
      for (std::size_t c = 0; c < d; ++c) total += dO[i][c] * p * V[j][c];
    }
  }
  return total;
}

struct Grads {
  LMat dq, dk, dv;
  std::vector<long double> D;
};

// The gradients from their definitions, in long double: P = softmax(S), dV = Pᵀ dO, dP = dO Vᵀ,
// D = rowsum(dO ∘ O), dS = P ∘ (dP − D), dQ = s · dS K, dK = s · dSᵀ Q.
inline Grads analytic(const LMat& Q, const LMat& K, const LMat& V, const LMat& dO, long double s, bool causal) {
  const std::size_t N = Q.size(), d = Q[0].size();
  Grads g{LMat(N, std::vector<long double>(d, 0)), LMat(N, std::vector<long double>(d, 0)),
          LMat(N, std::vector<long double>(d, 0)), std::vector<long double>(N, 0)};
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t visible = causal ? i + 1 : N;
    std::vector<long double> S(visible), P(visible);
    long double m = -INFINITY, l = 0;
    for (std::size_t j = 0; j < visible; ++j) {
      long double dot = 0;
      for (std::size_t c = 0; c < d; ++c) dot += Q[i][c] * K[j][c];
      S[j] = s * dot;
      m = std::max(m, S[j]);
    }
    for (std::size_t j = 0; j < visible; ++j) l += std::exp(S[j] - m);
    std::vector<long double> O(d, 0);
    for (std::size_t j = 0; j < visible; ++j) {
      P[j] = std::exp(S[j] - m) / l;
      for (std::size_t c = 0; c < d; ++c) O[c] += P[j] * V[j][c];
    }
    for (std::size_t c = 0; c < d; ++c) g.D[i] += dO[i][c] * O[c];
    for (std::size_t j = 0; j < visible; ++j) {
      long double dP = 0;
      for (std::size_t c = 0; c < d; ++c) dP += dO[i][c] * V[j][c];
      const long double dS = P[j] * (dP - g.D[i]);
      for (std::size_t c = 0; c < d; ++c) {
        g.dv[j][c] += P[j] * dO[i][c];
        g.dq[i][c] += s * dS * K[j][c];
        g.dk[j][c] += s * dS * Q[i][c];
      }
    }
  }
  return g;
}

inline const MatrixRM& grad(const Recording& rec, const char* name) {
  const MatrixResult* m = rec.results.find_matrix(name);
  REQUIRE(m != nullptr);
  CHECK(m->group == "grads");
  return m->values;
}

// Every element of got within its bound of want; prints the worst observed / limit.
inline void check_within(const MatrixRM& got, const LMat& want, const MatrixRM& bound, const char* what) {
  double worst = 0;
  bool all = true;
  for (Eigen::Index i = 0; i < got.rows(); ++i)
    for (Eigen::Index c = 0; c < got.cols(); ++c) {
      const double e = static_cast<double>(std::fabs(got(i, c) - want[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)]));
      worst = std::max(worst, e / bound(i, c));
      all = all && e <= bound(i, c);
    }
  MESSAGE(std::string(what) << ": worst error / bound = " << worst);
  CHECK_MESSAGE(all, std::string(what) << " is off by more than its bound (worst " << worst << " of it)");
}

inline void check_grads(const Recording& rec, const Resolved& r, const Grads& want, const tolerance::GradBound& b) {
  check_within(grad(rec, "dq"), want.dq, b.dq, "dQ");
  check_within(grad(rec, "dk"), want.dk, b.dk, "dK");
  check_within(grad(rec, "dv"), want.dv, b.dv, "dV");
  const RowResult* D = rec.results.find_row("D");
  REQUIRE(D != nullptr);
  REQUIRE(D->values.size() == static_cast<std::size_t>(r.n));
  for (int i = 0; i < r.n; ++i)
    CHECK(std::fabs(D->values[static_cast<std::size_t>(i)] - static_cast<double>(want.D[static_cast<std::size_t>(i)])) <=
          b.D[static_cast<std::size_t>(i)]);
}


}  // namespace backward_reference
