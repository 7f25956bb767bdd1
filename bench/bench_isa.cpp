// The figures of bench/run_isa_table.sh, one measurement per call, so that the script can take
// turns with ggml's program (bench/ggml/) in separate processes. Needs only flashstep_core.
//
//   bench_isa roof                     the build's instruction set, its FMA peak on every core,
//                                      the read bandwidth, online softmax's rate on rows in cache,
//                                      an Eigen SGEMM 2048³
//   bench_isa attn ALGO D MASK REPEAT  `flashstep run --algo ALGO --n 4096 --d D --scale sqrt
//                                      --steps none --repeat REPEAT` (MASK: full or causal) through
//                                      run_timed, the function behind it: every repeat's time,
//                                      and the minor page faults of the call
//   bench_isa turns D REPEAT           FA-2 full, FA-1 full and FA-2 causal at N = 4096 on the
//                                      same inputs and blocks as `attn`, one run of each in turn,
//                                      REPEAT times, in one process: the best of each, for ratios
//                                      of times taken within the same second
//   bench_isa softmax ROUNDS           2^26 fp32 elements as one row: safe, online and online's
//                                      traffic alone, taking turns ROUNDS times, best of each
//   bench_isa read-ahead ROUNDS F...   online softmax and its traffic alone on the same row with
//                                      long rows read F floats ahead (fast::set_read_ahead_floats),
//                                      each distance in turn, the order rotated each round: the
//                                      median and range of each distance's best of 3, and of its
//                                      ratio to the first distance's within the round, to choose
//                                      the distance for a CPU (core/fast.h)
//   bench_isa steady MS REPEAT         REPEAT runs of the FMA peak's register-only loop on every
//                                      core, each about MS ms long: the cores' own steadiness, to
//                                      set beside a kernel's spread over as many repeats as long
//   bench_isa steady-read MS REPEAT FLOATS
//                                      REPEAT runs of every core reading one shared buffer of
//                                      FLOATS floats over and over (K and V: 2·N·d), each about
//                                      MS ms long: the shared cache's steadiness, to set beside a
//                                      kernel's spread as `steady` is
//   bench_isa paired D REPEAT          FA-2 full at N = 4096 (as `turns` runs it) and the register-
//                                      only loop of `steady`, sized once to an untimed FA-2 run,
//                                      one after the other REPEAT times: for each pair both times,
//                                      the CPU each thread was on before and after FA-2's run,
//                                      the process's involuntary context switches and the
//                                      hypervisor's steal time (/proc/stat) during it, so that a
//                                      slow repeat can be laid to the kernel or to the machine
// Each figure is one line "name value".
#include "bench/roof.h"
#include "core/engine.h"
#include "core/fast.h"
#include "core/mask.h"
#include "core/timed_run.h"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <sched.h>
#include <sys/resource.h>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace flashstep;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

int usage() {
  std::fprintf(stderr,
               "usage: bench_isa roof | attn ALGO D full|causal REPEAT | turns D REPEAT | softmax ROUNDS | "
               "read-ahead ROUNDS FLOATS... | steady MS REPEAT | steady-read MS REPEAT FLOATS | paired D REPEAT\n");
  return 2;
}

// cpuid's vendor string, or "none".
std::string vendor_name() {
  const std::string v = fast::cpu_vendor();
  return v.empty() ? "none" : v;
}

int roof() {
  fast::warm_up(fast::kWarmUpSeconds);
  std::printf("isa %s\nvector_floats %d\nthreads %d\n", bench::isa_name().c_str(), bench::vector_floats(),
              fast::threads());
  std::printf("cpu_vendor %s\nread_ahead_floats %lld\nread_ahead_other %lld\nread_ahead_intel %lld\n",
              vendor_name().c_str(), static_cast<long long>(fast::read_ahead_floats()),
              static_cast<long long>(fast::kReadAheadOther), static_cast<long long>(fast::kReadAheadIntel));
  std::printf("fma_peak_gflops %.2f\n", bench::fma_peak_flops() / 1e9);
  std::printf("read_gbs %.2f\n", bench::read_bandwidth() / 1e9);
  std::printf("cached_online_gelems %.3f\n", bench::cached_online_rate() / 1e9);
  // Eigen's GEMM runs on every OpenMP thread (Eigen::nbThreads()), as the backward's GEMMs do.
  const int n = 2048;
  MatRM<float> A = MatRM<float>::Random(n, n), B = MatRM<float>::Random(n, n), C(n, n);
  double best = 1e300;
  for (int k = 0; k < 5; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    C.noalias() = A * B;
    best = std::min(best, ms_since(t0));
  }
  std::printf("sgemm_threads %d\nsgemm_ms %.3f\nsgemm_gflops %.2f\n", Eigen::nbThreads(), best,
              2.0 * n * n * n / best / 1e6);
  return C(0, 0) == 12345.0f ? 1 : 0;  // keeps C
}

