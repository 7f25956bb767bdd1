// The fast softmax kernels (core/fast.h): safe, online and chunked over rows of fp32, every
// row in parallel, or a long row split across the threads.
#include "core/fast_kernels.h"

#include <vector>

namespace flashstep::fast {
namespace {

// online_ml_blocks (what is left past online_ml's last step) works on blocks this long: 16 KiB
// stays in L1 between the block's max and its exponentials.
constexpr std::int64_t kBlock = 4096;
// Rows shorter than this are not split across threads.
constexpr std::int64_t kSplitRow = 1 << 16;
// Whether an input and output of `floats` floats are in memory rather than in cache: larger than
// 1 MiB. Such an input is read ahead (read_ahead) and such an output written past the caches
// (streaming stores): it would not stay there, and a smaller one is likely read again while it does.
bool in_memory(std::int64_t floats) { return floats > (std::int64_t{1} << 18); }

// The online merge of two partial (m, l): the larger max wins, the other sum is rescaled. A
// part that has seen only −∞ (m = −∞, l = 0) adds nothing instead of exp(−∞ + ∞) = NaN; a NaN
// stays NaN; a +∞ makes l NaN (exp(∞ − ∞)), as the recording engines do.
ML merge(ML a, ML b) {
  const float m = nan_max(a.m, b.m);
  if (std::isnan(m)) return {kNaN, kNaN};
  if (m == kNegInf) return {m, 0.0f};
  if (m == kPosInf) return {m, kNaN};
  const float fa = a.m == kNegInf ? 0.0f : std::exp(a.m - m);
  const float fb = b.m == kNegInf ? 0.0f : std::exp(b.m - m);
  return {m, a.l * fa + b.l * fb};
}

// y_i = exp(x_i − m) / l (vexp_scaled); a −∞ entry weighs exactly 0. With kStream y is written
// with streaming stores where the ISA has them: a large output is not read again soon, and
// skipping the read-for-ownership saves a third stream.
template <bool kStream>
void normalize_finite(const float* x, float* y, std::int64_t n, float m, float l) {
  const float inv_l = 1.0f / l;
  const Packet pm = ei::pset1<Packet>(m);
  const ExpConsts k = exp_consts(inv_l, kScaledBias);
  auto store = [&](float* at, const Packet v) {
#if defined(__AVX512F__)
    if constexpr (kStream) _mm512_stream_ps(at, v); else ei::pstoreu(at, v);
#elif defined(__AVX__)
    if constexpr (kStream) _mm256_stream_ps(at, v); else ei::pstoreu(at, v);
#else
    ei::pstoreu(at, v);
#endif
  };
  auto value = [&](std::int64_t at) { return vexp_scaled(ei::psub(ei::ploadu<Packet>(x + at), pm), k); };
  // Fewer than a vector's floats from `at` through one padded vector, so that every element takes
  // the same exponential wherever y lies.
  auto few = [&](std::int64_t at, std::int64_t count) {
    alignas(64) float in[kP], out[kP];
    std::fill(in, in + kP, m);
    std::copy(x + at, x + at + count, in);
    ei::pstore(out, vexp_scaled(ei::psub(ei::pload<Packet>(in), pm), k));
    std::copy(out, out + count, y + at);
  };
  std::int64_t i = 0;
  if constexpr (kStream) {
    // Up to y's first cache-line boundary; then x as kReadStreams streams of whole lines, each
    // line of y written by back-to-back stores (with AVX2, two): a line whose halves were written
    // a step apart, between three other streams' stores, held its write-combining buffer that much
    // longer, and the output pass was about 5% slower (the model-167 Xeon, BENCHMARKS.md).
    const std::uintptr_t off = reinterpret_cast<std::uintptr_t>(y) % (kLineFloats * sizeof(float));
    const std::int64_t head =
        std::min<std::int64_t>(n, off == 0 ? 0 : static_cast<std::int64_t>((kLineFloats * sizeof(float) - off) / sizeof(float)));
    for (; i < head; i += kP) few(i, std::min(kP, head - i));
    i = head;
    const std::int64_t h = stream_part(n - i) / kLineFloats * kLineFloats, ahead = read_ahead_floats();
    const float* xs = x + i;
    float* ys = y + i;
    for (std::int64_t k = 0; k < h; k += kLineFloats)
      for (std::int64_t p = 0; p < kReadStreams; ++p) {
        read_ahead<kLineFloats>(xs + p * h, k, ahead);
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kLineFloats; v += kP) store(ys + p * h + k + v, value(i + p * h + k + v));
      }
    i += kReadStreams * h;
  }
  for (; i + kP <= n; i += kP) store(y + i, value(i));
  if (i < n) few(i, n - i);
#if defined(__AVX__)
  if constexpr (kStream) _mm_sfence();
#endif
}

// `stream`: the whole output is in memory (in_memory).
void normalize(const float* x, float* y, std::int64_t n, float m, float l, bool stream) {
  // A row with a NaN, a +∞ (l is NaN) or only −∞ (l = 0: 0/0) is NaN throughout.
  if (std::isnan(m) || std::isnan(l) || l == 0.0f)
    std::fill(y, y + n, kNaN);
  else if (stream)
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
    const float m_new = nan_max(acc.m, max_of(x + b, len));
    if (std::isnan(m_new)) return {kNaN, kNaN};
    if (m_new == kPosInf) return {m_new, kNaN};
    if (m_new == kNegInf) continue;
    const float f = acc.m == kNegInf ? 0.0f : std::exp(acc.m - m_new);
    acc.l = acc.l * f + sum_exp(x + b, len, m_new);
    acc.m = m_new;
  }
  return settle(acc.m, acc.l);
}

