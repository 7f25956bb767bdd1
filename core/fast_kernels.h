// What the fast kernels' files share (core/fast_softmax.cpp, core/fast_attention.cpp): the
// vector type, the special values and the start of the running state, the running (m, l) and the
// helpers both the softmax rows and the attention tiles use (max, sum of exponentials, settling
// a row). Private to those two files.
//
// Everything here has internal linkage (an unnamed namespace, a static function), as it had when
// the kernels were one file: each kernel file gets its own copy, inlined and specialised with its
// callers, and no call crosses files in the kernels' loops.
#pragma once

#include "core/fast.h"

#include "core/initial_state.h"
#include "core/workspace.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

namespace flashstep::fast {
namespace {

namespace ei = Eigen::internal;
using Packet = ei::packet_traits<float>::type;
constexpr std::int64_t kP = ei::unpacket_traits<Packet>::size;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kPosInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Where every running (m, l) and output accumulator starts (core/initial_state.h).
constexpr float kInitM = static_cast<float>(initial_state().m), kInitL = static_cast<float>(initial_state().l),
                kInitO = static_cast<float>(initial_state().o);

struct ML {
  float m = kInitM, l = kInitL;
  bool neg_inf = false;  // some entry is −∞: normalize() must write its exact 0
};

// The larger of a and b, NaN if either is (std::max(a, NaN) is a).
float nan_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

// exp(x) of a vector. With AVX-512 Eigen's own packet exp builds 2^m in one step, and it is used
// as it is. Elsewhere (AVX2, SSE2) Eigen's generic one multiplies by 2^m through an ldexp written
// for any exponent (clamped, split in four factors): a third of the exp's instructions, where the
// kernels are bound by exp. This is the same clamp, range reduction and polynomial, and 2^m as two
// factors 2^⌊m/2⌋ · 2^(m − ⌊m/2⌋): after the clamp m ∈ [−128, 128], so both are normal numbers,
// the first product is exact and the second rounds once, as Eigen's last product does. The result
// is Eigen's, bit for bit.
[[gnu::always_inline]] inline Packet vexp(const Packet x) {
#if defined(__AVX512F__)
  return ei::pexp(x);
#else
  using PacketI = ei::unpacket_traits<Packet>::integer_packet;
  auto c = [](float v) { return ei::pset1<Packet>(v); };
  const Packet t = ei::pmax(ei::pmin(x, c(88.723f)), c(-88.723f));
  const Packet m = ei::pfloor(ei::pmadd(t, c(1.44269504088896341f), c(0.5f)));
  Packet r = ei::pmadd(m, c(-0.693359375f), t);
  r = ei::pmadd(m, c(2.12194440e-4f), r);
  const Packet r2 = ei::pmul(r, r), r3 = ei::pmul(r2, r);
  Packet y = ei::pmadd(c(1.9875691500E-4f), r, c(1.3981999507E-3f));
  Packet y1 = ei::pmadd(c(4.1665795894E-2f), r, c(1.6666665459E-1f));
  const Packet y2 = ei::padd(r, c(1.0f));
  y = ei::pmadd(y, r, c(8.3334519073E-3f));
  y1 = ei::pmadd(y1, r, c(5.0000001201E-1f));
  y = ei::pmadd(y, r3, y1);
  y = ei::pmadd(y, r2, y2);
  const PacketI e = ei::pcast<Packet, PacketI>(m), bias = ei::pset1<PacketI>(127);
  const PacketI e1 = ei::parithmetic_shift_right<1>(e), e2 = ei::psub(e, e1);
  const Packet f1 = ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::padd(e1, bias)));
  const Packet f2 = ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::padd(e2, bias)));
  return ei::pmax(ei::pmul(ei::pmul(y, f1), f2), x);
#endif
}

// Whether the packet exp is exactly 0 at −∞: with AVX-512 it is; without, it is about 3e-39,
// and rows with a −∞ entry need a mask to give it weight exactly 0. Where it is exact, the max
// pass keeps no min and normalize() no mask.
bool exp_exact_at_neg_inf() {
  static const bool exact = ei::predux_max(vexp(ei::pset1<Packet>(kNegInf))) == 0.0f;
  return exact;
}

