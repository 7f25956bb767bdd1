// What the core tests share: inputs that every format holds exactly, the tolerance of each
// precision with its error model, and bitwise comparisons. Nothing here computes an expected
// result: that is reference.h's job.
#pragma once

#include "core/engine.h"
#include "core/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace support {

using Rows = std::vector<std::vector<double>>;
using flashstep::Precision;

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

// Spacing of the subnormals: below the smallest normal value an error is absolute, not
// relative (fp16's smallest normal is 6.1e-5, so softmax outputs of 1e-6 are subnormal there).
inline double subnormal_spacing(Precision p) {
  switch (p) {
    case Precision::fp64: return std::numeric_limits<double>::denorm_min();
    case Precision::fp32: return std::numeric_limits<float>::denorm_min();
    case Precision::fp16: return 0x1p-24;
    case Precision::bf16: return 0x1p-133;
  }
  return 0.0;
}

// Softmax output y_i = e_i / l. e_i = exp(x_i - m) is rounded once (u; the subtraction is exact
// for the grid inputs below except in bf16, where it adds u|x_i - m|, large only where y_i is
// tiny), l, a sum of n such terms, is off by at most (n - 1)u relative, the division adds u.
// The online forms round a rescale factor each time the max moves. About twice that worst
// case, 2(n + 2)u relative: ~1e-14 in fp64, 3e-6 in fp32, 2.5% in fp16 (~3 decimal digits,
// spent n times over) and 20% in bf16 (~2 digits), plus the subnormal spacing of the format.
inline double softmax_tol(Precision p, int n, long double want) {
  return 2.0 * (n + 2) * unit_roundoff(p) * std::fabs(static_cast<double>(want)) +
         2.0 * subnormal_spacing(p);
}

// log y_i = x_i - LSE, LSE = m + log l: log l inherits l's relative error (n + 2)u as an
// absolute one; m + log l and x_i - LSE each round at the size of their result.
inline double log_softmax_tol(Precision p, int n, long double want, long double lse) {
  const double u = unit_roundoff(p);
  return 2.0 * (n + 2) * u + 2.0 * u * static_cast<double>(std::fabs(want) + std::fabs(lse));
}

// O = P V, a weighted mean of the rows of V. Each score s carries about u|s| of rounding from
// its d-term dot product, which moves its weight p by that relative amount; the sums over the
// N keys and the d columns add a few u more. With the inputs below (|s| <= 16) the worst row
// is off by ~20u of max|V| at most; 32u of max|V| leaves room and is still ~1e-14 in fp64,
// 2e-6 in fp32, 1.6% in fp16 and 12% in bf16.
inline double attention_tol(Precision p, double max_abs_v) { return 32.0 * unit_roundoff(p) * max_abs_v; }

// Normal(0, sigma) on a grid of 1/32, clipped to |x| <= limit (at most 255/32): at most 8
// significant bits, so fp16 and bf16 hold every value exactly and the reference computes with
// exactly the numbers the engine sees.
inline Rows grid_normal(int rows, int cols, std::uint64_t seed, double sigma, double limit = 7.96875) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  Rows out(static_cast<std::size_t>(rows), std::vector<double>(static_cast<std::size_t>(cols)));
  for (auto& row : out)
    for (double& v : row) v = std::clamp(std::round(normal(gen) * 32.0) / 32.0, -limit, limit);
  return out;
}

// Softmax rows with outliers, so no row is close to uniform: values of size ~1.5 (|x| <= 6),
// one large positive outlier in [7.5, 9.875] and one -12 per row. The largest row sum of exp
// stays below fp16's 65504, so even naive softmax is finite in every format.
inline Rows softmax_rows(int rows, int n, std::uint64_t seed) {
  Rows x = grid_normal(rows, n, seed, 1.5, 6.0);
  std::mt19937_64 gen(seed ^ 0x9E3779B97F4A7C15ull);
  std::uniform_int_distribution<int> pos(0, n - 1), eighths(0, 19);
  for (auto& row : x) {
    row[static_cast<std::size_t>(pos(gen))] = 7.5 + eighths(gen) / 8.0;
    if (n > 2) row[static_cast<std::size_t>(pos(gen))] = -12.0;
  }
  return x;
}

// Q, K, V of N x d for attention. Q and K entries have size `sigma_qk` (|x| < 2) and two keys
// are four times larger than the rest, so some queries attend sharply; V has size 1 (|v| < 4).
struct Qkv {
  Rows q, k, v;
};
inline Qkv attention_inputs(int N, int d, std::uint64_t seed, double sigma_qk) {
  Qkv in{grid_normal(N, d, seed, sigma_qk, 1.96875), grid_normal(N, d, seed + 1000, sigma_qk, 1.96875),
         grid_normal(N, d, seed + 2000, 1.0, 3.96875)};
  for (int outlier : {N / 3, (2 * N) / 3})
    for (double& x : in.k[static_cast<std::size_t>(outlier)]) x *= 4.0;
  return in;
}

inline double max_abs(const Rows& m) {
  double out = 0;
  for (const auto& row : m)
    for (double x : row) out = std::max(out, std::fabs(x));
  return out;
}

// Equal bit for bit, where every NaN equals every NaN.
inline bool same(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

inline bool same_matrix(const flashstep::MatrixRM& a, const flashstep::MatrixRM& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (!same(a.data()[i], b.data()[i])) return false;
  return true;
}

inline bool same_vector(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

// A cell of the buffer called `name` ("m", "l", ...) in the state the Cursor is at.
inline double buffer_at(const flashstep::Recording& rec, const flashstep::Cursor& cur, const char* name,
                        int r, int c = 0) {
  return cur.value(rec.find_buffer(name), r, c);
}

}  // namespace support
