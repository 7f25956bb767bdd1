// The arithmetic the attention engines share (core/attention.cpp, core/attn_backward.cpp), in
// the scalar type T of the chosen precision: products that round as the precision promises, the
// masked scores, and the views the narration reads. For the engines' files only.
#pragma once

#include "core/mask.h"
#include "core/narration_attention.h"
#include "core/precision.h"
#include "core/scenario.h"

#include <cmath>
#include <type_traits>
#include <vector>

namespace flashstep::attention_math {

template <class T>
MatRM<T> cast(const MatrixRM& m) {
  return m.unaryExpr([](double v) { return from_double<T>(v); });
}

template <class T>
constexpr bool kNative = std::is_same_v<T, float> || std::is_same_v<T, double>;

// C = A Bᵀ (A is r × d, B is c × d). fp64/fp32 use Eigen's product; fp16/bf16 accumulate
// element by element so every multiply and add rounds to 16 bits, as the emulation promises.
template <class T>
MatRM<T> mul_abt(const MatRM<T>& A, const MatRM<T>& B) {
  if constexpr (kNative<T>) {
    return A * B.transpose();
  } else {
    MatRM<T> C(A.rows(), B.rows());
    for (Eigen::Index r = 0; r < A.rows(); ++r)
      for (Eigen::Index c = 0; c < B.rows(); ++c) {
        T acc = T(0);
        for (Eigen::Index k = 0; k < A.cols(); ++k) acc = acc + A(r, k) * B(c, k);
        C(r, c) = acc;
      }
    return C;
  }
}

// C = A B (A is r × c, B is c × d).
template <class T>
MatRM<T> mul_ab(const MatRM<T>& A, const MatRM<T>& B) {
  if constexpr (kNative<T>) {
    return A * B;
  } else {
    MatRM<T> C(A.rows(), B.cols());
    for (Eigen::Index r = 0; r < A.rows(); ++r)
      for (Eigen::Index c = 0; c < B.cols(); ++c) {
        T acc = T(0);
        for (Eigen::Index k = 0; k < A.cols(); ++k) acc = acc + A(r, k) * B(k, c);
        C(r, c) = acc;
      }
    return C;
  }
}

// C = Aᵀ B (A is r × c, B is r × d): the backward's Pᵀ dO and dSᵀ Q.
template <class T>
MatRM<T> mul_atb(const MatRM<T>& A, const MatRM<T>& B) {
  if constexpr (kNative<T>) {
    return A.transpose() * B;
  } else {
    MatRM<T> C(A.cols(), B.cols());
    for (Eigen::Index r = 0; r < A.cols(); ++r)
      for (Eigen::Index c = 0; c < B.cols(); ++c) {
        T acc = T(0);
        for (Eigen::Index k = 0; k < A.rows(); ++k) acc = acc + A(k, r) * B(k, c);
        C(r, c) = acc;
      }
    return C;
  }
}

// exp(s - m) for an attention score, where a masked score (−inf) contributes exactly 0 even
// when its whole row in the tile is masked (m = −inf), instead of exp(−inf + inf) = nan.
template <class T>
T p_of(T s, T m) {
  using std::exp;
  if (std::isinf(to_double(s)) && to_double(s) < 0) return T(0);
  return exp(s - m);
}

// The inputs in T, the mask and the scores every attention engine computes.
template <class T>
struct AttnInputs {
  const int N, d;
  const T s;
  const bool scaled;
  const Mask mask;
  MatRM<T> Q, K, V;

  explicit AttnInputs(const Resolved& r)
      : N(r.n), d(r.d), s(from_double<T>(r.scale)), scaled(r.scale != 1.0), mask(Mask::of(r)),
        Q(cast<T>(r.q)), K(cast<T>(r.k)), V(cast<T>(r.v)) {}

  // Scores of a block: S = Q[rows] K[cols]ᵀ · s with the mask applied (−∞ where not visible).
  MatRM<T> scores(int r0, int nr, int c0, int nc) const {
    MatRM<T> S = mul_abt<T>(Q.middleRows(r0, nr), K.middleRows(c0, nc));
    if (scaled)
      for (Eigen::Index k = 0; k < S.size(); ++k) S.data()[k] = S.data()[k] * s;
    for (int a = 0; a < nr; ++a)
      for (int b = 0; b < nc; ++b)
        if (!mask.visible(r0 + a, c0 + b)) S(a, b) = -inf_of<T>();
    return S;
  }
};

// Rows [r0, r0 + nr) of a row-major matrix, as the narration reads them.
template <class T>
BlockView rows(const MatRM<T>& M, int r0 = 0, int nr = -1) {
  return {M.data() + static_cast<Eigen::Index>(r0) * M.cols(), nr < 0 ? static_cast<int>(M.rows()) : nr,
          static_cast<int>(M.cols()), M.cols()};
}
// Entries [r0, r0 + nr) of a per-row statistic, as an nr × 1 block.
template <class T>
BlockView column(const std::vector<T>& v, int r0, int nr) {
  return {v.data() + r0, nr, 1, 1};
}

}  // namespace flashstep::attention_math
