// The roof measurements of bench/roof.h.
#include "bench/roof.h"

#include "core/fast.h"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

namespace bench {
namespace {

namespace ei = Eigen::internal;
using Packet = ei::packet_traits<float>::type;
constexpr int kP = ei::unpacket_traits<Packet>::size;
// Enough independent chains to cover the multiply-add's latency on both ports, and few enough
// to stay in the vector registers (32 with AVX-512, 16 otherwise) beside the two constants.
constexpr int kChains = kP == 16 ? 24 : 12;
constexpr std::int64_t kStreams = flashstep::fast::kReadStreams;

// Asks for the cache lines of p[i, i + count) `ahead` floats ahead (fast::read_ahead_floats(),
// asked once a call), as the kernels do (core/fast.h): the roofs are then what the kernels' own way
// of reading reaches, at the distance they read at.
inline void read_ahead(const float* p, std::int64_t i, std::int64_t count, std::int64_t ahead) {
  constexpr std::int64_t kLine = flashstep::fast::kLineFloats;
  if (count < kLine) {  // a step shorter than a line asks once per line
    if (i % kLine < count) __builtin_prefetch(p + i + ahead);
    return;
  }
  for (std::int64_t u = 0; u < count; u += kLine) __builtin_prefetch(p + i + ahead + u);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// `iters` steps of every chain; returns their sum, so that nothing is left out.
[[gnu::noinline]] float fma_chains(std::int64_t iters) {
  // Every loop over the chains unrolled, so that the array lives in registers: rolled up, GCC
  // keeps it in memory and the loop measures store-to-load forwarding instead of the FMA units.
  Packet acc[kChains];
#pragma GCC unroll 32
  for (int c = 0; c < kChains; ++c) acc[c] = ei::pset1<Packet>(1.0f + 0.01f * c);
  const Packet a = ei::pset1<Packet>(0.99999f), b = ei::pset1<Packet>(1e-5f);
  for (std::int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 32
    for (int c = 0; c < kChains; ++c) acc[c] = ei::pmadd(acc[c], a, b);
  }
  Packet s = acc[0];
#pragma GCC unroll 32
  for (int c = 1; c < kChains; ++c) s = ei::padd(s, acc[c]);
  return ei::predux(s);
}

// x[0, n) folded into one vector by `op` (a sum, a max) from `init`, read as the kernels read a
// long row: kReadStreams parts at once, a vector of each in turn (core/fast.h); `rest`: where the
// floats past the parts begin, left to the caller.
struct Folded {
  Packet value;
  std::int64_t rest;
};
template <class Op>
Folded fold_streams(const float* x, std::int64_t n, Packet init, Op op) {
  const std::int64_t h = flashstep::fast::stream_part_length(n, kP), ahead = flashstep::fast::read_ahead_floats();
  Packet part[kStreams];
  for (Packet& v : part) v = init;
  for (std::int64_t i = 0; i < h; i += kP)
    for (std::int64_t q = 0; q < kStreams; ++q) {
      read_ahead(x + q * h, i, kP, ahead);
      part[q] = op(part[q], ei::ploadu<Packet>(x + q * h + i));
    }
  Packet value = part[0];
  for (std::int64_t q = 1; q < kStreams; ++q) value = op(value, part[q]);
  return {value, kStreams * h};
}

// Seconds until every core has run `iters` steps of the chains (the slowest core's time).
double fma_on_every_core(std::int64_t iters) {
  const int T = flashstep::fast::threads();
  float total = 0;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
  for (int t = 0; t < T; ++t) total += fma_chains(iters);
  const double s = seconds_since(t0);
  volatile float sink = total;
  (void)sink;
  return s;
}

// Seconds until every core has read all of x (n floats, a whole number of vectors) `passes`
// times over, as sums in eight independent vectors.
double read_shared(const float* x, std::int64_t n, std::int64_t passes) {
  const int T = flashstep::fast::threads();
  float total = 0;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
  for (int t = 0; t < T; ++t) {
    constexpr int kSums = 8;
    Packet sum[kSums];
    for (Packet& v : sum) v = ei::pset1<Packet>(0.0f);
    for (std::int64_t p = 0; p < passes; ++p)
      for (std::int64_t i = 0; i + kSums * kP <= n; i += kSums * kP)
#pragma GCC unroll 8
        for (int u = 0; u < kSums; ++u) sum[u] = ei::padd(sum[u], ei::ploadu<Packet>(x + i + u * kP));
    for (int u = 1; u < kSums; ++u) sum[0] = ei::padd(sum[0], sum[u]);
    total += ei::predux(sum[0]);
  }
  const double s = seconds_since(t0);
  volatile float sink = total;
  (void)sink;
  return s;
}

// Milliseconds of each of `repeats` runs of run(k), k sized so that a run takes about `ms`, from
// the best of three trials of a tenth of the length (the first trial: k = `first`).
template <class Run>
std::int64_t steps_for(Run run, std::int64_t first, double ms) {
  std::int64_t trial = first;
  while (run(trial) < ms / 10 && trial < (std::int64_t{1} << 34)) trial *= 2;
  const double per_step = std::min({run(trial), run(trial), run(trial)}) / static_cast<double>(trial);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(ms / per_step));
}

template <class Run>
std::vector<double> repeats_of(Run run, std::int64_t first, double ms, int repeats) {
  const std::int64_t steps = steps_for(run, first, ms);
  std::vector<double> out;
  for (int r = 0; r < repeats; ++r) out.push_back(run(steps));
  return out;
}

}  // namespace

std::string isa_name() {
#if defined(__AVX512F__)
  return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "AVX2+FMA";
#elif defined(__AVX__)
  return "AVX";
#elif defined(__SSE2__)
  return "SSE2";
#else
  return "scalar";
#endif
}

int vector_floats() { return kP; }

double fma_peak_flops(double seconds, int rounds) {
  // Size the round from one thread's short trial.
  std::int64_t iters = 1 << 16;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float sink = fma_chains(iters);
    (void)sink;
    if (seconds_since(t0) > seconds / 10 || iters > (std::int64_t{1} << 34)) break;
    iters *= 2;
  }
  iters *= 10;
  const int T = flashstep::fast::threads();
  double best = 0;
  for (int r = 0; r < rounds; ++r)
    best = std::max(best, 2.0 * kP * kChains * static_cast<double>(iters) * T / fma_on_every_core(iters));
  return best;
}