// The max of n floats, NaN if any of them is NaN. The vector max (maxps) drops a NaN, so a NaN
// among finite values is caught later, by the sum it turns into NaN (see settle()); only a part
// whose vector max is −∞, where nothing would be summed, is searched for a NaN here.
// With `neg_inf`, also whether some entry is −∞ (a min kept beside the max).
[[gnu::always_inline]] inline float max_of(const float* x, std::int64_t n, bool* neg_inf = nullptr) {
  Packet acc = ei::pset1<Packet>(kNegInf);
  std::int64_t i = 0;
  if (neg_inf) {
    Packet lo = ei::pset1<Packet>(kPosInf);
    for (; i + kP <= n; i += kP) {
      const Packet v = ei::ploadu<Packet>(x + i);
      acc = ei::pmax(acc, v);
      lo = ei::pmin(lo, v);
    }
    float mn = ei::predux_min(lo);
    for (std::int64_t k = i; k < n; ++k) mn = std::min(mn, x[k]);
    *neg_inf = mn == kNegInf;
  } else {
    for (; i + kP <= n; i += kP) acc = ei::pmax(acc, ei::ploadu<Packet>(x + i));
  }
  float m = ei::predux_max(acc);
  for (; i < n; ++i) m = nan_max(m, x[i]);
  if (m == kNegInf)
    for (std::int64_t k = 0; k < n; ++k)
      if (std::isnan(x[k])) return kNaN;
  return m;
}


// The (m, l) of a row or part after its sum: an l that came out NaN while m is finite means a
// NaN the vector max did not see, and m is NaN too, as numpy's max.
ML settle(float m, float l) {
  if (std::isnan(l) && !std::isnan(m) && m != kPosInf) m = kNaN;
  return {m, l, false};
}

// Σ exp(x_i − m). With `next`, the next `n` elements are prefetched while the exponentials
// are computed, so the memory reads of the next block overlap this block's arithmetic.
float sum_exp(const float* x, std::int64_t n, float m, const float* next = nullptr) {
  const Packet pm = ei::pset1<Packet>(m);
  Packet acc0 = ei::pzero(pm), acc1 = ei::pzero(pm);
  std::int64_t i = 0;
  for (; i + 2 * kP <= n; i += 2 * kP) {
    if (next) {
      __builtin_prefetch(next + i);
      __builtin_prefetch(next + i + kP);
    }
    acc0 = ei::padd(acc0, vexp(ei::psub(ei::ploadu<Packet>(x + i), pm)));
    acc1 = ei::padd(acc1, vexp(ei::psub(ei::ploadu<Packet>(x + i + kP), pm)));
  }
  for (; i + kP <= n; i += kP) acc0 = ei::padd(acc0, vexp(ei::psub(ei::ploadu<Packet>(x + i), pm)));
  float s = ei::predux(ei::padd(acc0, acc1));
  for (; i < n; ++i) s += std::exp(x[i] - m);
  return s;
}

// Σ exp(x_i − m) for the max m of a whole row: NaN when m is (a NaN in the row) or is +∞
// (exp(∞ − ∞)), 0 when the row is only −∞.
float row_sum(const float* x, std::int64_t n, float m) {
  if (std::isnan(m) || m == kPosInf) return kNaN;
  if (m == kNegInf) return 0.0f;
  return sum_exp(x, n, m);
}

// Splits [0, n) into `parts` nearly equal ranges; part p is [begin(p), begin(p + 1)).
std::int64_t part_begin(std::int64_t n, std::int64_t parts, std::int64_t p) { return n * p / parts; }

}  // namespace

// Stores a row's final (m, l) where the caller asked for them.
static void keep_ml(float* m_out, float* l_out, std::int64_t r, float m, float l) {
  if (m_out) m_out[r] = m;
  if (l_out) l_out[r] = l;
}

}  // namespace flashstep::fast
