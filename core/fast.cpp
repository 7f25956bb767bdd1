#include "core/fast.h"

#include "core/initial_state.h"
#include "core/workspace.h"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include <unistd.h>

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
// Pass 1 of the online kernel works on blocks this long: 16 KiB stays in L1 between the
// block's max and its exponentials, so memory sees x once.
constexpr std::int64_t kBlock = 4096;
// Rows shorter than this are not split across threads.
constexpr std::int64_t kSplitRow = 1 << 16;

struct ML {
  float m = kInitM, l = kInitL;
  bool neg_inf = false;  // some entry is −∞: normalize() must write its exact 0
};

// The larger of a and b, NaN if either is (std::max(a, NaN) is a).
float nan_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

// The online merge of two partial (m, l): the larger max wins, the other sum is rescaled. A
// part that has seen only −∞ (m = −∞, l = 0) adds nothing instead of exp(−∞ + ∞) = NaN; a NaN
// stays NaN; a +∞ makes l NaN (exp(∞ − ∞)), as the recording engines do.
ML merge(ML a, ML b) {
  const float m = nan_max(a.m, b.m);
  const bool neg_inf = a.neg_inf || b.neg_inf;
  if (std::isnan(m)) return {kNaN, kNaN, neg_inf};
  if (m == kNegInf) return {m, 0.0f, neg_inf};
  if (m == kPosInf) return {m, kNaN, neg_inf};
  const float fa = a.m == kNegInf ? 0.0f : std::exp(a.m - m);
  const float fb = b.m == kNegInf ? 0.0f : std::exp(b.m - m);
  return {m, a.l * fa + b.l * fb, neg_inf};
}

// The max of n floats, NaN if any of them is NaN. The vector max (maxps) drops a NaN, so a NaN
// among finite values is caught later, by the sum it turns into NaN (see settle()); only a part
// whose vector max is −∞, where nothing would be summed, is searched for a NaN here.
// Whether the packet exp is exactly 0 at −∞: with AVX-512 it is; without, it is about 3e-39,
// and rows with a −∞ entry need a mask to give it weight exactly 0. Where it is exact, the max
// pass keeps no min and normalize() no mask.
bool exp_exact_at_neg_inf() {
  static const bool exact = ei::predux_max(ei::pexp(ei::pset1<Packet>(kNegInf))) == 0.0f;
  return exact;
}

// Where a −∞ entry must be looked for: a flag for max_of, or nullptr when the exp is exact.
bool* neg_inf_flag(bool& flag) { return exp_exact_at_neg_inf() ? nullptr : &flag; }

// With `neg_inf`, also whether some entry is −∞ (a min kept beside the max).
float max_of(const float* x, std::int64_t n, bool* neg_inf = nullptr) {
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
    acc0 = ei::padd(acc0, ei::pexp(ei::psub(ei::ploadu<Packet>(x + i), pm)));
    acc1 = ei::padd(acc1, ei::pexp(ei::psub(ei::ploadu<Packet>(x + i + kP), pm)));
  }
  for (; i + kP <= n; i += kP) acc0 = ei::padd(acc0, ei::pexp(ei::psub(ei::ploadu<Packet>(x + i), pm)));
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

// y_i = exp(x_i − m) / l. y is written with streaming stores where the ISA has them: the
// output is not read again soon, and skipping the read-for-ownership saves a third stream.
template <bool kMask>
void normalize_finite(const float* x, float* y, std::int64_t n, float m, float l) {
  const float inv_l = 1.0f / l;
  const Packet pm = ei::pset1<Packet>(m), pinv = ei::pset1<Packet>(inv_l);
  // −∞ entries weigh exactly 0: the packet exp of a very negative number is not always 0
  // (about 3e-39 without AVX-512), so rows that have one are masked.
  const Packet pneg = ei::pset1<Packet>(kNegInf);
  auto term = [&](float v) { return v == kNegInf ? 0.0f : std::exp(v - m) * inv_l; };
  std::int64_t i = 0;
  for (; i < n && (reinterpret_cast<std::uintptr_t>(y + i) % (kP * sizeof(float))) != 0; ++i) y[i] = term(x[i]);
  for (; i + kP <= n; i += kP) {
    const Packet xv = ei::ploadu<Packet>(x + i);
    Packet v = ei::pmul(ei::pexp(ei::psub(xv, pm)), pinv);
    if constexpr (kMask) v = ei::pand(v, ei::pcmp_lt(pneg, xv));
#if defined(__AVX512F__)
    _mm512_stream_ps(y + i, v);
#elif defined(__AVX__)
    _mm256_stream_ps(y + i, v);
#else
    ei::pstoreu(y + i, v);
#endif
  }
  for (; i < n; ++i) y[i] = term(x[i]);
#if defined(__AVX__)
  _mm_sfence();
#endif
}

