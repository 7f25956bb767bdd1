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
// The alternatives (AVX2 and AVX-512; with SSE2 only the kernels' own is timed): exp(t) =
// 2^(j/k) · 2ⁿ · exp(r) with q = k·n + j = round(t·k·log2 e), r = t − q·ln 2/k, |r| ≤
// ln 2/(2k), 2^(j/k) looked up in one register (AVX-512: k = 16, vpermps; AVX2: k = 8, vpermps
// across the vector's halves, or k = 4, vpermilps within each half) and exp(r) a polynomial
// fitted at Chebyshev nodes on that interval (degree 3 for k = 16, error 4.7·10⁻⁹; degree 4 for
// k = 8 and 4, 3.3·10⁻¹⁰ and 1.1·10⁻⁸). The table's own rounding (up to half an ulp of
// 2^(j/k)) is either left in, or corrected by a second lookup of ε_j = (2^(j/k) − T_j)/T_j
// added into the polynomial's last product (an FMA instead of a product). 2ⁿ goes into T_j's
// exponent field by an integer addition; the result is normal for t ≥ −87.33.
//
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

#if defined(__AVX512F__) || defined(__AVX2__)
#if defined(__AVX512F__)
using PacketI = __m512i;
[[gnu::always_inline]] inline PacketI as_int(const Packet v) { return _mm512_castps_si512(v); }
// t's bits plus q shifted left: 2ⁿ put into t's exponent field.
[[gnu::always_inline]] inline Packet add_shifted(const Packet t, const PacketI q, unsigned shift) {
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(t), _mm512_slli_epi32(q, shift)));
}
#else
using PacketI = __m256i;
[[gnu::always_inline]] inline PacketI as_int(const Packet v) { return _mm256_castps_si256(v); }
[[gnu::always_inline]] inline Packet add_shifted(const Packet t, const PacketI q, int shift) {
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(t), _mm256_slli_epi32(q, shift)));
}
#endif

// log2 k, and so the shift that puts q = k·n + j's n into the exponent field.
constexpr int log2_of(int k) { return k == 16 ? 4 : k == 8 ? 3 : 2; }

// One table: k entries of 2^(j/k) (each with j·2^(23 − log2 k) taken from its bits, which the
// shifted q adds back) and their corrections ε_j, repeated to fill a vector.
struct Table {
  Packet value, correction;
};
template <int kEntries>
Table make_table() {
  alignas(64) float value[kP], correction[kP];
  for (int i = 0; i < kP; ++i) {
    const int j = i % kEntries;
    const long double exact = std::exp2(static_cast<long double>(j) / kEntries);
    const float t = static_cast<float>(exact);
    correction[i] = static_cast<float>((exact - t) / t);
    std::uint32_t bits;
    std::memcpy(&bits, &t, 4);
    bits -= static_cast<std::uint32_t>(j) << (23 - log2_of(kEntries));
    std::memcpy(&value[i], &bits, 4);
  }
  return {ei::pload<Packet>(value), ei::pload<Packet>(correction)};
}

// The table's entry j = q mod k of every lane: one permute of one register.
template <int kEntries>
[[gnu::always_inline]] inline Packet lookup(const Packet table, const PacketI q) {
#if defined(__AVX512F__)
  return _mm512_permutexvar_ps(q, table);  // vpermps, 16 entries
#else
  if constexpr (kEntries == 8) return _mm256_permutevar8x32_ps(table, q);  // across the halves
  else return _mm256_permutevar_ps(table, q);  // vpermilps: 4 entries, within each half
#endif
}

// exp(r) − 1 ≈ r + c2·r² + c3·r³ (+ c4·r⁴) on |r| ≤ ln 2/(2k), fitted at Chebyshev nodes.
template <int kEntries>
struct Poly;
#if defined(__AVX512F__)
template <>
struct Poly<16> {  // degree 3, error 4.7·10⁻⁹
  static constexpr int degree = 3;
  static constexpr float c2 = 5.000097749e-01f, c3 = 1.666686216e-01f;
};
#else
template <>
struct Poly<8> {  // degree 4, error 3.3·10⁻¹⁰
  static constexpr int degree = 4;
  static constexpr float c2 = 0.5f, c3 = 1.666783969e-01f, c4 = 4.166862168e-02f;
};
template <>
struct Poly<4> {  // degree 4, error 1.1·10⁻⁸
  static constexpr int degree = 4;
  static constexpr float c2 = 0.5f, c3 = 1.667135922e-01f, c4 = 4.167448733e-02f;
};
#endif

template <int kEntries, bool kCorrected>
[[gnu::always_inline]] inline Packet table_exp(const Packet x, const Table& table) {
  using P = Poly<kEntries>;
  auto c = [](float v) { return ei::pset1<Packet>(v); };
  const Packet t = at_least(-87.33f, x);
  const Packet round = c(12582912.0f);  // 1.5·2²³: q in the sum's low bits
  const Packet q_round = ei::pmadd(t, c(kEntries * 1.44269504088896341f), round);
  const Packet q = ei::psub(q_round, round);
  Packet r = ei::pmadd(q, c(-0.693359375f / kEntries), t);
  r = ei::pmadd(q, c(2.12194440e-4f / kEntries), r);
  const PacketI qi = as_int(q_round);
  Packet w = c(P::c3);
  if constexpr (P::degree == 4) w = ei::pmadd(c(P::c4), r, c(P::c3));
  w = ei::pmadd(w, r, c(P::c2));
  const Packet v = ei::pmadd(w, r, c(1.0f));
  Packet u;  // exp(r) − 1, with the table's correction
  if constexpr (kCorrected) u = ei::pmadd(r, v, lookup<kEntries>(table.correction, qi));
  else u = ei::pmul(r, v);
  const Packet scaled = add_shifted(lookup<kEntries>(table.value, qi), qi, 23 - log2_of(kEntries));
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
#if defined(__AVX512F__) || defined(__AVX2__)
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
#if defined(__AVX512F__)
  const Table t16 = make_table<16>();
  add("table16-corrected", TableExp<16, true>{t16});
  add("table16", TableExp<16, false>{t16});
#elif defined(__AVX2__)
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