// (m, l) of x in one sweep over memory: each vector lane keeps a running max and sum of its own,
// and a step of kUnroll vectors takes its max, rescales the sums of the lanes whose max moved
// (after the first steps, seldom) and adds its exponentials; the lanes are merged at the end, and
// what is left past the last whole step goes through online_ml_blocks. A step's vectors are
// consecutive, or with kAhead one from each of kReadStreams parts of x (fast.h). Each number is read once
// and its exponential taken while it is in registers, so the reads of memory and the arithmetic
// overlap. A lane that has seen only −∞ takes its exponentials against 0 (FlashAttention's guard);
// a −∞ adds nothing to a lane's sum (vexp_term's 1.2·10⁻³⁸ beside the 1 of the lane's max, and the
// sum of a lane that has seen only −∞ is 0 once merged or rescaled). kAhead: x is in memory, not
// in cache (read_ahead).
template <bool kAhead>
ML online_ml(const float* x, std::int64_t n) {
  constexpr std::int64_t kUnroll = 4;  // the step's max and sum below are written out for four vectors
  const Packet neg = ei::pset1<Packet>(kNegInf), zero = ei::pset1<Packet>(0.0f), one = ei::pset1<Packet>(1.0f);
  Packet m = neg, l = zero, base = zero;
  static_assert(kReadStreams == kUnroll, "a step reads one vector from each stream");
  // A step: kUnroll vectors `stride` floats apart, then the next step `advance` floats on.
  const std::int64_t h = kAhead ? stream_part(n) : 0, stride = kAhead ? h : kP, advance = kAhead ? kP : kUnroll * kP;
  const std::int64_t steps = kAhead ? h / kP : n / (kUnroll * kP);
  const std::int64_t ahead = kAhead ? read_ahead_floats() : 0;
  std::int64_t i = 0;
  for (std::int64_t k = 0; k < steps; ++k, i += advance) {
    Packet v[kUnroll];
    for (std::int64_t u = 0; u < kUnroll; ++u) {
      if constexpr (kAhead) read_ahead<kP>(x + u * stride, i, ahead);
      v[u] = ei::ploadu<Packet>(x + i + u * stride);
    }
    const Packet step_max = ei::pmax(ei::pmax(v[0], v[1]), ei::pmax(v[2], v[3]));
    if (ei::predux_any(ei::pcmp_lt(m, step_max))) {
      // Lanes whose max stayed keep their sum (exp(0) = 1, and exp(−∞ + ∞) would be NaN).
      const Packet m_new = ei::pmax(m, step_max);
      l = ei::pmul(l, ei::pselect(ei::pcmp_eq(m, m_new), one, vexp(ei::psub(m, m_new))));
      m = m_new;
      base = ei::pselect(ei::pcmp_eq(m, neg), zero, m);
    }
    // The step's four exponentials summed as a tree and then added to l: one addition per step
    // waits for the last one, not four.
    const Packet e01 = ei::padd(vexp_term(ei::psub(v[0], base)), vexp_term(ei::psub(v[1], base)));
    const Packet e23 = ei::padd(vexp_term(ei::psub(v[2], base)), vexp_term(ei::psub(v[3], base)));
    l = ei::padd(l, ei::padd(e01, e23));
  }
  // The lanes merged at once: the largest max, and every lane's sum rescaled to it with one
  // vector exp (a lane still at −∞ has sum 0 and adds 0).
  alignas(64) float lane_m[kP];
  ei::pstore(lane_m, m);
  float M = kNegInf;
  for (std::int64_t k = 0; k < kP; ++k) M = nan_max(M, lane_m[k]);
  ML acc;
  if (std::isnan(M)) acc = {kNaN, kNaN};
  else if (M == kPosInf) acc = {M, kNaN};
  else if (M != kNegInf) acc = settle(M, ei::predux(ei::pmul(l, vexp(ei::psub(m, ei::pset1<Packet>(M))))));
  else  // only −∞ maxima: sums of −∞'s alone (0: vexp_term's 1.2·10⁻³⁸ each is not), or NaN after a NaN
    acc = settle(M, std::isnan(ei::predux(l)) ? kNaN : 0.0f);
  const std::int64_t done = kAhead ? kUnroll * h : i;
  if (done < n) acc = merge(acc, online_ml_blocks(x + done, n - done));
  return settle(acc.m, acc.l);
}