void normalize(const float* x, float* y, std::int64_t n, float m, float l, bool neg_inf) {
  // A row with a NaN, a +∞ (l is NaN) or only −∞ (l = 0: 0/0) is NaN throughout.
  if (std::isnan(m) || std::isnan(l) || l == 0.0f)
    std::fill(y, y + n, kNaN);
  else if (neg_inf)
    normalize_finite<true>(x, y, n, m, l);
  else
    normalize_finite<false>(x, y, n, m, l);
}

// (m, l) of x in blocks: a block's max, then its exponentials against the running max. A block
// of only −∞ adds nothing; a NaN ends the row as NaN (its outputs are all NaN); a +∞ makes
// l NaN and m +∞.
ML online_ml_blocks(const float* x, std::int64_t n) {
  ML acc;
  for (std::int64_t b = 0; b < n; b += kBlock) {
    const std::int64_t len = std::min(kBlock, n - b);
    bool neg_inf = false;
    const float m_new = nan_max(acc.m, max_of(x + b, len, neg_inf_flag(neg_inf)));
    acc.neg_inf |= neg_inf;
    if (std::isnan(m_new)) return {kNaN, kNaN, acc.neg_inf};
    if (m_new == kPosInf) return {m_new, kNaN, acc.neg_inf};
    if (m_new == kNegInf) continue;
    const float* next = b + kBlock + len <= n ? x + b + kBlock : nullptr;
    const float f = acc.m == kNegInf ? 0.0f : std::exp(acc.m - m_new);
    acc.l = acc.l * f + sum_exp(x + b, len, m_new, next);
    acc.m = m_new;
  }
  ML out = settle(acc.m, acc.l);
  out.neg_inf = acc.neg_inf;
  return out;
}

// Replaces every s_i by exp(s_i − m) and returns their sum: the exponentials and the row sum
// of a score tile in one sweep. With kMask a −∞ score weighs exactly 0 (see normalize_finite);
// a NaN stays NaN.
template <bool kMask>
float exp_sum_in_place(float* s, std::int64_t n, float m) {
  const Packet pm = ei::pset1<Packet>(m), pneg = ei::pset1<Packet>(kNegInf);
  Packet acc0 = ei::pzero(pm), acc1 = ei::pzero(pm);
  auto exp_of = [&](const Packet x) {
    const Packet e = ei::pexp(ei::psub(x, pm));
    if constexpr (kMask) return ei::pandnot(e, ei::pcmp_eq(x, pneg));
    return e;
  };
  std::int64_t i = 0;
  for (; i + 2 * kP <= n; i += 2 * kP) {
    const Packet e0 = exp_of(ei::ploadu<Packet>(s + i)), e1 = exp_of(ei::ploadu<Packet>(s + i + kP));
    ei::pstoreu(s + i, e0);
    ei::pstoreu(s + i + kP, e1);
    acc0 = ei::padd(acc0, e0);
    acc1 = ei::padd(acc1, e1);
  }
  for (; i + kP <= n; i += kP) {
    const Packet e = exp_of(ei::ploadu<Packet>(s + i));
    ei::pstoreu(s + i, e);
    acc0 = ei::padd(acc0, e);
  }
  float sum = ei::predux(ei::padd(acc0, acc1));
  for (; i < n; ++i) {
    s[i] = kMask && s[i] == kNegInf ? 0.0f : std::exp(s[i] - m);
    sum += s[i];
  }
  return sum;
}

// ---- register-blocked micro-kernels for a tile's two products -------------------------------
// What Eigen's GEMM does for any shape, less what a tile does not need: Q_i and P~_ij are read in
// place (each of their numbers is broadcast against a vector of keys or of O's columns), V_j's
// rows are already the vectors P·V wants, and only K_j is repacked, transposed, once per tile.
// A block of MR rows × NG (or NC) vectors of the result stays in registers for the whole depth.
// The sizes fill the vector registers: 32 with AVX-512, 16 with AVX2 and SSE.
constexpr bool kWideRegisters = kP == 16;
constexpr int kQkRows = kWideRegisters ? 8 : 6;    // S = Q_i K_jᵀ: MR rows × 2 vectors of keys
constexpr int kQkVectors = 2;
constexpr int kPvRows = kWideRegisters ? 6 : 3;    // O_i += P V_j: MR rows × 4 vectors of O's columns
constexpr int kPvVectors = kWideRegisters ? 4 : 3;

