// The sums' exponential (vexp_term, core/fast_kernels.h) against table-driven alternatives built
// for the same instruction set: how fast each runs and how close each comes to exp. The evidence
// for the exponential the kernels take on a CPU (BENCHMARKS.md, "A table-driven exponential").
//
//   bench_exp [STRIDE]  one line per variant: "variant NAME ns_per_vector T ratio R ulp U", T
//                       the best of 30 blocks of 2000 sweeps over 4096 floats in L1 (one core,
//                       the vectors summed into two sums, as sum_exp does), the variants taking
//                       turns block by block, R = T / the kernels' own T, U the largest error over
//                       every STRIDE-th float (default 7) of [−87.33, 0] by bit pattern, against
//                       expl
//
// The alternatives (AVX2 only; on other instruction sets only the kernels' own is timed): exp(t)
// = 2^(j/k) · 2ⁿ · exp(r) with q = 8n + j (or 4n + j) = round(t·k·log2 e), r = t − q·ln 2/k,
// |r| ≤ ln 2/(2k), 2^(j/k) looked up in one register (k = 8: vpermps, across the vector's
// halves; k = 4: vpermilps, within each half) and exp(r) a degree-4 polynomial fitted at
// Chebyshev nodes on that interval (error 3·10⁻¹⁰ for k = 8, 1.1·10⁻⁸ for k = 4). The table's
// own rounding (up to half an ulp of 2^(j/k)) is either left in, or corrected by a second lookup
// of ε_j = (2^(j/k) − T_j)/T_j added into the polynomial's last product (an FMA instead of a
// product). 2ⁿ goes into T_j's exponent field by an integer addition; the result is normal for
// t ≥ −87.33.
// The header's helpers for the kernel files that this program does not call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "core/fast_kernels.h"
#pragma GCC diagnostic pop

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace flashstep::fast;