std::vector<double> fma_repeats_ms(double ms, int repeats) {
  return repeats_of([](std::int64_t iters) { return 1e3 * fma_on_every_core(iters); }, 1 << 14, ms, repeats);
}

FmaRun::FmaRun(double ms)
    : iters_(steps_for([](std::int64_t iters) { return 1e3 * fma_on_every_core(iters); }, 1 << 14, ms)) {}

double FmaRun::operator()() const { return 1e3 * fma_on_every_core(iters_); }

std::vector<double> shared_read_repeats_ms(std::int64_t floats, double ms, int repeats) {
  const std::int64_t n = std::max<std::int64_t>(floats / (8 * kP) * (8 * kP), 8 * kP);  // whole steps of read_shared
  const std::vector<float> x(static_cast<std::size_t>(n), 1.0f);
  return repeats_of([&](std::int64_t passes) { return 1e3 * read_shared(x.data(), n, passes); }, 1, ms, repeats);
}

double read_bandwidth(std::int64_t floats, int rounds) {
  std::vector<float> x(static_cast<std::size_t>(floats));
  const int T = flashstep::fast::threads();
  // Each thread first touches the part it reads, so its pages are its own.
#pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < T; ++t) std::fill(x.begin() + floats * t / T, x.begin() + floats * (t + 1) / T, 1.0f);
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    float total = 0;
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
    for (int t = 0; t < T; ++t) {
      const float* p = x.data() + floats * t / T;
      const std::int64_t n = floats * (t + 1) / T - floats * t / T;
      const Folded f = fold_streams(p, n, ei::pset1<Packet>(0.0f), [](Packet a, Packet b) { return ei::padd(a, b); });
      float s = ei::predux(f.value);
      for (std::int64_t i = f.rest; i < n; ++i) s += p[i];
      total += s;
    }
    const double s = seconds_since(t0);
    volatile float sink = total;
    (void)sink;
    best = std::max(best, 4.0 * static_cast<double>(floats) / s);
  }
  return best;
}

