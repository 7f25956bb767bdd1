// CPU benchmarks: the fast kernels against their in-run references (memcpy, an Eigen SGEMM,
// attention written as a competent Eigen user would), and the recording overhead.
//
//   bench_cpu [google-benchmark flags] [--markdown FILE]
// With --markdown, the figures and the target ratios are written into FILE's "CPU kernels"
// section (bench/run_benchmarks.sh does that for BENCHMARKS.md).
#include "bench/bench_report.h"
#include "bench/roof.h"
#include "core/engine.h"
#include "core/fast.h"
#include "core/fast_backward.h"
#include "core/timed_run.h"
#include "core/workspace.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

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
// Online softmax's memory traffic with none of its arithmetic: a max pass over x, then x read
// again and written to y with streaming stores, as its normalize pass writes. Rows in parallel,
// or one long row split across the threads, as the kernel splits it. This is the speed online
// softmax would have if exp() cost nothing.
void BM_online_traffic(benchmark::State& state) {
  const std::int64_t rows = state.range(0), n = state.range(1);
  const auto x = random_vector(rows * n, 2);
  std::vector<float> y(x.size());
  const int T = fast::threads();
  auto two_passes = [&](const float* xr, float* yr, std::int64_t len) {
    const float m = Eigen::Map<const Eigen::ArrayXf>(xr, len).maxCoeff();  // pass 1: read
    using Packet = Eigen::internal::packet_traits<float>::type;
    constexpr std::int64_t kP = Eigen::internal::unpacket_traits<Packet>::size;
    const Packet pm = Eigen::internal::pset1<Packet>(m);
    std::int64_t i = 0;
    for (; i < len && reinterpret_cast<std::uintptr_t>(yr + i) % (kP * sizeof(float)) != 0; ++i) yr[i] = xr[i] - m;
    for (; i + kP <= len; i += kP) {  // pass 2: read, write past the cache
      const Packet v = Eigen::internal::psub(Eigen::internal::ploadu<Packet>(xr + i), pm);
#if defined(__AVX512F__)
      _mm512_stream_ps(yr + i, v);
#elif defined(__AVX__)
      _mm256_stream_ps(yr + i, v);
#else
      Eigen::internal::pstoreu(yr + i, v);
#endif
    }
    for (; i < len; ++i) yr[i] = xr[i] - m;
  };
  for (auto _ : state) {
    if (rows >= T) {
#pragma omp parallel for schedule(static)
      for (std::int64_t r = 0; r < rows; ++r) two_passes(x.data() + r * n, y.data() + r * n, n);
    } else {
#pragma omp parallel for schedule(static)
      for (int t = 0; t < T; ++t) {
        const std::int64_t b = n * t / T, e = n * (t + 1) / T;
        two_passes(x.data() + b, y.data() + b, e - b);
      }
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes"] = 3.0 * 4.0 * static_cast<double>(rows * n);
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
BENCHMARK(BM_online_traffic)->Apply(softmax_shapes);

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

// The tiled kernels take their own blocks (fast::kernel_blocks), as `run --steps none` does.
void run_attention(Attn kind, const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, MatRM<float>& O) {
  const int N = static_cast<int>(Q.rows()), d = static_cast<int>(Q.cols());
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const fast::KernelBlocks b = fast::kernel_blocks(N, d);
  const Mask none(Mask::Kind::none, N, N);
  switch (kind) {
    case Attn::naive: fast::attention_naive(Q, K, V, scale, none, O); break;
    case Attn::tiled: fast::attention_tiled(Q, K, V, scale, none, b.Br, b.Bc, O); break;
    case Attn::tiled_v2: fast::attention_tiled_v2(Q, K, V, scale, none, b.Br, b.Bc, O); break;
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

// ---- the backward pass: standard (P, dP, dS in memory) and FlashAttention-2's ---------------

enum class Backward { standard, flash };

// The forward each backward starts from, computed once outside the timing: FA-2's O and L for the
// flash one (its own blocks), and for the standard one also P = softmax(s·QKᵀ), as the forward
// leaves it in memory.
struct BackwardCase {
  MatRM<float> Q, K, V, dO, O, P;
  std::vector<float> L;
  float scale = 1;
  fast::KernelBlocks b;
};
BackwardCase backward_case(int N, int d, bool with_p) {
  BackwardCase c{random_matrix(N, d, 5), random_matrix(N, d, 6), random_matrix(N, d, 7), random_matrix(N, d, 8),
                 {}, {}, {}, 1.0f / std::sqrt(static_cast<float>(d)), fast::kernel_blocks(N, d)};
  const Mask none(Mask::Kind::none, N, N);
  fast::attention_tiled_v2(c.Q, c.K, c.V, c.scale, none, c.b.Br, c.b.Bc, c.O, &c.L);
  if (with_p) {
    c.P.noalias() = c.scale * c.Q * c.K.transpose();
    for (Eigen::Index i = 0; i < N; ++i)
      c.P.row(i) = (c.P.row(i).array() - c.L[static_cast<std::size_t>(i)]).exp().matrix();
  }
  return c;
}

void run_backward(Backward kind, const BackwardCase& c, fast::Gradients& g) {
  const int N = static_cast<int>(c.Q.rows());
  if (kind == Backward::standard)
    fast::attention_backward(c.Q, c.K, c.V, c.P, c.O, c.dO, c.scale, g);
  else
    fast::attention_flash_backward(c.Q, c.K, c.V, c.O, c.L, c.dO, c.scale, Mask(Mask::Kind::none, N, N), c.b.Br,
                                   c.b.Bc, g);
}

void BM_backward(benchmark::State& state, Backward kind) {
  const int N = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const BackwardCase c = backward_case(N, d, kind == Backward::standard);
  fast::Gradients g;
  run_backward(kind, c, g);  // warm up, and the gradients allocated before counting
  Workspace::reset_peak();
  const std::int64_t base = Workspace::current();
  run_backward(kind, c, g);
  state.counters["workspace_bytes"] = static_cast<double>(Workspace::peak() - base);
  for (auto _ : state) {
    run_backward(kind, c, g);
    benchmark::DoNotOptimize(g.dQ.data());
  }
  // Matmuls of 2·N²·d each: four for the standard backward, five (S recomputed) for the flash one.
  state.counters["flops"] = (kind == Backward::standard ? 8.0 : 10.0) * N * static_cast<double>(N) * d;
}
void BM_attn_backward(benchmark::State& s) { BM_backward(s, Backward::standard); }
void BM_attn_flash_backward(benchmark::State& s) { BM_backward(s, Backward::flash); }

void backward_shapes(benchmark::internal::Benchmark* b) {
  for (int N : {1024, 4096, 8192}) b->Args({N, 64});
  b->Args({4096, 128});
  b->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(0.2);
}
BENCHMARK(BM_attn_backward)->Apply(backward_shapes);
BENCHMARK(BM_attn_flash_backward)->Apply(backward_shapes);

// ---- what each technique of attn-tiled-v2 brings: one turned off at a time -------------------

// attn-tiled-v2 at N = 4096 with variant k of bench::kAblation (0: the kernel as it runs).
struct AblationCase {
  fast::TiledOptions opt;
  int Br = 0, Bc = 0;
};
AblationCase ablation_case(int variant, int N, int d) {
  AblationCase c;
  const fast::KernelBlocks b = fast::kernel_blocks(N, d);
  c.Br = b.Br;
  c.Bc = b.Bc;
  switch (variant) {
    case 1: {  // the lesson's blocks, derived from the default M
      Scenario s;
      s.algorithm = Algorithm::attn_tiled_v2;
      s.n = N;
      s.d = d;
      const Resolved r = resolve(s);
      c.Br = r.Br;
      c.Bc = r.Bc;
      break;
    }
    case 2: c.opt.vector_exp = false; break;
    case 3: c.opt.fused_exp_sum = false; break;
    case 4: c.opt.lazy_rescale = false; break;
    case 5: c.opt.micro_kernels = false; break;
    case 6: c.opt.schedule = fast::TiledOptions::Schedule::snake; break;
    case 7: c.opt.schedule = fast::TiledOptions::Schedule::contiguous; break;
    default: break;
  }
  return c;
}

// Every variant in turn, `rounds` times, `per_round` runs each time, so that a machine whose
// speed drifts over the seconds this takes slows every variant alike. The schedules are also
// run under the causal mask, where they matter.
std::vector<bench::AblationRun> ablation_runs(int rounds, int per_round) {
  std::vector<bench::AblationRun> out;
  const int N = 4096;
  fast::warm_up(fast::kWarmUpSeconds);
  for (int d : {64, 128}) {
    const MatRM<float> Q = random_matrix(N, d, 5), K = random_matrix(N, d, 6), V = random_matrix(N, d, 7);
    MatRM<float> O(N, d);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    const std::size_t first = out.size();
    for (int v = 0; v < static_cast<int>(bench::kAblation.size()); ++v) out.push_back({v, d, false, {}, 0, 0});
    for (int v : {0, 6, 7}) out.push_back({v, d, true, {}, 0, 0});
    std::vector<AblationCase> cases;
    for (std::size_t k = first; k < out.size(); ++k) {
      cases.push_back(ablation_case(out[k].variant, N, d));
      out[k].Br = cases.back().Br;
      out[k].Bc = cases.back().Bc;
    }
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = first; k < out.size(); ++k) {
        bench::AblationRun& a = out[k];
        const AblationCase& c = cases[k - first];
        const Mask mask = Mask::causal_if(a.causal, static_cast<int>(Q.rows()), static_cast<int>(K.rows()));
        for (int r = 0; r < per_round; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          fast::attention_tiled_v2(Q, K, V, scale, mask, c.Br, c.Bc, O, nullptr, nullptr, nullptr, c.opt);
          benchmark::DoNotOptimize(O.data());
          a.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
      }
  }
  return out;
}

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
    benchmark::DoNotOptimize(rec.output().data());
  }
  state.counters["recording_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_record)->ArgName("steps")->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

// The figures of the command a user runs, `flashstep run --algo A --n 4096 --d D --scale sqrt
// --steps none --output none --repeat R`: run_timed(), the function behind it, with its inputs,
// blocks, threads and timing (every repeat kept), after an Eigen SGEMM 2048³ timed the same way,
// the reference of the same run. The cores are woken once, as the command wakes them.
std::vector<bench::UserRun> user_runs(int repeat) {
  std::vector<bench::UserRun> out;
  fast::warm_up(fast::kWarmUpSeconds);
  const MatRM<float> A = random_matrix(2048, 2048, 3), B = random_matrix(2048, 2048, 4);
  MatRM<float> C(2048, 2048);
  for (int d : {64, 128}) {
    bench::UserRun gemm;
    gemm.what = "sgemm";
    gemm.d = d;
    gemm.flops = 2.0 * 2048.0 * 2048.0 * 2048.0;
    for (int k = 0; k < repeat; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      C.noalias() = A * B;
      benchmark::DoNotOptimize(C.data());
      gemm.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    out.push_back(gemm);
    const std::pair<Algorithm, bool> kernels[] = {{Algorithm::attn_naive, false},   {Algorithm::attn_tiled, false},
                                                  {Algorithm::attn_tiled_v2, false}, {Algorithm::attn_tiled, true},
                                                  {Algorithm::attn_tiled_v2, true}};
    for (auto [a, causal] : kernels) {
      Scenario s;
      s.algorithm = a;
      s.n = 4096;
      s.d = d;
      s.scale_mode = ScaleMode::inv_sqrt_d;
      s.causal = causal;
      const TimedRun run = run_timed(resolve(s), repeat, /*keep_output=*/false, /*warm=*/false);
      bench::UserRun u;
      u.what = algorithm_id(a);
      u.d = d;
      u.causal = causal;
      u.ms = run.times_ms;
      u.Br = run.rec.Br;
      u.Bc = run.rec.Bc;
      u.flops = 4.0 * 4096.0 * 4096.0 * d;
      out.push_back(u);
    }
  }
  return out;
}

int main(int argc, char** argv) {
  std::string markdown;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--markdown") == 0) {
      markdown = argv[i + 1];
      for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  // Read before Initialize, which takes its flags out of argv.
  bool filtered = false;
  for (int i = 1; i < argc; ++i) filtered |= std::strncmp(argv[i], "--benchmark_filter", 18) == 0;
  benchmark::Initialize(&argc, argv);
  bench::CollectingReporter reporter;
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (filtered && ran == 0) {  // say so, and leave BENCHMARKS.md as it is
    std::fprintf(stderr, "bench_cpu: no benchmark matches the filter; nothing was measured\n");
    return 2;
  }
  // The ablation and the command a user runs: after the Google Benchmark runs, unless a filter
  // picked some of them.
  std::vector<bench::UserRun> users;
  std::vector<bench::AblationRun> ablation;
  bench::Roof roof;
  if (!filtered) {
    fast::warm_up(fast::kWarmUpSeconds);
    roof = {bench::isa_name(), bench::fma_peak_flops(), bench::read_bandwidth()};
    std::printf("roof: %s, FMA peak %.1f GFLOP/s, read %.1f GB/s\n", roof.isa.c_str(), roof.fma_flops / 1e9,
                roof.read_bytes_per_s / 1e9);
    ablation = ablation_runs(5, 3);
    users = user_runs(10);
    for (const auto& u : users)
      std::printf("user command %-14s d = %3d%s: best %.2f ms of %zu\n", u.what.c_str(), u.d, u.causal ? " causal" : "",
                  *std::min_element(u.ms.begin(), u.ms.end()), u.ms.size());
  }
  if (markdown.empty()) return 0;
  bool ok = bench::write_cpu_section(markdown, reporter.runs());
  ok = bench::write_backward_section(markdown, reporter.runs()) && ok;
  if (!users.empty()) ok = bench::write_user_section(markdown, users, ablation, roof) && ok;
  return ok ? 0 : 1;
}
