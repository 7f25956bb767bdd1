// CPU benchmarks: the fast kernels against their in-run references (memcpy, an Eigen SGEMM,
// attention written as a competent Eigen user would), and the recording overhead.
//
//   bench_cpu [google-benchmark flags] [--markdown FILE]
// With --markdown, the figures and the target ratios are written into FILE's "CPU kernels"
// section (bench/run_benchmarks.sh does that for BENCHMARKS.md).
#include "bench/bench_report.h"
#include "core/engine.h"
#include "core/fast.h"
#include "core/workspace.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace flashstep;

namespace {

std::vector<float> random_vector(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = normal(gen);
  return x;
}

MatRM<float> random_matrix(int rows, int cols, unsigned seed) {
  MatRM<float> m(rows, cols);
  const auto v = random_vector(static_cast<std::int64_t>(rows) * cols, seed);
  std::copy(v.begin(), v.end(), m.data());
  return m;
}

// ---- softmax: 2^26 elements as one row, and 4000 rows × 4000 ------------------------------

void BM_memcpy(benchmark::State& state) {
  const std::int64_t n = state.range(0) * state.range(1);
  const auto x = random_vector(n, 1);
  std::vector<float> y(x.size());
  // On every core, as the kernels run: the bandwidth the machine gives a plain copy.
  const int T = fast::threads();
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; ++t) {
      const std::int64_t b = n * t / T, e = n * (t + 1) / T;
      std::memcpy(y.data() + b, x.data() + b, static_cast<std::size_t>(e - b) * sizeof(float));
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  // A copy reads and writes every element once.
  state.counters["bytes"] = 2.0 * 4.0 * static_cast<double>(n);
}

template <void (*Kernel)(const float*, float*, std::int64_t, std::int64_t, float*, float*)>
void BM_softmax(benchmark::State& state, double accesses_per_element) {
  const std::int64_t rows = state.range(0), n = state.range(1);
  const auto x = random_vector(rows * n, 2);
  std::vector<float> y(x.size());
  for (auto _ : state) {
    Kernel(x.data(), y.data(), rows, n, nullptr, nullptr);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  // Bytes the IO model says the algorithm must move: safe 4, online 3 accesses per element.
  state.counters["bytes"] = accesses_per_element * 4.0 * static_cast<double>(rows * n);
}

// What limits a softmax pass here: exp() throughput with the data in L1, against reading the
// same number of elements from memory (a max pass), both on every core.
void BM_exp_in_cache(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto x = random_vector(4096, 9);  // 16 KiB: stays in L1
  const int T = fast::threads();
  for (auto _ : state) {
    float total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int t = 0; t < T; ++t) {
      const Eigen::Map<const Eigen::ArrayXf> block(x.data(), 4096);
      for (std::int64_t done = n * t / T; done < n * (t + 1) / T; done += 4096) total += (block - 1.0f).exp().sum();
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["elements"] = static_cast<double>(n);
}

void BM_read_stream(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const auto x = random_vector(n, 10);
  const int T = fast::threads();
  for (auto _ : state) {
    float m = -1e30f;
#pragma omp parallel for reduction(max : m) schedule(static)
    for (int t = 0; t < T; ++t) {
      const std::int64_t b = n * t / T, e = n * (t + 1) / T;
      m = std::max(m, Eigen::Map<const Eigen::ArrayXf>(x.data() + b, e - b).maxCoeff());
    }
    benchmark::DoNotOptimize(m);
  }
  state.counters["elements"] = static_cast<double>(n);
}
BENCHMARK(BM_exp_in_cache)->Arg(1 << 26)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_read_stream)->Arg(1 << 26)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_softmax_safe(benchmark::State& s) { BM_softmax<fast::softmax_safe>(s, 4.0); }
void BM_softmax_online(benchmark::State& s) { BM_softmax<fast::softmax_online>(s, 3.0); }

void softmax_shapes(benchmark::internal::Benchmark* b) {
  b->Args({1, 1 << 26})->Args({4000, 4000})->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
}
BENCHMARK(BM_memcpy)->Apply(softmax_shapes);
BENCHMARK(BM_softmax_safe)->Apply(softmax_shapes);
BENCHMARK(BM_softmax_online)->Apply(softmax_shapes);

// ---- attention ------------------------------------------------------------------------------

void BM_sgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const MatRM<float> A = random_matrix(n, n, 3), B = random_matrix(n, n, 4);
  MatRM<float> C(n, n);
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["flops"] = 2.0 * n * static_cast<double>(n) * n;
}
BENCHMARK(BM_sgemm)->Arg(2048)->UseRealTime()->Unit(benchmark::kMillisecond);

enum class Attn { naive, tiled, tiled_v2 };

void run_attention(Attn kind, const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, MatRM<float>& O) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(Q.cols()));
  switch (kind) {
    case Attn::naive: fast::attention_naive(Q, K, V, scale, false, O); break;
    case Attn::tiled: fast::attention_tiled(Q, K, V, scale, false, 128, 128, O); break;
    case Attn::tiled_v2: fast::attention_tiled_v2(Q, K, V, scale, false, 128, 128, O); break;
  }
}

void BM_attention(benchmark::State& state, Attn kind) {
  const int N = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const MatRM<float> Q = random_matrix(N, d, 5), K = random_matrix(N, d, 6), V = random_matrix(N, d, 7);
  MatRM<float> O(N, d);
  run_attention(kind, Q, K, V, O);  // warm up, and O allocated before counting
  Workspace::reset_peak();
  const std::int64_t base = Workspace::current();
  run_attention(kind, Q, K, V, O);
  state.counters["workspace_bytes"] = static_cast<double>(Workspace::peak() - base);
  for (auto _ : state) {
    run_attention(kind, Q, K, V, O);
    benchmark::DoNotOptimize(O.data());
  }
  state.counters["flops"] = 4.0 * N * static_cast<double>(N) * d;
}
void BM_attn_naive(benchmark::State& s) { BM_attention(s, Attn::naive); }
void BM_attn_tiled(benchmark::State& s) { BM_attention(s, Attn::tiled); }
void BM_attn_tiled_v2(benchmark::State& s) { BM_attention(s, Attn::tiled_v2); }

void attention_shapes(benchmark::internal::Benchmark* b) {
  for (int d : {64, 128})
    for (int N = 512; N <= 16384; N *= 2) b->Args({N, d});
  b->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.2);
}
BENCHMARK(BM_attn_naive)->Apply(attention_shapes);
BENCHMARK(BM_attn_tiled_v2)->Apply(attention_shapes);
BENCHMARK(BM_attn_tiled)->Args({4096, 64})->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- recording overhead: every step kept vs none, attn-tiled N = 256, d = 64 ------------------

void BM_record(benchmark::State& state) {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled;
  s.n = 256;
  s.d = 64;
  s.block_rows = s.block_cols = 32;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = resolve(s);
  RecordOptions opt;
  opt.keep_steps = state.range(0) != 0;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const Recording rec = record(r, opt);
    bytes = rec.memory_bytes();
    benchmark::DoNotOptimize(rec.output.data());
  }
  state.counters["recording_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_record)->ArgName("steps")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--markdown") == 0) {
      markdown = argv[i + 1];
      for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  benchmark::Initialize(&argc, argv);
  bench::CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (!markdown.empty()) return bench::write_cpu_section(markdown, reporter.runs()) ? 0 : 1;
  return 0;
}