void online_traffic(const float* x, float* y, std::int64_t rows, std::int64_t n) {
  auto two_passes = [](const float* xr, float* yr, std::int64_t len) {
    // Both passes as the kernels make them over a long row: kReadStreams parts at once.
    auto max = [](Packet a, Packet b) { return ei::pmax(a, b); };
    const Folded f = fold_streams(xr, len, ei::pset1<Packet>(-INFINITY), max);  // pass 1: read
    float m = ei::predux_max(f.value);
    for (std::int64_t i = f.rest; i < len; ++i) m = std::max(m, xr[i]);
    const Packet pm = ei::pset1<Packet>(m);
    // Pass 2: read, write past the cache, from y's first cache-line boundary, each stream a whole
    // line at a time, as the kernels' output pass (core/fast_softmax.cpp).
    constexpr std::int64_t kLine = flashstep::fast::kLineFloats;
    std::int64_t i0 = 0;
    for (; i0 < len && reinterpret_cast<std::uintptr_t>(yr + i0) % (kLine * sizeof(float)) != 0; ++i0) yr[i0] = xr[i0] - m;
    const std::int64_t h = flashstep::fast::stream_part_length(len - i0, kP) / kLine * kLine;
    const std::int64_t ahead = flashstep::fast::read_ahead_floats();
    const float* xs = xr + i0;
    float* ys = yr + i0;
    for (std::int64_t i = 0; i < h; i += kLine)
      for (std::int64_t q = 0; q < kStreams; ++q) {
        read_ahead(xs + q * h, i, kLine, ahead);
#pragma GCC unroll 4
        for (std::int64_t u = 0; u < kLine; u += kP) {
          const Packet v = ei::psub(ei::ploadu<Packet>(xs + q * h + i + u), pm);
#if defined(__AVX512F__)
          _mm512_stream_ps(ys + q * h + i + u, v);
#elif defined(__AVX__)
          _mm256_stream_ps(ys + q * h + i + u, v);
#else
          ei::pstoreu(ys + q * h + i + u, v);
#endif
        }
      }
    for (std::int64_t i = i0 + kStreams * h; i < len; ++i) yr[i] = xr[i] - m;
#if defined(__AVX__)
    _mm_sfence();
#endif
  };
  const int T = flashstep::fast::threads();
  if (rows >= T) {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) two_passes(x + r * n, y + r * n, n);
  } else {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; ++t) {
      const std::int64_t b = n * t / T, e = n * (t + 1) / T;
      two_passes(x + b, y + b, e - b);
    }
  }
}

double cached_online_rate(int rounds) {
  // x and y: 128 KiB each per core, in its L2. Rows of 4096 in L1 read 25–35% slower: a row's max
  // climbs over its first steps, rescaling the running sums each time, and a short row is more
  // of that start.
  constexpr std::int64_t kRow = 32768, kCalls = 1024;
  const int T = flashstep::fast::threads();
  std::vector<std::vector<float>> x(static_cast<std::size_t>(T)), y(x.size());
  // Each core fills its own row: normal numbers, as bench_isa softmax's input is.
#pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < T; ++t) {
    std::mt19937 gen(static_cast<unsigned>(2 + t));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto& xt = x[static_cast<std::size_t>(t)];
    xt.resize(kRow);
    for (float& v : xt) v = normal(gen);
    y[static_cast<std::size_t>(t)].assign(kRow, 0.0f);
  }
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    float total = 0;
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
    for (int t = 0; t < T; ++t) {
      const float* xt = x[static_cast<std::size_t>(t)].data();
      float* yt = y[static_cast<std::size_t>(t)].data();
      for (std::int64_t k = 0; k < kCalls; ++k) flashstep::fast::softmax_online(xt, yt, 1, kRow);
      total += yt[0];
    }
    const double s = seconds_since(t0);
    volatile float sink = total;
    (void)sink;
    best = std::max(best, static_cast<double>(kRow * kCalls) * T / s);
  }
  return best;
}

}  // namespace bench
