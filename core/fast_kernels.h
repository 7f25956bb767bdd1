// What the fast kernels' files share (core/fast_softmax.cpp, core/fast_attention.cpp): the
// vector type, the special values and the start of the running state, the running (m, l) and the
// helpers both the softmax rows and the attention tiles use (max, sum of exponentials, settling
// a row). Private to those two files, and to bench/bench_exp.cpp, which times the exponentials
// against others.
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
};

// The larger of a and b, NaN if either is (std::max(a, NaN) is a).
float nan_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

// vexp's constants: the polynomial's coefficients (below), each times a factor s, and the number
// that rounds t·log2 e to an integer n in an FMA, 1.5·2²³ + k, so that n_round's low bits hold
// n + k. vexp takes s = 1, k = 0; vexp_term s = 1, k = 127 (kTermBias); vexp_scaled s = 1/l and
// k = kScaledBias.
struct ExpConsts {
  Packet c[7];  // highest degree first
  Packet round;
};
inline ExpConsts exp_consts(float s = 1.0f, float k = 0.0f) {
  constexpr float coeff[7] = {1.392621314e-3f, 8.363203146e-3f, 4.166655615e-2f, 1.666657627e-1f, 0.5f, 1.0f, 1.0f};
  ExpConsts e;
  for (int i = 0; i < 7; ++i) e.c[i] = ei::pset1<Packet>(coeff[i] * s);
  e.round = ei::pset1<Packet>(12582912.0f + k);  // 1.5·2²³ + k
  return e;
}

// vexp's steps after its clamp, on t: n = round(t·log2 e) (n_round holds n + k in its low bits)
// and p = s·exp(t − n·ln 2), so that s·exp(t) = p·2ⁿ.
struct ExpParts {
  Packet p, n, n_round;
};
[[gnu::always_inline]] inline ExpParts exp_parts(const Packet t, const ExpConsts& k = exp_consts()) {
  auto c = [](float v) { return ei::pset1<Packet>(v); };
  const Packet n_round = ei::pmadd(t, c(1.44269504088896341f), k.round);
  const Packet n = ei::psub(n_round, k.round);
  Packet r = ei::pmadd(n, c(-0.693359375f), t);
  r = ei::pmadd(n, c(2.12194440e-4f), r);
  Packet p = k.c[0];
  for (int i = 1; i < 7; ++i) p = ei::pmadd(p, r, k.c[i]);
  return {p, n, n_round};
}

// max(lo, x) and min(hi, x) of a vector that keep a NaN x: the x86 instructions return their
// second operand when either is NaN (Eigen's pmax / pmin order them the other way).
[[gnu::always_inline]] inline Packet at_least(float lo, const Packet x) {
#if defined(__AVX512F__)
  return _mm512_max_ps(ei::pset1<Packet>(lo), x);
#elif defined(__AVX__)
  return _mm256_max_ps(ei::pset1<Packet>(lo), x);
#else
  return _mm_max_ps(ei::pset1<Packet>(lo), x);
#endif
}
[[gnu::always_inline]] inline Packet at_most(float hi, const Packet x) {
#if defined(__AVX512F__)
  return _mm512_min_ps(ei::pset1<Packet>(hi), x);
#elif defined(__AVX__)
  return _mm256_min_ps(ei::pset1<Packet>(hi), x);
#else
  return _mm_min_ps(ei::pset1<Packet>(hi), x);
#endif
}

// exp(x) of a vector, within 1 ulp over all of fp32's range with FMA (AVX2, AVX-512), 1.26
// without (SSE2), denormal results included (checked over every float in [−110, 95] on each
// instruction set), exp(−∞) = 0 exactly, exp(+∞) = +∞, NaN stays NaN. The kernels are bound by it, so it is written for the fewest instructions:
// - the clamp to [−104, 89] keeps a NaN (min and max return their second operand when either is
//   NaN) and beyond it the result is 0 or +∞ anyway;
// - n = round(x·log2 e) by adding 1.5·2²³, which rounds to an integer in the FMA itself (no
//   floor or round instruction, and n's bits are then the sum's low bits);
// - r = x − n·ln 2 in two FMAs (ln 2 split in a short head and a tail), so r is exact to fp32;
// - exp(r) on |r| ≤ ln(2)/2 by a degree-6 polynomial, 1 + r + r²/2 + … with the last four
//   coefficients fitted to g(r) = (exp(r) − 1 − r)/r² at Chebyshev nodes (error 3·10⁻⁹, a
//   twentieth of an ulp), in Horner's form: six FMAs;
// - times 2ⁿ: AVX-512 has it as one instruction (vscalefps) that also rounds denormal results
//   and overflows to +∞; elsewhere 2ⁿ is built as two factors 2^⌊n/2⌋ · 2^(n − ⌊n/2⌋), each a
//   normal number for n ∈ [−150, 128], so the first product is exact and the second rounds once.
// Eigen's own packet exp takes 19 operations on AVX-512 (this: 13) and, without AVX-512, returns
// about 3·10⁻³⁹ at −∞ instead of 0.
[[gnu::always_inline]] inline Packet vexp(const Packet x) {
  const ExpParts e = exp_parts(at_least(-104.0f, at_most(89.0f, x)));
#if defined(__AVX512F__)
  return _mm512_scalef_ps(e.p, e.n);
#else
  using PacketI = ei::unpacket_traits<Packet>::integer_packet;
  const PacketI n = ei::psub(ei::preinterpret<PacketI>(e.n_round), ei::preinterpret<PacketI>(ei::pset1<Packet>(12582912.0f)));
  const PacketI bias = ei::pset1<PacketI>(127);
  const PacketI e1 = ei::parithmetic_shift_right<1>(n), e2 = ei::psub(n, e1);
  const Packet f1 = ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::padd(e1, bias)));
  const Packet f2 = ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::padd(e2, bias)));
  return ei::pmul(ei::pmul(e.p, f1), f2);