int attn(const std::string& algo, int d, bool causal, int repeat) {
  Scenario s;
  const std::optional<Algorithm> a = parse_algorithm(algo);
  if (!a) {
    std::fprintf(stderr, "bench_isa: unknown algorithm '%s'\n", algo.c_str());
    return 2;
  }
  s.algorithm = *a;
  s.n = 4096;
  s.d = d;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  s.causal = causal;
  const Resolved r = resolve(s);
  // Minor page faults of the whole call (inputs, warm-up and repeats): compared between REPEAT = 1
  // and 10, what each repeat adds.
  const long faults_before = minor_faults();
  const TimedRun run = run_timed(r, repeat, /*keep_output=*/false);
  std::printf("minor_faults %ld\n", minor_faults() - faults_before);
  std::printf("blocks %d %d\n", run.rec.Br, run.rec.Bc);
  for (double t : run.times_ms) std::printf("ms %.3f\n", t);
  std::printf("best_ms %.3f\n", run.time_ms);
  return 0;
}

// FA-2 full, FA-1 full and FA-2 causal, as `attn` runs each (run_timed's fast path: its inputs,
// its kernel blocks), but taking turns run by run, so that a ratio of two of them is not moved by
// what the machine does between two processes.
int turns(int d, int repeat) {
  struct Kernel {
    const char* name;
    Algorithm algorithm;
    bool causal;
    std::vector<double> ms;
  };
  std::vector<Kernel> kernels = {{"v2", Algorithm::attn_tiled_v2, false, {}},
                                 {"v1", Algorithm::attn_tiled, false, {}},
                                 {"v2c", Algorithm::attn_tiled_v2, true, {}}};
  struct Prepared {
    Resolved r;
    MatRM<float> Q, K, V, O;
    Mask mask;
    std::vector<float> m, l, lse;
  };
  std::vector<Prepared> in;
  for (const Kernel& k : kernels) {
    Scenario s;
    s.algorithm = k.algorithm;
    s.n = 4096;
    s.d = d;
    s.scale_mode = ScaleMode::inv_sqrt_d;
    s.causal = k.causal;
    const Resolved r = with_kernel_blocks(resolve(s));
    in.push_back({r, r.q.cast<float>(), r.k.cast<float>(), r.v.cast<float>(), MatRM<float>(), Mask::of(r),
                  std::vector<float>(static_cast<std::size_t>(r.n)), std::vector<float>(static_cast<std::size_t>(r.n)),
                  {}});
  }
  auto run = [&](std::size_t i) {
    Prepared& p = in[i];
    const float scale = static_cast<float>(p.r.scale);
    const auto t0 = std::chrono::steady_clock::now();
    if (kernels[i].algorithm == Algorithm::attn_tiled)
      fast::attention_tiled(p.Q, p.K, p.V, scale, p.mask, p.r.Br, p.r.Bc, p.O, p.m.data(), p.l.data());
    else
      fast::attention_tiled_v2(p.Q, p.K, p.V, scale, p.mask, p.r.Br, p.r.Bc, p.O, &p.lse, p.m.data(), p.l.data());
    return ms_since(t0);
  };
  fast::warm_up(fast::kWarmUpSeconds);
  for (std::size_t i = 0; i < kernels.size(); ++i) run(i);  // untimed, as run_timed's first run
  for (int k = 0; k < repeat; ++k)
    for (std::size_t i = 0; i < kernels.size(); ++i) kernels[i].ms.push_back(run(i));
  std::printf("blocks %d %d\n", in[0].r.Br, in[0].r.Bc);
  for (const Kernel& k : kernels)
    std::printf("%s_best_ms %.3f\n", k.name, *std::min_element(k.ms.begin(), k.ms.end()));
  return 0;
}

// The softmax benchmarks' row: 2^26 standard-normal floats, as one row.
constexpr std::int64_t kSoftmaxRow = std::int64_t{1} << 26;
std::vector<float> softmax_row() {
  std::vector<float> x(static_cast<std::size_t>(kSoftmaxRow));
  std::mt19937 gen(2);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& v : x) v = normal(gen);
  return x;
}