namespace {

#if defined(__AVX2__) && !defined(__AVX512F__)
// One table: k entries of 2^(j/k) (each with j·2^(23 − log2 k) taken from its bits, which the
// shifted q adds back) and their corrections ε_j, repeated to fill a vector.
struct Table {
  Packet value, correction;
};
template <int kEntries>
Table make_table() {
  alignas(32) float value[8], correction[8];
  constexpr int kShift = kEntries == 8 ? 20 : 21;
  for (int i = 0; i < 8; ++i) {
    const int j = i % kEntries;
    const long double exact = std::exp2(static_cast<long double>(j) / kEntries);
    const float t = static_cast<float>(exact);
    correction[i] = static_cast<float>((exact - t) / t);
    std::uint32_t bits;
    std::memcpy(&bits, &t, 4);
    bits -= static_cast<std::uint32_t>(j) << kShift;
    std::memcpy(&value[i], &bits, 4);
  }
  return {_mm256_load_ps(value), _mm256_load_ps(correction)};
}

template <int kEntries, bool kCorrected>
[[gnu::always_inline]] inline Packet table_exp(const Packet x, const Table& table) {
  auto c = [](float v) { return ei::pset1<Packet>(v); };
  // exp(r) ≈ 1 + r + r²·(1/2 + c3·r + c4·r²) on |r| ≤ ln 2/(2k)
  constexpr float c3 = kEntries == 8 ? 1.666783969e-01f : 1.667135922e-01f;
  constexpr float c4 = kEntries == 8 ? 4.166862168e-02f : 4.167448733e-02f;
  constexpr int kShift = kEntries == 8 ? 20 : 21;
  auto lookup = [](const Packet t, const __m256i q) {
    if constexpr (kEntries == 8) return _mm256_permutevar8x32_ps(t, q);
    else return _mm256_permutevar_ps(t, q);
  };
  const Packet t = at_least(-87.33f, x);
  const Packet round = c(12582912.0f);  // 1.5·2²³: q in the sum's low bits
  const Packet q_round = ei::pmadd(t, c(kEntries * 1.44269504088896341f), round);
  const Packet q = ei::psub(q_round, round);
  Packet r = ei::pmadd(q, c(-0.693359375f / kEntries), t);
  r = ei::pmadd(q, c(2.12194440e-4f / kEntries), r);
  const __m256i qi = _mm256_castps_si256(q_round);
  Packet w = ei::pmadd(c(c4), r, c(c3));
  w = ei::pmadd(w, r, c(0.5f));
  const Packet v = ei::pmadd(w, r, c(1.0f));
  Packet u;  // exp(r) − 1, with the table's correction
  if constexpr (kCorrected) u = ei::pmadd(r, v, lookup(table.correction, qi));
  else u = ei::pmul(r, v);
  const Packet scaled = _mm256_castsi256_ps(
      _mm256_add_epi32(_mm256_castps_si256(lookup(table.value, qi)), _mm256_slli_epi32(qi, kShift)));
  return ei::pmadd(scaled, u, scaled);
}
#endif

// The largest error of f, in ulp of the exact value, over every stride-th float of [−87.33, 0].
template <class VectorExp>
double worst_ulp(VectorExp f, std::uint32_t stride) {
  std::vector<float> x;
  const float minus_zero = -0.0f;
  std::uint32_t bits;
  std::memcpy(&bits, &minus_zero, 4);
  for (;; bits += stride) {
    float v;
    std::memcpy(&v, &bits, 4);
    if (v < -87.33f) break;
    x.push_back(v);
  }
  double worst = 0;
  for (std::size_t i = 0; i + kP <= x.size(); i += kP) {
    alignas(64) float y[kP];
    ei::pstore(y, f(ei::ploadu<Packet>(&x[i])));
    for (std::int64_t k = 0; k < kP; ++k) {
      const long double exact = std::exp(static_cast<long double>(x[i + k]));
      const long double ulp = std::ldexp(1.0L, std::ilogb(exact) - 23);
      worst = std::max(worst, static_cast<double>(std::fabs(y[k] - exact) / ulp));
    }
  }
  return worst;
}

// One timed block: ns a vector of 2000 sweeps of Σ f(x_i − m) over a row of 4096 floats in L1.
template <class VectorExp>
double ns_per_vector(VectorExp f) {
  constexpr int kN = 4096, kSweeps = 2000;
  alignas(64) static float x[kN];
  for (int i = 0; i < kN; ++i) x[i] = -static_cast<float>(i % 97) * 0.37f;
  const Packet m = ei::pset1<Packet>(0.5f);
  const auto t0 = std::chrono::steady_clock::now();
  Packet total = ei::pset1<Packet>(0.0f);
  for (int s = 0; s < kSweeps; ++s) {
    Packet a0 = total, a1 = ei::pset1<Packet>(0.0f);
    for (int i = 0; i < kN; i += 2 * kP) {
      a0 = ei::padd(a0, f(ei::psub(ei::pload<Packet>(&x[i]), m)));
      a1 = ei::padd(a1, f(ei::psub(ei::pload<Packet>(&x[i + kP]), m)));
    }
    total = ei::padd(a0, a1);
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  if (ei::predux(total) == 12345.0f) std::printf("#\n");  // keeps the sums
  return ns / (static_cast<double>(kSweeps) * kN / kP);
}

// The variants as function objects inlined into ns_per_vector's loop.
struct KernelExp {
  [[gnu::always_inline]] Packet operator()(const Packet v) const { return vexp_term(v); }
};
#if defined(__AVX2__) && !defined(__AVX512F__)
template <int kEntries, bool kCorrected>
struct TableExp {
  Table table;
  [[gnu::always_inline]] Packet operator()(const Packet v) const { return table_exp<kEntries, kCorrected>(v, table); }
};
#endif

struct Variant {
  const char* name;
  std::function<double()> time;  // one timed block
  double ulp;
  double best = 1e30;
};

}  // namespace

int main(int argc, char** argv) {
  long stride = 7;
  if (argc > 2 || (argc == 2 && (std::sscanf(argv[1], "%ld", &stride) != 1 || stride < 1 || stride > 1000000 ||
                                 std::to_string(stride) != argv[1]))) {
    std::fprintf(stderr, "usage: bench_exp [STRIDE]: STRIDE, every how many floats the error scan takes, a whole number from 1 to 1000000\n");
    return 2;
  }
  std::vector<Variant> variants;
  auto add = [&variants, stride](const char* name, auto f) {
    variants.push_back({name, [f] { return ns_per_vector(f); }, worst_ulp(f, static_cast<std::uint32_t>(stride))});
  };
  add("kernel", KernelExp{});
#if defined(__AVX2__) && !defined(__AVX512F__)
  const Table t8 = make_table<8>(), t4 = make_table<4>();
  add("table8-corrected", TableExp<8, true>{t8});
  add("table8", TableExp<8, false>{t8});
  add("table4-corrected", TableExp<4, true>{t4});
  add("table4", TableExp<4, false>{t4});
#endif
  // Taking turns, block by block, so that a change of the machine's pace falls on every variant.
  warm_up(kWarmUpSeconds);
  for (int round = 0; round < 30; ++round)
    for (Variant& v : variants) v.best = std::min(v.best, v.time());
  for (const Variant& v : variants)
    std::printf("variant %s ns_per_vector %.3f ratio %.3f ulp %.4f\n", v.name, v.best, v.best / variants[0].best, v.ulp);
  return 0;
}