#endif
}

// exp(x) for x ≤ 0 that only goes into a sum holding a term exp(0) = 1 (x = x_i − m, m a max of
// the x_i: the sums of sum_exp and online_ml): vexp(x), bit for bit, for x ≥ −87.33; below that,
// −∞ included, a number from 0 to vexp(−87.33) ≈ 1.2·10⁻³⁸ (vexp(x) with AVX-512, vexp(−87.33)
// without), which beside that 1 changes no bit of a sum of fewer than 2¹⁰² terms. (A sum with no
// such 1, that of a lane of online_ml that has seen only −∞, is set to 0 by its caller.) A NaN
// stays NaN. Without AVX-512, 2ⁿ is then one factor, n ≥ −126 (n_round's low bits, which hold
// n + 127 already, shifted into the exponent field), and x ≤ 0 needs no upper clamp: 13 operations
// instead of vexp's 21, where the sums are bound by them; with AVX-512, 12 instead of 13 (the
// upper clamp).
constexpr float kTermBias = 127.0f;  // fp32's exponent bias
[[gnu::always_inline]] inline Packet vexp_term(const Packet x) {
#if defined(__AVX512F__)
  const ExpParts e = exp_parts(at_least(-104.0f, x));
  return _mm512_scalef_ps(e.p, e.n);
#else
  const ExpParts e = exp_parts(at_least(-87.33f, x), exp_consts(1.0f, kTermBias));
  using PacketI = ei::unpacket_traits<Packet>::integer_packet;
  // n_round's low 9 bits hold n + 127 (mod 512), in [1, 127]: 2ⁿ's exponent field, and bit 8,
  // shifted into the sign, is 0.
  return ei::pmul(e.p, ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::preinterpret<PacketI>(e.n_round))));
#endif
}

// n_round's offset in vexp_scaled: 2ⁿ is applied as 2^(n + 100), whose exponent field is
// n + 100 + 127, then times 2⁻¹⁰⁰.
constexpr float kScaledBias = 100.0f + kTermBias;

// s·exp(t) for t ≤ 0 and 2⁻⁷⁵ ≤ s ≤ 1, `k` = exp_consts(s, kScaledBias): a softmax output,
// exp(x_i − m)/l with s = 1/l (1 ≤ l ≤ the row's length, since l holds the max's exp(0) = 1), or
// a score tile's exponentials (s = 1). vexp's steps with s folded into the polynomial's
// coefficients (s·1 and s/2 exact, the others off by half an ulp of a term under 1/6 of the
// result), so no product by 1/l follows, and without the upper clamp (t ≤ 0). Without AVX-512,
// 2ⁿ as 2^(n + 100) (one factor: n + 100 in [−50, 100] for t in [−104, 0], n_round's low bits, which
// hold n + 227, shifted into the exponent field) and then 2⁻¹⁰⁰: p = s·exp(r) ≥ 2^−75.5, so
// p·2^(n + 100) ≥ 2^−125.5 is exact and normal, and the product by 2⁻¹⁰⁰ rounds once, to a
// subnormal where the result is one, as vexp's two factors do. exp(−∞) = 0 exactly, and a NaN (t
// or s) stays NaN. 2ⁿ in 3 operations instead of vexp's 9, and no upper clamp or product by 1/l:
// 14 operations in all. With s = 1 its values are vexp's, bit for bit (the same n, p and one
// rounding of p·2ⁿ). Within 1.5 ulp otherwise (2 without FMA): s in the coefficients moves each
// rounding of the polynomial within its binade.
[[gnu::always_inline]] inline Packet vexp_scaled(const Packet x, const ExpConsts& k) {
  const ExpParts e = exp_parts(at_least(-104.0f, x), k);
#if defined(__AVX512F__)
  return _mm512_scalef_ps(e.p, e.n);
#else
  using PacketI = ei::unpacket_traits<Packet>::integer_packet;
  // n_round's low 9 bits hold n + 100 + 127 (mod 512), in [77, 227]: 2^(n + 100)'s exponent
  // field, and bit 8, shifted into the sign, is 0.
  const Packet factor = ei::preinterpret<Packet>(ei::plogical_shift_left<23>(ei::preinterpret<PacketI>(e.n_round)));
  return ei::pmul(ei::pmul(e.p, factor), ei::pset1<Packet>(0x1p-100f));
#endif
}