// Times f() in ms and keeps the time in `best` when it is the fastest yet.
template <class F>
void keep_best(double& best, F f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  best = std::min(best, ms_since(t0));
}

int softmax(int rounds) {
  const std::int64_t n = kSoftmaxRow;
  const std::vector<float> x = softmax_row();
  std::vector<float> y(x.size());
  fast::warm_up(fast::kWarmUpSeconds);
  double safe = 1e300, online = 1e300, traffic = 1e300;
  for (int r = 0; r < rounds; ++r) {
    keep_best(safe, [&] { fast::softmax_safe(x.data(), y.data(), 1, n); });
    keep_best(online, [&] { fast::softmax_online(x.data(), y.data(), 1, n); });
    keep_best(traffic, [&] { bench::online_traffic(x.data(), y.data(), 1, n); });
  }
  // Its exp bound: the same elements at the rate online softmax reaches on rows in cache, where its
  // two exponentials per element are all that is left.
  const double exp_bound = static_cast<double>(n) / bench::cached_online_rate() * 1e3;
  std::printf("safe_ms %.3f\nonline_ms %.3f\ntraffic_ms %.3f\nexp_bound_ms %.3f\n", safe, online, traffic, exp_bound);
  return y[0] == 12345.0f ? 1 : 0;
}

int print_repeats(const std::vector<double>& times) {
  for (double t : times) std::printf("ms %.3f\n", t);
  std::printf("best_ms %.3f\n", *std::min_element(times.begin(), times.end()));
  return 0;
}

int steady(double ms, int repeat) {
  fast::warm_up(fast::kWarmUpSeconds);
  return print_repeats(bench::fma_repeats_ms(ms, repeat));
}

int steady_read(double ms, int repeat, std::int64_t floats) {
  fast::warm_up(fast::kWarmUpSeconds);
  return print_repeats(bench::shared_read_repeats_ms(floats, ms, repeat));
}

// The CPU each of the kernels' threads is on, in thread order ("3,7").
std::string thread_cpus() {
  std::vector<int> cpu(static_cast<std::size_t>(fast::threads()), -1);
#ifdef _OPENMP
#pragma omp parallel num_threads(fast::threads())
  cpu[static_cast<std::size_t>(omp_get_thread_num())] = sched_getcpu();
#else
  cpu[0] = sched_getcpu();
#endif
  std::string out;
  for (int c : cpu) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

// Steal time of every CPU from /proc/stat, in clock ticks (the 8th number of each "cpuN" line);
// empty where there is no /proc/stat.
std::vector<long long> steal_ticks() {
  std::vector<long long> out;
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return out;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
    int cpu = 0;
    long long v[8] = {};
    if (std::sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
                    &v[5], &v[6], &v[7]) == 9 &&
        cpu >= 0 && cpu < 4096) {
      if (out.size() <= static_cast<std::size_t>(cpu)) out.resize(static_cast<std::size_t>(cpu) + 1, 0);
      out[static_cast<std::size_t>(cpu)] = v[7];
    }
  }
  std::fclose(f);
  return out;
}

long involuntary_switches() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_nivcsw;
}

int paired(int d, int repeat) {
  Scenario s;
  s.algorithm = Algorithm::attn_tiled_v2;
  s.n = 4096;
  s.d = d;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = with_kernel_blocks(resolve(s));
  const MatRM<float> Q = r.q.cast<float>(), K = r.k.cast<float>(), V = r.v.cast<float>();
  MatRM<float> O;
  const Mask mask = Mask::of(r);
  std::vector<float> m(static_cast<std::size_t>(r.n)), l(m.size()), lse;
  auto run = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    fast::attention_tiled_v2(Q, K, V, static_cast<float>(r.scale), mask, r.Br, r.Bc, O, &lse, m.data(), l.data());
    return ms_since(t0);
  };
  fast::warm_up(fast::kWarmUpSeconds);
  run();                                // untimed, as run_timed's first run
  const bench::FmaRun control(run());  // the second, untimed too, sizes the loop
  std::printf("blocks %d %d\nthreads %d\n", r.Br, r.Bc, fast::threads());
  for (int k = 0; k < repeat; ++k) {
    const std::string before = thread_cpus();
    const std::vector<long long> steal0 = steal_ticks();
    const long switches0 = involuntary_switches();
    const double kernel_ms = run();
    const long switches = involuntary_switches() - switches0;
    const std::vector<long long> steal1 = steal_ticks();
    const std::string after = thread_cpus();
    long long steal = 0;
    for (std::size_t c = 0; c < std::min(steal0.size(), steal1.size()); ++c) steal += steal1[c] - steal0[c];
    const double control_ms = control();
    std::printf("pair %d fa2_ms %.3f control_ms %.3f cpus %s -> %s nivcsw %ld steal_ticks %lld\n", k, kernel_ms,
                control_ms, before.c_str(), after.c_str(), switches, steal);
  }
  return 0;
}