// online_ml of a part of an input that is in memory (in_memory) or not.
ML online_ml(const float* x, std::int64_t n, bool memory) {
  return memory ? online_ml<true>(x, n) : online_ml<false>(x, n);
}

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

}  // namespace

namespace {
// y = f(x) a vector at a time, the tail through one padded vector, so that every element takes
// the same exp.
template <class VectorExp>
void map_vectors(const float* x, float* y, std::int64_t n, VectorExp f) {
  std::int64_t i = 0;
  for (; i + kP <= n; i += kP) ei::pstoreu(y + i, f(ei::ploadu<Packet>(x + i)));
  if (i < n) {
    alignas(64) float in[kP] = {}, out[kP];
    std::copy(x + i, x + n, in);
    ei::pstore(out, f(ei::pload<Packet>(in)));
    std::copy(out, out + (n - i), y + i);
  }
}
}  // namespace

void vector_exp(const float* x, float* y, std::int64_t n) {
  map_vectors(x, y, n, [](Packet v) { return vexp(v); });
}

void vector_exp_term(const float* x, float* y, std::int64_t n) {
  map_vectors(x, y, n, [](Packet v) { return vexp_term(v); });
}

void vector_exp_scaled(const float* x, float* y, std::int64_t n, float s) {
  const ExpConsts k = exp_consts(s, kScaledBias);
  map_vectors(x, y, n, [&](Packet v) { return vexp_scaled(v, k); });
}

// The kernels' thread count, beside the loops that ask it (for_rows) so that it inlines there.
int vector_floats() { return static_cast<int>(kP); }

int threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void softmax_safe(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out, float* l_out) {
  for_rows(
      rows, n,
      [&](std::int64_t r) {
        const float* xr = x + r * n;
        const bool memory = in_memory(rows * n);
        const float m0 = memory ? max_of<true>(xr, n) : max_of(xr, n);                              // 1. max
        const ML ml = settle(m0, memory ? row_sum<true>(xr, n, m0) : row_sum(xr, n, m0));        // 2. sum
        const float m = ml.m, l = ml.l;
        normalize(xr, y + r * n, n, m, l, memory);                                               // 3. normalize
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
          const float mt = max_of<true>(xr + b, e - b);  // a split row is long: in memory
#pragma omp critical
          m = nan_max(m, mt);
#pragma omp barrier
          const float lt = row_sum<true>(xr + b, e - b, m);
#pragma omp atomic
          l += lt;
#pragma omp barrier
          normalize(xr + b, y + r * n + b, e - b, m, l, in_memory(rows * n));
        }
        const ML ml = settle(m, l);
        keep_ml(m_out, l_out, r, ml.m, ml.l);
      });
}

void softmax_online(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out, float* l_out) {
  for_rows(
      rows, n,
      [&](std::int64_t r) {
        const bool memory = in_memory(rows * n);
        const ML ml = online_ml(x + r * n, n, memory);               // 1. (m, l) together
        normalize(x + r * n, y + r * n, n, ml.m, ml.l, memory);      // 2. normalize
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
      parts[static_cast<std::size_t>(k)] = online_ml(xr + b, e - b, in_memory(rows * n));
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
      normalize(xr + b, y + r * n + b, e - b, total.m, total.l, in_memory(rows * n));
    }
  }
}

}  // namespace flashstep::fast