// Asks for the cache lines `ahead` floats (read_ahead_floats(), asked once a call by the loop's
// kernel) past x[i, i + kStep): a loop over a long row calls it once a step of kStep floats, so
// that memory delivers the row while the loop computes. A step shorter than a line (kLineFloats)
// asks once per line; past the end of x a prefetch does nothing.
template <std::int64_t kStep>
[[gnu::always_inline]] inline void read_ahead(const float* x, std::int64_t i, std::int64_t ahead) {
  if constexpr (kStep >= kLineFloats) {
    for (std::int64_t u = 0; u < kStep; u += kLineFloats) __builtin_prefetch(x + i + ahead + u);
  } else if (i % kLineFloats < kStep) {
    __builtin_prefetch(x + i + ahead);
  }
}

// The length of each of kReadStreams parts of a long row of n floats (fast.h).
constexpr std::int64_t stream_part(std::int64_t n) { return stream_part_length(n, kP); }

// The max of n floats, NaN if any of them is NaN. The vector max (maxps) drops a NaN, so a NaN
// among finite values is caught later, by the sum it turns into NaN (see settle()); only a part
// whose vector max is −∞, where nothing would be summed, is searched for a NaN here. kAhead: x
// is a long row in memory (read ahead, as kReadStreams streams), not a tile's row in cache.
template <bool kAhead = false>
[[gnu::always_inline]] inline float max_of(const float* x, std::int64_t n) {
  Packet acc = ei::pset1<Packet>(kNegInf);
  std::int64_t i = 0;
  if constexpr (kAhead) {
    const std::int64_t h = stream_part(n), ahead = read_ahead_floats();
    Packet part[kReadStreams];
    for (Packet& a : part) a = acc;
    for (; i < h; i += kP)
      for (std::int64_t p = 0; p < kReadStreams; ++p) {
        read_ahead<kP>(x + p * h, i, ahead);
        part[p] = ei::pmax(part[p], ei::ploadu<Packet>(x + p * h + i));
      }
    for (const Packet& a : part) acc = ei::pmax(acc, a);
    i = kReadStreams * h;
  }
  for (; i + kP <= n; i += kP) acc = ei::pmax(acc, ei::ploadu<Packet>(x + i));
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
  return {m, l};
}

// Σ exp(x_i − m) for m at least every x_i and one of them, or beside a sum that holds such a
// term (vexp_term). kAhead: x is a long row in memory, read ahead as kReadStreams streams, so
// that the memory reads overlap the exponentials.
template <bool kAhead = false>
float sum_exp(const float* x, std::int64_t n, float m) {
  const Packet pm = ei::pset1<Packet>(m);
  auto term = [&](std::int64_t k) { return vexp_term(ei::psub(ei::ploadu<Packet>(x + k), pm)); };
  Packet acc0 = ei::pzero(pm), acc1 = ei::pzero(pm);
  std::int64_t i = 0;
  if constexpr (kAhead) {
    const std::int64_t h = stream_part(n), ahead = read_ahead_floats();
    static_assert(kReadStreams % 2 == 0, "the streams' terms go to two sums in pairs");
    for (; i < h; i += kP)
      for (std::int64_t p = 0; p < kReadStreams; p += 2) {
        read_ahead<kP>(x + p * h, i, ahead);
        read_ahead<kP>(x + (p + 1) * h, i, ahead);
        acc0 = ei::padd(acc0, term(p * h + i));
        acc1 = ei::padd(acc1, term((p + 1) * h + i));
      }
    i = kReadStreams * h;
  }
  for (; i + 2 * kP <= n; i += 2 * kP) {
    acc0 = ei::padd(acc0, term(i));
    acc1 = ei::padd(acc1, term(i + kP));
  }
  for (; i + kP <= n; i += kP) acc0 = ei::padd(acc0, term(i));
  float s = ei::predux(ei::padd(acc0, acc1));
  for (; i < n; ++i) s += std::exp(x[i] - m);
  return s;
}

// Σ exp(x_i − m) for the max m of a whole row: NaN when m is (a NaN in the row) or is +∞
// (exp(∞ − ∞)), 0 when the row is only −∞. kAhead as sum_exp's.
template <bool kAhead = false>
float row_sum(const float* x, std::int64_t n, float m) {
  if (std::isnan(m) || m == kPosInf) return kNaN;
  if (m == kNegInf) return 0.0f;
  return sum_exp<kAhead>(x, n, m);
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