// The median and range of v, as "median (low–high)".
std::string median_range(std::vector<double> v, const char* format) {
  std::sort(v.begin(), v.end());
  const double median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  char out[96];
  std::snprintf(out, sizeof out, (std::string(format) + " (" + format + "–" + format + ")").c_str(), median, v.front(),
                v.back());
  return out;
}

int read_ahead(int rounds, const std::vector<std::int64_t>& distances) {
  const std::int64_t n = kSoftmaxRow;
  const std::vector<float> x = softmax_row();
  std::vector<float> y(x.size());
  const std::size_t D = distances.size();
  std::vector<std::vector<double>> online(D), traffic(D), ratio(D);
  fast::warm_up(fast::kWarmUpSeconds);
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> round_online(D);
    for (std::size_t k = 0; k < D; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(r)) % D;  // the order rotated each round
      fast::set_read_ahead_floats(distances[i]);
      double best = 1e300, best_traffic = 1e300;
      for (int c = 0; c < 3; ++c) {
        keep_best(best, [&] { fast::softmax_online(x.data(), y.data(), 1, n); });
        keep_best(best_traffic, [&] { bench::online_traffic(x.data(), y.data(), 1, n); });
      }
      round_online[i] = best;
      online[i].push_back(best);
      traffic[i].push_back(best_traffic);
    }
    for (std::size_t i = 0; i < D; ++i) ratio[i].push_back(round_online[i] / round_online[0]);
  }
  std::printf("cpu_vendor %s\nchosen_floats %lld\n", vendor_name().c_str(),
              static_cast<long long>(fast::read_ahead_floats_for(fast::cpu_vendor())));
  for (std::size_t i = 0; i < D; ++i)
    std::printf("floats %lld online_ms %s traffic_ms %s online_vs_first %s\n", static_cast<long long>(distances[i]),
                median_range(online[i], "%.2f").c_str(), median_range(traffic[i], "%.2f").c_str(),
                median_range(ratio[i], "%.3f").c_str());
  return y[0] == 12345.0f ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string what = argv[1];
  if (what == "roof" && argc == 2) return roof();
  if (what == "attn" && argc == 6) {
    const int d = std::atoi(argv[3]), repeat = std::atoi(argv[5]);
    const std::string mask = argv[4];
    if (d <= 0 || repeat <= 0 || (mask != "full" && mask != "causal")) return usage();
    return attn(argv[2], d, mask == "causal", repeat);
  }
  if (what == "turns" && argc == 4 && std::atoi(argv[2]) > 0 && std::atoi(argv[3]) > 0)
    return turns(std::atoi(argv[2]), std::atoi(argv[3]));
  if (what == "paired" && argc == 4 && std::atoi(argv[2]) > 0 && std::atoi(argv[3]) > 0)
    return paired(std::atoi(argv[2]), std::atoi(argv[3]));
  if (what == "softmax" && argc == 3 && std::atoi(argv[2]) > 0) return softmax(std::atoi(argv[2]));
  if (what == "read-ahead" && argc >= 4 && std::atoi(argv[2]) > 0) {
    std::vector<std::int64_t> distances;
    for (int a = 3; a < argc; ++a) {
      char* end = nullptr;
      const long long f = std::strtoll(argv[a], &end, 10);
      try {
        if (*argv[a] == '\0' || *end != '\0') throw std::invalid_argument(std::string("read-ahead distance '") + argv[a] + "': not a whole number");
        fast::set_read_ahead_floats(f);  // refuses what the kernels cannot take, before anything is measured
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "bench_isa: %s\n", e.what());
        return 2;
      }
      distances.push_back(f);
    }
    return read_ahead(std::atoi(argv[2]), distances);
  }
  if (what == "steady" && argc == 4 && std::atof(argv[2]) > 0 && std::atoi(argv[3]) > 0)
    return steady(std::atof(argv[2]), std::atoi(argv[3]));
  if (what == "steady-read" && argc == 5 && std::atof(argv[2]) > 0 && std::atoi(argv[3]) > 0 && std::atoll(argv[4]) > 0)
    return steady_read(std::atof(argv[2]), std::atoi(argv[3]), std::atoll(argv[4]));
  return usage();
}