// How many vectors hold n floats (the last one padded).
int vectors_for(int n) { return (n + static_cast<int>(kP) - 1) / static_cast<int>(kP); }
// Whether the micro-kernels take this d: O's rows in whole vectors.
bool micro_kernels_fit(int d) { return d % kP == 0; }

// K_j (bc rows of d, d a multiple of the vector width) as KT[g][k][lane] = K_j[g·kP + lane][k],
// zero past bc: vector g of a row of S is then Σ_k Q[a][k] · KT[g][k]. Square blocks of kP keys
// × kP columns are loaded as vectors and transposed in registers.
void pack_keys(const float* K, int bc, int d, float* KT) {
  constexpr int W = static_cast<int>(kP);
  for (int g = 0; g < vectors_for(bc); ++g) {
    const int rows = std::min(W, bc - g * W);
    for (int k = 0; k < d; k += W) {
      ei::PacketBlock<Packet, W> block;
      for (int r = 0; r < W; ++r)
        block.packet[r] = r < rows ? ei::ploadu<Packet>(K + static_cast<std::size_t>(g * W + r) * d + k)
                                   : ei::pset1<Packet>(0.0f);
      ei::ptranspose(block);
      for (int j = 0; j < W; ++j) ei::pstoreu(KT + (static_cast<std::size_t>(g) * d + k + j) * W, block.packet[j]);
    }
  }
}

