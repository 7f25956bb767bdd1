// What the core tests share: inputs that every format holds exactly and bitwise comparisons.
// Nothing here computes an expected result (reference.h's job) or a tolerance
// (tests/tolerance.h's).
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
