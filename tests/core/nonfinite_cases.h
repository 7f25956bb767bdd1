// The NaN and −∞ cases and their plain reference, with numpy's semantics for one softmax or
// attention row (the rule README states):
//  - a NaN anywhere in a row makes that row's output, m and l NaN (numpy's max is NaN too);
//  - −∞ entries, inputs or scores that overflow, get weight exactly 0;
//  - a +∞ entry makes the row NaN (∞ − ∞ in exp(x − m));
//  - a softmax row of only −∞ has m = −∞, l = 0 and y = 0/0 = NaN;
//  - an attention row with no finite score has no probability mass: O = 0, l = 0, m = −∞,
//    LSE = −∞ (FlashAttention's guard);
//  - a NaN in one query row stays in that row.
// Shared by the CPU table (tests/core/test_nonfinite.cpp) and the GPU sample
// (tests/gpu/test_gpu_nonfinite.cpp).
#pragma once

#include "core/algorithms.h"
#include "core/engine.h"
#include "tests/rows.h"
#include "tests/tolerance.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace nonfinite {

using namespace flashstep;

using LD = long double;
using Rows = std::vector<std::vector<double>>;
constexpr LD kInf = std::numeric_limits<LD>::infinity();
constexpr LD kNaN = std::numeric_limits<LD>::quiet_NaN();
constexpr double dInf = std::numeric_limits<double>::infinity();
constexpr double dNaN = std::numeric_limits<double>::quiet_NaN();

// ---- the reference ------------------------------------------------------------------------

struct RowRef {
  std::vector<LD> y;  // softmax weights (or log-softmax for logsumexp)
  LD m = -kInf, l = 0;
};

// Softmax of one row: weights exp(x − m) / l, −∞ entries weighing exactly 0. Naive softmax is
// numpy's exp(x) / sum(exp(x)): no max, so +∞ gives ∞/∞ = NaN only in its own place.
inline RowRef softmax_ref(const std::vector<LD>& x, bool log_softmax = false, bool naive = false) {
  RowRef r;
  bool nan = false;
  for (LD v : x) {
    if (std::isnan(v)) nan = true;
    else if (v > r.m) r.m = v;
  }
  if (nan) {
    r.m = r.l = kNaN;
    r.y.assign(x.size(), kNaN);
    return r;
  }
  std::vector<LD> e(x.size());
  const LD base = naive ? 0 : r.m;
  for (std::size_t i = 0; i < x.size(); ++i) {
    e[i] = x[i] == -kInf ? 0 : std::exp(x[i] - base);  // ∞ − ∞ = NaN when m = +∞
    r.l += e[i];
  }
  for (std::size_t i = 0; i < x.size(); ++i)
    r.y.push_back(log_softmax ? x[i] - (r.m + std::log(r.l)) : e[i] / r.l);
  return r;
}

inline LD format_max(Precision p) {
  switch (p) {
    case Precision::fp64: return std::numeric_limits<double>::max();
    case Precision::fp32: return std::numeric_limits<float>::max();
    case Precision::fp16: return 65504.0L;
    case Precision::bf16: return 0x1.fep127L;
  }
  return 0;
}

// A score as the format holds it: beyond the largest finite value it is ±∞ (d = 1 here, so the
// product is the only rounding that matters for overflow).
inline LD in_format(LD v, Precision p) {
  if (std::isnan(v)) return v;
  if (v > format_max(p)) return kInf;
  if (v < -format_max(p)) return -kInf;
  return v;
}

struct AttnRef {
  std::vector<std::vector<LD>> O;
  std::vector<LD> m, l, lse;
};

inline AttnRef attention_ref(const Rows& Q, const Rows& K, const Rows& V, bool causal, Precision p) {
  AttnRef r;
  const std::size_t N = Q.size(), d = Q[0].size();
  for (std::size_t i = 0; i < N; ++i) {
    std::vector<LD> s;
    for (std::size_t j = 0; j < N; ++j) {
      LD dot = 0;
      for (std::size_t c = 0; c < d; ++c) dot += static_cast<LD>(Q[i][c]) * K[j][c];
      s.push_back(causal && j > i ? -kInf : in_format(dot, p));
    }
    const RowRef w = softmax_ref(s);
    std::vector<LD> o(d, 0);
    if (w.l == 0) {  // no finite score: no probability mass, O = 0
      r.m.push_back(-kInf), r.l.push_back(0), r.lse.push_back(-kInf);
    } else {
      for (std::size_t c = 0; c < d; ++c)
        for (std::size_t j = 0; j < N; ++j)
          o[c] += (std::isnan(w.y[j]) ? kNaN : w.y[j] == 0 ? 0 : w.y[j] * V[j][c]);
      r.m.push_back(w.m), r.l.push_back(w.l), r.lse.push_back(w.m + std::log(w.l));
    }
    r.O.push_back(o);
  }
  return r;
}