// S[a][g0·kP …] for MR rows of Q (row stride d) and NG vectors of keys from g0.
template <int MR, int NG>
void qk_block(const float* Q, int d, const float* KT, float* S, int ldS, int g0) {
  Packet acc[MR][NG];
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < NG; ++g) acc[r][g] = ei::pset1<Packet>(0.0f);
  const float* b = KT + static_cast<std::size_t>(g0) * d * kP;
  for (int k = 0; k < d; ++k) {
    Packet keys[NG];
    for (int g = 0; g < NG; ++g) keys[g] = ei::ploadu<Packet>(b + (static_cast<std::size_t>(g) * d + k) * kP);
    for (int r = 0; r < MR; ++r) {
      const Packet q = ei::pset1<Packet>(Q[static_cast<std::size_t>(r) * d + k]);
      for (int g = 0; g < NG; ++g) acc[r][g] = ei::pmadd(q, keys[g], acc[r][g]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int g = 0; g < NG; ++g) ei::pstoreu(S + static_cast<std::size_t>(r) * ldS + (g0 + g) * kP, acc[r][g]);
}

template <int MR>
void qk_rows(const float* Q, int d, const float* KT, int groups, float* S, int ldS) {
  int g = 0;
  for (; g + kQkVectors <= groups; g += kQkVectors) qk_block<MR, kQkVectors>(Q, d, KT, S, ldS, g);
  for (; g < groups; ++g) qk_block<MR, 1>(Q, d, KT, S, ldS, g);
}

// S (br × bc rounded up to whole vectors, row stride ldS) = Q (br × d, row stride d) · K_jᵀ, K_j
// packed by pack_keys.
void qk_tile(const float* Q, int br, int d, const float* KT, int bc, float* S, int ldS) {
  const int groups = vectors_for(bc);
  int a = 0;
  for (; a + kQkRows <= br; a += kQkRows)
    qk_rows<kQkRows>(Q + static_cast<std::size_t>(a) * d, d, KT, groups, S + static_cast<std::size_t>(a) * ldS, ldS);
  for (; a < br; ++a) qk_rows<1>(Q + static_cast<std::size_t>(a) * d, d, KT, groups, S + static_cast<std::size_t>(a) * ldS, ldS);
}

// O[a][c0 …] += Σ_k P[a][k] · V[k][c0 …] for MR rows and NC vectors of O's columns.
template <int MR, int NC>
void pv_block(const float* P, int ldP, const float* V, int d, int bc, float* O, int c0) {
  Packet acc[MR][NC];
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NC; ++j) acc[r][j] = ei::ploadu<Packet>(O + static_cast<std::size_t>(r) * d + c0 + j * kP);
  for (int k = 0; k < bc; ++k) {
    Packet v[NC];
    for (int j = 0; j < NC; ++j) v[j] = ei::ploadu<Packet>(V + static_cast<std::size_t>(k) * d + c0 + j * kP);
    for (int r = 0; r < MR; ++r) {
      const Packet p = ei::pset1<Packet>(P[static_cast<std::size_t>(r) * ldP + k]);
      for (int j = 0; j < NC; ++j) acc[r][j] = ei::pmadd(p, v[j], acc[r][j]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NC; ++j) ei::pstoreu(O + static_cast<std::size_t>(r) * d + c0 + j * kP, acc[r][j]);
}

template <int MR>
void pv_rows(const float* P, int ldP, const float* V, int d, int bc, float* O) {
  int c = 0;
  for (; c + kPvVectors * kP <= d; c += kPvVectors * static_cast<int>(kP)) pv_block<MR, kPvVectors>(P, ldP, V, d, bc, O, c);
  for (; c + kP <= d; c += static_cast<int>(kP)) pv_block<MR, 1>(P, ldP, V, d, bc, O, c);
}

// O (br × d, row stride d) += P (br × bc, row stride ldP) · V_j (bc × d, row stride d); d a
// multiple of the vector width.
void pv_tile(const float* P, int ldP, int br, const float* V, int d, int bc, float* O) {
  int a = 0;
  for (; a + kPvRows <= br; a += kPvRows)
    pv_rows<kPvRows>(P + static_cast<std::size_t>(a) * ldP, ldP, V, d, bc, O + static_cast<std::size_t>(a) * d);
  for (; a < br; ++a) pv_rows<1>(P + static_cast<std::size_t>(a) * ldP, ldP, V, d, bc, O + static_cast<std::size_t>(a) * d);
}

// (m, l) of x in one sweep over memory: each vector lane keeps a running max and sum of its own,
// and a step of kUnroll vectors takes its max, rescales the sums of the lanes whose max moved
// (after the first steps, seldom) and adds its exponentials; the lanes are merged at the end, and
// what is left past the last whole step goes through online_ml_blocks. Each number is read once
// and its exponential taken while it is in registers, so the reads of memory and the arithmetic
// overlap. A lane that has seen only −∞ takes its exponentials against 0 (FlashAttention's guard);
// with kMask a −∞ weighs exactly 0, and whether there was one is kept for normalize().
template <bool kMask>
ML online_ml_lanes(const float* x, std::int64_t n) {
  constexpr std::int64_t kUnroll = 4;  // the step's max below is written out for four vectors
  const Packet neg = ei::pset1<Packet>(kNegInf), zero = ei::pset1<Packet>(0.0f), one = ei::pset1<Packet>(1.0f);
  Packet m = neg, l = zero, lo = ei::pset1<Packet>(kPosInf), base = zero;
  std::int64_t i = 0;
  for (; i + kUnroll * kP <= n; i += kUnroll * kP) {
    Packet v[kUnroll];
    for (std::int64_t u = 0; u < kUnroll; ++u) v[u] = ei::ploadu<Packet>(x + i + u * kP);
    const Packet step_max = ei::pmax(ei::pmax(v[0], v[1]), ei::pmax(v[2], v[3]));
    if constexpr (kMask) lo = ei::pmin(lo, ei::pmin(ei::pmin(v[0], v[1]), ei::pmin(v[2], v[3])));
    const Packet m_new = ei::pmax(m, step_max);
    if (ei::predux_any(ei::pcmp_lt(m, m_new))) {
      // Lanes whose max stayed keep their sum (exp(0) = 1, and exp(−∞ + ∞) would be NaN).
      l = ei::pmul(l, ei::pselect(ei::pcmp_eq(m, m_new), one, ei::pexp(ei::psub(m, m_new))));
      m = m_new;
      base = ei::pselect(ei::pcmp_eq(m, neg), zero, m);
    }
    for (std::int64_t u = 0; u < kUnroll; ++u) {
      Packet e = ei::pexp(ei::psub(v[u], base));
      if constexpr (kMask) e = ei::pandnot(e, ei::pcmp_eq(v[u], neg));
      l = ei::padd(l, e);
    }
  }
  // The lanes merged at once: the largest max, and every lane's sum rescaled to it with one
  // vector exp (a lane still at −∞ has sum 0 and adds 0).
  alignas(64) float lane_m[kP];
  ei::pstore(lane_m, m);
  float M = kNegInf;
  for (std::int64_t k = 0; k < kP; ++k) M = nan_max(M, lane_m[k]);
  ML acc;
  if (std::isnan(M)) acc = {kNaN, kNaN, false};
  else if (M == kPosInf) acc = {M, kNaN, false};
  else if (M != kNegInf) acc = settle(M, ei::predux(ei::pmul(l, ei::pexp(ei::psub(m, ei::pset1<Packet>(M))))));
  else acc = settle(M, ei::predux(l));  // only −∞ maxima: the sums are 0, or NaN after a NaN the max passed over
  if constexpr (kMask) acc.neg_inf = ei::predux_min(lo) == kNegInf;
  if (i < n) acc = merge(acc, online_ml_blocks(x + i, n - i));
  ML out = settle(acc.m, acc.l);
  out.neg_inf = acc.neg_inf;
  return out;
}

ML online_ml(const float* x, std::int64_t n) {
  return exp_exact_at_neg_inf() ? online_ml_lanes<false>(x, n) : online_ml_lanes<true>(x, n);
}

// Splits [0, n) into `parts` nearly equal ranges; part p is [begin(p), begin(p + 1)).
std::int64_t part_begin(std::int64_t n, std::int64_t parts, std::int64_t p) { return n * p / parts; }

// Runs one row kernel over every row: rows in parallel when there are enough, otherwise
// each long row split across the threads (row_split does the split).
template <class RowKernel, class SplitKernel>
void for_rows(std::int64_t rows, std::int64_t n, RowKernel row_kernel, SplitKernel row_split) {
  if (rows >= threads() || n < kSplitRow) {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) row_kernel(r);
  } else {
    for (std::int64_t r = 0; r < rows; ++r) row_split(r);
  }
}

// Row `row` of a partial tile, keys [c0, c0 + bc), its scores at s: the scores before the row's
// first visible key become −∞ (they add exp(−∞) = 0), and the count up to its last visible key
// is returned, the columns the softmax takes (those after it are left out).
int visible_len(const Mask& mask, int row, int c0, int bc, float* s) {
  const Mask::KeyRange k = mask.keys(row);
  const int len = std::clamp(k.end - c0, 0, bc);
  std::fill(s, s + std::clamp(k.begin - c0, 0, len), kNegInf);
  return len;
}

}  // namespace

int threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void warm_up(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
#pragma omp parallel
  {
    volatile float sink = 1.0f;
    while (std::chrono::steady_clock::now() < end)
      for (int k = 0; k < 1000; ++k) sink = sink * 0.999f + 0.001f;
  }
}

// Forwards in even rounds, backwards in odd ones, from the last block down.
int snake_block(int round, int t, int T, int Tr) {
  const int k = round * T + (round % 2 == 0 ? t : T - 1 - t);
  return k < Tr ? Tr - 1 - k : -1;
}

KernelBlocks kernel_blocks(int N, int d) {
  KernelBlocks b;
  static const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // asked once: the Measure lab asks every frame
  b.l2_bytes = l2 > 0 ? l2 : 512 * 1024;
  auto bytes = [d](std::int64_t Br, std::int64_t Bc) {
    return static_cast<std::int64_t>(sizeof(float)) * (2 * Br * d + 2 * Bc * d + Br * Bc);
  };
  std::int64_t Br = 128, Bc = 128;
  while (bytes(Br, Bc) > b.l2_bytes / 2 && (Br > 8 || Bc > 8)) (Bc >= Br ? Bc : Br) /= 2;
  while (Br > 16 && (N + Br - 1) / Br < threads()) Br /= 2;
  b.Br = static_cast<int>(std::min<std::int64_t>(Br, N));
  b.Bc = static_cast<int>(std::min<std::int64_t>(Bc, N));
  b.tile_bytes = bytes(b.Br, b.Bc);
  return b;
}

// Stores a row's final (m, l) where the caller asked for them.
static void keep_ml(float* m_out, float* l_out, std::int64_t r, float m, float l) {
  if (m_out) m_out[r] = m;
  if (l_out) l_out[r] = l;
}

void softmax_safe(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out, float* l_out) {
  for_rows(
      rows, n,
      [&](std::int64_t r) {
        const float* xr = x + r * n;
        bool neg_inf = false;
        const float m0 = max_of(xr, n, neg_inf_flag(neg_inf));   // 1. max
        const ML ml = settle(m0, row_sum(xr, n, m0));            // 2. sum
        const float m = ml.m, l = ml.l;
        normalize(xr, y + r * n, n, m, l, neg_inf);              // 3. normalize
        keep_ml(m_out, l_out, r, m, l);
      },
      [&](std::int64_t r) {
        const float* xr = x + r * n;
        float m = kInitM, l = kInitL;
        const std::int64_t T = threads();
#pragma omp parallel
        {
#ifdef _OPENMP
          const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
          const std::int64_t t = 0, nt = 1;
#endif
          (void)T;
          const std::int64_t b = part_begin(n, nt, t), e = part_begin(n, nt, t + 1);
          bool neg_inf = false;
          const float mt = max_of(xr + b, e - b, neg_inf_flag(neg_inf));
#pragma omp critical
          m = nan_max(m, mt);
#pragma omp barrier
          const float lt = row_sum(xr + b, e - b, m);
#pragma omp atomic
          l += lt;
#pragma omp barrier
          normalize(xr + b, y + r * n + b, e - b, m, l, neg_inf);
        }
        const ML ml = settle(m, l);
        keep_ml(m_out, l_out, r, ml.m, ml.l);
      });
}

