// Independent references for the tests: plain long-double loops, written from the definitions,
// sharing no code with the engines.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace ref {

using Vec = std::vector<long double>;
using Mat = std::vector<std::vector<long double>>;

// softmax(scale * x), computed with the max subtracted in long double.
inline Vec softmax(const std::vector<double>& x, long double scale = 1.0L) {
  long double m = -INFINITY;
  for (double v : x) m = std::fmax(m, scale * v);
  long double l = 0;
  for (double v : x) l += std::exp(scale * v - m);
  Vec y;
  for (double v : x) y.push_back(std::exp(scale * v - m) / l);
  return y;
}

inline long double logsumexp(const std::vector<double>& x, long double scale = 1.0L) {
  long double m = -INFINITY;
  for (double v : x) m = std::fmax(m, scale * v);
  long double l = 0;
  for (double v : x) l += std::exp(scale * v - m);
  return m + std::log(l);
}

// O = softmax(scale * Q Kᵀ + mask) V, row by row.
inline Mat attention(const std::vector<std::vector<double>>& Q, const std::vector<std::vector<double>>& K,
                     const std::vector<std::vector<double>>& V, long double scale, bool causal) {
  const std::size_t N = Q.size(), d = Q[0].size();
  Mat O(N, Vec(d, 0.0L));
  for (std::size_t i = 0; i < N; ++i) {
    Vec s(N, -INFINITY);
    long double m = -INFINITY;
    for (std::size_t j = 0; j < N; ++j) {
      if (causal && j > i) continue;
      long double dot = 0;
      for (std::size_t k = 0; k < d; ++k) dot += static_cast<long double>(Q[i][k]) * K[j][k];
      s[j] = scale * dot;
      m = std::fmax(m, s[j]);
    }
    long double l = 0;
    for (std::size_t j = 0; j < N; ++j)
      if (!(causal && j > i)) l += std::exp(s[j] - m);
    for (std::size_t j = 0; j < N; ++j) {
      if (causal && j > i) continue;
      const long double p = std::exp(s[j] - m) / l;
      for (std::size_t k = 0; k < d; ++k) O[i][k] += p * V[j][k];
    }
  }
  return O;
}

// log softmax(scale * x) = scale * x - LSE.
inline Vec log_softmax(const std::vector<double>& x, long double scale = 1.0L) {
  const long double lse = logsumexp(x, scale);
  Vec out;
  for (double v : x) out.push_back(scale * v - lse);
  return out;
}

// (m, l) after the first `count` elements: m = their max, l = sum of exp(scale * x_j - m).
// These are the online normalizer's invariants after step `count`.
struct MaxSum {
  long double m, l;
};
inline MaxSum prefix_max_sum(const std::vector<double>& x, std::size_t count, long double scale = 1.0L) {
  long double m = -INFINITY;
  for (std::size_t j = 0; j < count; ++j) m = std::fmax(m, scale * x[j]);
  long double l = 0;
  for (std::size_t j = 0; j < count; ++j)
    if (x[j] != -INFINITY) l += std::exp(scale * x[j] - m);  // a masked entry adds 0
  return {m, l};
}

// Scores of query row i: scale * q_i . k_j, -inf where the causal mask hides key j.
inline Vec scores(const std::vector<std::vector<double>>& Q, const std::vector<std::vector<double>>& K,
                  std::size_t i, long double scale, bool causal) {
  Vec s(K.size(), -INFINITY);
  for (std::size_t j = 0; j < K.size(); ++j) {
    if (causal && j > i) continue;
    long double dot = 0;
    for (std::size_t k = 0; k < Q[i].size(); ++k) dot += static_cast<long double>(Q[i][k]) * K[j][k];
    s[j] = scale * dot;
  }
  return s;
}

// m = max s, l = sum exp(s - m), LSE = m + log l of one row of scores (the first `count`).
struct RowStats {
  long double m, l, lse;
};
inline RowStats row_stats(const Vec& s, std::size_t count) {
  long double m = -INFINITY;
  for (std::size_t j = 0; j < count; ++j) m = std::fmax(m, s[j]);
  long double l = 0;
  for (std::size_t j = 0; j < count; ++j)
    if (s[j] != -INFINITY) l += std::exp(s[j] - m);
  return {m, l, m + std::log(l)};
}
inline RowStats row_stats(const Vec& s) { return row_stats(s, s.size()); }

}  // namespace ref