// ---- comparison ---------------------------------------------------------------------------

// NaN matches NaN, ∞ matches the same ∞, an exact 0 (the weight of a −∞ entry) only 0, finite
// values within `tol` (absolute).
inline bool same(double got, LD want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == static_cast<double>(want);
  if (want == 0) return got == 0;
  return std::isfinite(got) && std::fabs(static_cast<LD>(got) - want) <= tol;
}

inline std::string show(LD v) { return std::to_string(static_cast<double>(v)); }

// ---- the cases ----------------------------------------------------------------------------

struct SoftmaxCase {
  std::string name;
  std::vector<double> x;
};

inline std::vector<double> repeat(double v, int n) { return std::vector<double>(static_cast<std::size_t>(n), v); }
inline std::vector<double> join(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// 4096 is the fast online kernel's block: a whole block of NaN, NaN after a block, a block of
// −∞ before finite values, and a row long enough (5000) to end in a partial block.
inline std::vector<SoftmaxCase> softmax_cases() {
  return {
      {"NaN first", {dNaN, 1, 2}},
      {"NaN in the middle", {1, dNaN, 2}},
      {"NaN alone", {dNaN}},
      {"a whole block of NaN, then 1, 2", join(repeat(dNaN, 4096), {1, 2})},
      {"4998 NaN, then 1, 2", join(repeat(dNaN, 4998), {1, 2})},
      {"a block of 1, then NaN", join(repeat(1, 4096), {dNaN})},
      {"NaN with -inf", {-dInf, dNaN, 1}},
      {"-inf inputs", {-dInf, 1, 2, -dInf}},
      {"only -inf", {-dInf, -dInf, -dInf}},
      {"a block of -inf, then 1, 2", join(repeat(-dInf, 4096), {1, 2})},
      {"+inf", {1, dInf, 2}},
  };
}

struct SoftmaxAlgo {
  Algorithm a;
  int chunks;
};

// Every row that takes a vector x, from the table; a row with workers twice (2 and 3 of them).
inline std::vector<SoftmaxAlgo> softmax_algos() {
  std::vector<SoftmaxAlgo> out;
  for (Algorithm a : rows::taking_x()) {
    if (info(a).takes_workers) {
      out.push_back({a, 2});
      out.push_back({a, 3});
    } else {
      out.push_back({a, 1});
    }
  }
  return out;
}

// The finite outputs' tolerance: the format's bound for the row's finite entries
// (tests/tolerance.h), where a NaN row has none.
inline double softmax_tolerance(Algorithm a, const std::vector<double>& x, Precision p, int chunks,
                                tolerance::Exp e = tolerance::Exp::cpu) {
  std::vector<double> finite;
  for (double v : x)
    if (!std::isnan(v) && !std::isinf(v)) finite.push_back(v);
  if (finite.empty()) return 0;
  const tolerance::Bound b = tolerance::softmax_row(a, finite, 1.0, p, e, chunks);
  return a == Algorithm::logsumexp ? b.lse + b.output : b.output;
}

inline void check_softmax(const std::string& what, const Recording& rec, const SoftmaxCase& c, Algorithm a,
                          Precision p, int chunks, tolerance::Exp e = tolerance::Exp::cpu) {
  CAPTURE(what);
  const bool log = a == Algorithm::logsumexp;
  std::vector<LD> x;
  for (double v : c.x) x.push_back(static_cast<LD>(v));
  const RowRef ref = softmax_ref(x, log, a == Algorithm::naive);
  const double tol = softmax_tolerance(a, c.x, p, chunks, e);
  REQUIRE(rec.output().cols() == static_cast<Eigen::Index>(c.x.size()));
  int bad = 0;
  for (std::size_t i = 0; i < c.x.size(); ++i)
    if (!same(rec.output()(0, static_cast<Eigen::Index>(i)), ref.y[i], tol)) {
      if (bad++ < 3)
        MESSAGE("y[" << i << "] = " << rec.output()(0, static_cast<Eigen::Index>(i)) << ", want " << show(ref.y[i]));
    }
  CHECK(bad == 0);
  if (a != Algorithm::naive) {  // naive has no max
    REQUIRE(rec.m().size() == 1);
    CHECK_MESSAGE(same(rec.m()[0], ref.m, 0.0), "m = " << rec.m()[0] << ", want " << show(ref.m));
  }
  REQUIRE(rec.l().size() == 1);
  const double ltol = std::isfinite(static_cast<double>(ref.l)) ? 1e-2 * static_cast<double>(ref.l) : 0;
  CHECK_MESSAGE(same(rec.l()[0], ref.l, ltol), "l = " << rec.l()[0] << ", want " << show(ref.l));
}

struct AttnCase {
  std::string name;
  Rows q, k, v;
  bool causal = false;
};

// `big` overflows a score to ±∞ when squared in the format and stays finite times 1.
inline double big_of(Precision p) {
  switch (p) {
    case Precision::fp64: return 1e200;
    case Precision::fp16: return 300;
    default: return 1e30;
  }
}

inline std::vector<AttnCase> attention_cases(Precision p) {
  const double b = big_of(p);
  return {
      // Row 0's scores are [−∞, big]: O = [[7], [7]].
      {"a score overflows to -inf as the first key", {{b}, {1}}, {{-b}, {1}}, {{5}, {7}}},
      {"every score of a row overflows to -inf", {{b}, {b}}, {{-b}, {-b}}, {{5}, {7}}},
      {"NaN in one query row", {{dNaN}, {1}}, {{-b}, {1}}, {{5}, {7}}},
      {"NaN in a row whose other score is -inf", {{b, dNaN}, {1, 0}}, {{-b, 0}, {1, 0}}, {{5, 1}, {7, 1}}},
      {"-inf in K", {{1}, {2}}, {{-dInf}, {1}}, {{5}, {7}}},
      {"a score overflows to +inf", {{b}, {1}}, {{b}, {1}}, {{5}, {7}}},
      // Causal, with row 0's only visible score −∞: a fully masked row in effect.
      {"causal, row 0 sees only a -inf score", {{b}, {1}, {2}}, {{-b}, {1}, {1}}, {{5}, {7}, {9}}, true},
  };
}

inline void check_attention(const std::string& what, const Recording& rec, const AttnCase& c, Precision p,
                     bool lse) {
  CAPTURE(what);
  const AttnRef ref = attention_ref(c.q, c.k, c.v, c.causal, p);
  const std::size_t N = c.q.size(), d = c.v[0].size();
  REQUIRE(rec.output().rows() == static_cast<Eigen::Index>(N));
  // The weights here are exactly 0 or 1 (an exp that underflows, or exp(0)), so a finite O is
  // v itself up to the few roundings of l·O/l: 8 unit roundoffs of the format.
  const double u = tolerance::unit_roundoff(p);
  for (std::size_t i = 0; i < N; ++i) {
    CAPTURE(i);
    for (std::size_t col = 0; col < d; ++col) {
      const double got = rec.output()(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(col));
      const LD want = ref.O[i][col];
      CHECK_MESSAGE(same(got, want, 8 * u * std::fabs(static_cast<double>(want))),
                    "O = " << got << ", want " << show(want));
    }
    REQUIRE(rec.m().size() == N);
    CHECK_MESSAGE(same(rec.m()[i], ref.m[i], 8 * u * std::fabs(static_cast<double>(ref.m[i]))),
                  "m = " << rec.m()[i] << ", want " << show(ref.m[i]));
    CHECK_MESSAGE(same(rec.l()[i], ref.l[i], 8 * u * std::fabs(static_cast<double>(ref.l[i]))),
                  "l = " << rec.l()[i] << ", want " << show(ref.l[i]));
    if (lse && rec.lse().size() == N)
      CHECK_MESSAGE(same(rec.lse()[i], ref.lse[i], 8 * u * (1 + std::fabs(static_cast<double>(ref.lse[i])))),
                    "LSE = " << rec.lse()[i] << ", want " << show(ref.lse[i]));
  }
}

}  // namespace nonfinite