void softmax_online(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out, float* l_out) {
  for_rows(
      rows, n,
      [&](std::int64_t r) {
        const ML ml = online_ml(x + r * n, n);          // 1. (m, l) together
        normalize(x + r * n, y + r * n, n, ml.m, ml.l, ml.neg_inf);  // 2. normalize
        keep_ml(m_out, l_out, r, ml.m, ml.l);
      },
      [&](std::int64_t r) {
        softmax_chunked(x + r * n, y + r * n, 1, n, threads(), m_out ? m_out + r : nullptr,
                        l_out ? l_out + r : nullptr);
      });
}

void softmax_chunked(const float* x, float* y, std::int64_t rows, std::int64_t n, int K, float* m_out,
                     float* l_out) {
  std::vector<ML> parts(static_cast<std::size_t>(K));
  const Workspace::Hold held(static_cast<std::int64_t>(sizeof(ML)) * K);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k) {
      const std::int64_t b = part_begin(n, K, k), e = part_begin(n, K, k + 1);
      parts[static_cast<std::size_t>(k)] = online_ml(xr + b, e - b);
    }
    // Merge pairwise up a tree, as the recording engine and a shared-memory reduction do.
    for (int stride = 1; stride < K; stride *= 2)
      for (int k = 0; k + stride < K; k += 2 * stride)
        parts[static_cast<std::size_t>(k)] = merge(parts[static_cast<std::size_t>(k)],
                                                   parts[static_cast<std::size_t>(k + stride)]);
    const ML total = parts[0];
    keep_ml(m_out, l_out, r, total.m, total.l);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; ++k) {
      const std::int64_t b = part_begin(n, K, k), e = part_begin(n, K, k + 1);
      normalize(xr + b, y + r * n + b, e - b, total.m, total.l, total.neg_inf);
    }
  }
}

void attention_naive(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, MatRM<float>& O, float* m_out, float* l_out) {
  const Eigen::Index N = Q.rows();
  // S = scale·QKᵀ: one SGEMM (Eigen runs it on every core), N × N in memory.
  MatRM<float> S(N, N);
  const Workspace::Hold held_s(static_cast<std::int64_t>(sizeof(float)) * N * N);
  S.noalias() = scale * Q * K.transpose();
  MatRM<float> P(N, N);
  const Workspace::Hold held_p(static_cast<std::int64_t>(sizeof(float)) * N * N);
#pragma omp parallel for schedule(static)
  for (Eigen::Index i = 0; i < N; ++i) {
    // Only the keys the row sees count: the masked scores would contribute exp(−∞) = 0.
    const Mask::KeyRange keys = mask.keys(static_cast<int>(i));
    const std::int64_t b = keys.begin, len = keys.size();
    const float* s = S.row(i).data() + b;
    const float m0 = len ? max_of(s, len) : kNegInf;
    const ML ml = settle(m0, len ? row_sum(s, len, m0) : kInitL);
    const float m = ml.m, l = ml.l;
    if (l == 0.0f) {
      P.row(i).setZero();  // no finite score: no probability mass, O = 0
    } else {
      const float inv_l = 1.0f / l;  // NaN when the row has a NaN or a +∞ score: so is P
      P.row(i).segment(b, len) = ((S.row(i).segment(b, len).array() - m).exp() * inv_l).matrix();
      if (b > 0) P.row(i).head(b).setZero();
      if (b + len < N) P.row(i).tail(N - b - len).setZero();
    }
    keep_ml(m_out, l_out, i, m, l);
  }
  O.resize(N, Q.cols());
  O.noalias() = P * V;
}

void attention_tiled_v2(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                        const Mask& mask, int Br, int Bc, MatRM<float>& O, std::vector<float>* lse, float* m_out,
                        float* l_out, const TiledOptions& opt) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const int Tr = (N + Br - 1) / Br, Tc = (N + Bc - 1) / Bc;
  O.resize(N, d);
  if (lse) lse->assign(static_cast<std::size_t>(N), 0.0f);
  const bool guard = !exp_exact_at_neg_inf();
  // The micro-kernels take O's rows in whole vectors; another d goes through Eigen's GEMM.
  const bool micro = opt.micro_kernels && micro_kernels_fit(d);
  const int ldS = vectors_for(Bc) * static_cast<int>(kP);
#pragma omp parallel
  {
    // Per thread, on chip in the paper's model: Q_i (pre-scaled), S_ij / P~_ij, O_i, m_i, l_i.
    // S's rows are padded to whole vectors, and the micro-kernels' K_j is packed beside it.
    MatRM<float> Qi(Br, d), S(Br, ldS), Oi(Br, d), KT(micro ? ldS : 0, d);
    Eigen::ArrayXf m(Br), l(Br);
    const Workspace::Hold held(static_cast<std::int64_t>(sizeof(float)) *
                               (2LL * Br * d + 1LL * Br * ldS + 2LL * Br + KT.size()));
    // Row a of S_ij (its first `len` scores count) becomes P~_ij's, and m_i, l_i, O_i follow.
    auto softmax_row = [&](int a, int len, int bc) {
      float* s = S.row(a).data();
      const float m_new = nan_max(m[a], len ? max_of(s, len) : kNegInf);
      float tile_sum = 0.0f;
      if (m_new == kNegInf) {
        std::fill(s, s + len, 0.0f);  // only −∞ so far: the tile adds nothing
      } else if (!opt.vector_exp) {
        for (int c = 0; c < len; ++c) tile_sum += s[c] = std::exp(s[c] - m_new);
      } else if (!opt.fused_exp_sum) {
        auto p = S.row(a).head(len).array();
        if (guard)
          p = (p == kNegInf).select(0.0f, (p - m_new).exp());
        else
          p = (p - m_new).exp();
        tile_sum = p.sum();  // a second sweep
      } else {
        tile_sum = guard ? exp_sum_in_place<true>(s, len, m_new) : exp_sum_in_place<false>(s, len, m_new);
      }
      if (len < bc) std::fill(s + len, s + bc, 0.0f);
      // The old sum and O row are rescaled when the max moved (exp(0) = 1 otherwise). While the
      // row has seen only −∞ scores, exp is taken against 0 (FlashAttention's guard): the
      // factor is exp(−∞) = 0 instead of exp(−∞ + ∞) = NaN.
      if (!opt.lazy_rescale || m_new != m[a] || !std::isfinite(m_new)) {
        const float f = std::exp(m[a] - (m_new == kNegInf ? 0.0f : m_new));
        l[a] *= f;
        Oi.row(a) *= f;
      }
      l[a] += tile_sum;
      m[a] = m_new;
    };
    auto row_block = [&](int i) {
      const int r0 = i * Br, br = std::min(Br, N - r0);
      Qi.topRows(br) = scale * Q.middleRows(r0, br);
      Oi.topRows(br).setConstant(kInitO);
      m.head(br).setConstant(kInitM);
      l.head(br).setConstant(kInitL);
      for (int j = 0; j < Tc; ++j) {
        const int c0 = j * Bc, bc = std::min(Bc, N - c0);
        const TileKind kind = mask.tile(r0, br, c0, bc);
        if (kind == TileKind::empty) continue;  // every score of the tile is masked
        auto Sij = S.topLeftCorner(br, bc);
        if (micro) {
          pack_keys(K.row(c0).data(), bc, d, KT.data());
          qk_tile(Qi.data(), br, d, KT.data(), bc, S.data(), ldS);
        } else {
          Sij.noalias() = Qi.topRows(br) * K.middleRows(c0, bc).transpose();
        }
        // In a partial tile only the keys a row sees count: those before them are set to −∞,
        // those after them left out (its first `len` columns).
        for (int a = 0; a < br; ++a) softmax_row(a, kind == TileKind::full ? bc : visible_len(mask, r0 + a, c0, bc, S.row(a).data()), bc);
        if (micro)
          pv_tile(S.data(), ldS, br, V.row(c0).data(), d, bc, Oi.data());
        else
          Oi.topRows(br).noalias() += Sij * V.middleRows(c0, bc);
      }
      for (int a = 0; a < br; ++a) {
        if (l[a] == 0.0f)
          O.row(r0 + a).setZero();  // no finite score: O = 0, and L = −∞ + log 0 = −∞
        else
          O.row(r0 + a) = Oi.row(a) / l[a];
        const ML ml = settle(m[a], l[a]);
        if (lse) (*lse)[static_cast<std::size_t>(r0 + a)] = ml.m + std::log(ml.l);
        keep_ml(m_out, l_out, r0 + a, ml.m, ml.l);
      }
    };
#ifdef _OPENMP
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int t = 0, T = 1;
#endif
    switch (opt.schedule) {
      case TiledOptions::Schedule::snake:
        for (int round = 0; round * T < Tr; ++round)
          if (const int i = snake_block(round, t, T, Tr); i >= 0) row_block(i);
        break;
      case TiledOptions::Schedule::dynamic:
#pragma omp for schedule(dynamic, 1) nowait
        for (int k = 0; k < Tr; ++k) row_block(Tr - 1 - k);  // the costliest first
        break;
      case TiledOptions::Schedule::contiguous:
        for (int i = static_cast<int>(part_begin(Tr, T, t)); i < part_begin(Tr, T, t + 1); ++i) row_block(i);
        break;
    }
  }
}

void attention_tiled(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     const Mask& mask, int Br, int Bc, MatRM<float>& O, float* m_out, float* l_out) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const int Tr = (N + Br - 1) / Br, Tc = (N + Bc - 1) / Bc;
  O.setConstant(N, d, kInitO);
  // The running m and l of every row live in HBM between tiles: the caller's m_out and l_out
  // when given (outputs), else buffers of our own (workspace).
  std::vector<float> m_own, l_own;
  std::unique_ptr<Workspace::Hold> held_ml;
  if (!m_out || !l_out) {
    m_own.resize(static_cast<std::size_t>(N));
    l_own.resize(static_cast<std::size_t>(N));
    held_ml = std::make_unique<Workspace::Hold>(static_cast<std::int64_t>(sizeof(float)) * 2 * N);
  }
  float* m = m_out && l_out ? m_out : m_own.data();
  float* l = m_out && l_out ? l_out : l_own.data();
  std::fill(m, m + N, kInitM);
  std::fill(l, l + N, kInitL);
  // The same micro-kernels as FA-2 (K_j packed once per K block by each thread that uses it).
  const bool micro = micro_kernels_fit(d);
  const int ldS = vectors_for(Bc) * static_cast<int>(kP);
#pragma omp parallel
  {
    MatRM<float> S(Br, ldS), PV(Br, d), KT(micro ? ldS : 0, d);
    Eigen::ArrayXf mt(Br), lt(Br);
    const Workspace::Hold held(static_cast<std::int64_t>(sizeof(float)) *
                               (1LL * Br * ldS + 1LL * Br * d + 2LL * Br + KT.size()));
    for (int j = 0; j < Tc; ++j) {
      const int c0 = j * Bc, bc = std::min(Bc, N - c0);
      bool packed = false;
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < Tr; ++i) {
        const int r0 = i * Br, br = std::min(Br, N - r0);
        const TileKind kind = mask.tile(r0, br, c0, bc);
        if (kind == TileKind::empty) continue;  // every score of the tile is masked
        auto Sij = S.topLeftCorner(br, bc);
        if (micro) {
          if (!packed) pack_keys(K.row(c0).data(), bc, d, KT.data());
          packed = true;
          qk_tile(Q.row(r0).data(), br, d, KT.data(), bc, S.data(), ldS);
          Sij *= scale;
        } else {
          Sij.noalias() = scale * Q.middleRows(r0, br) * K.middleRows(c0, bc).transpose();
        }
        for (int a = 0; a < br; ++a) {
          const int len = kind == TileKind::full ? bc : visible_len(mask, r0 + a, c0, bc, S.row(a).data());
          mt[a] = len ? max_of(S.row(a).data(), len) : kNegInf;
          auto p = S.row(a).head(len).array();
          if (mt[a] == kNegInf)
            p.setZero();  // a tile row of only −∞ scores adds nothing
          else
            p = (p - mt[a]).exp();
          if (len < bc) S.row(a).segment(len, bc - len).setZero();
          lt[a] = p.sum();
        }
        if (micro) {
          PV.topRows(br).setZero();
          pv_tile(S.data(), ldS, br, V.row(c0).data(), d, bc, PV.data());
        } else {
          PV.topRows(br).noalias() = Sij * V.middleRows(c0, bc);
        }
        for (int a = 0; a < br; ++a) {
          const std::size_t row = static_cast<std::size_t>(r0 + a);
          const float m_new = nan_max(m[row], mt[a]);
          const float base = m_new == kNegInf ? 0.0f : m_new;  // the −∞ guard, as above
          const float f_old = std::exp(m[row] - base);
          const float f_tile = mt[a] == kNegInf ? 0.0f : std::exp(mt[a] - base);
          const float l_new = f_old * l[row] + f_tile * lt[a];
          if (l_new == 0.0f)
            O.row(r0 + a).setZero();
          else
            O.row(r0 + a) = (l[row] * f_old * O.row(r0 + a) + f_tile * PV.row(a)) / l_new;
          m[row] = m_new;
          l[row] = l_new;
        }
      }
    }
  }
  for (int i = 0; i < N; ++i) {
    const ML ml = settle(m[i], l[i]);
    m[i] = ml.m;
    if (m != m_out || l != l_out) keep_ml(m_out, l_out, i, ml.m, ml.l);
  }
}

}  // namespace flashstep::fast
