// GPU benchmarks: attn-naive's three shaders (S and P through N x N buffers) against the tiled
// FlashAttention shaders (K_j, V_j in shared memory), N = 512 ... 4096, d = 64, fp32, summary
// runs (no step trace). The time is that of the dispatches alone (no upload, read-back or
// Recording): the GL_TIME_ELAPSED query around them, or, where the driver's timer queries leave
// compute work out (llvmpipe reports ~0 ms), the wall clock from the first dispatch to glFinish().
//
//   bench_gpu [google-benchmark flags] [--markdown FILE]
// Needs a display (bench/run_gpu_bench.sh provides one with xvfb-run). With --markdown the
// figures, the renderer and the machine are written into FILE's "GPU shaders" section.
#include "bench/bench_report.h"
#include "core/engine.h"
#include "core/text.h"
#include "gpu/gpu_engine.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

using namespace flashstep;

namespace {

constexpr int kD = 64;
constexpr int kSizes[] = {512, 1024, 2048, 4096};
constexpr Algorithm kAlgorithms[] = {Algorithm::attn_naive, Algorithm::attn_tiled, Algorithm::attn_tiled_v2};

gpu::Engine* g_engine = nullptr;

// Whether the driver's GL_TIME_ELAPSED queries see compute work: decided once, by calibrate(),
// so that every figure of a table comes from the same clock.
bool g_use_query = true;

Resolved scenario(Algorithm a, int N) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = kD;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  return resolve(s);
}

// A query that saw less than a tenth of the wall-clock time did not see the dispatches.
void calibrate() {
  RecordOptions opt;
  opt.keep_steps = false;
  g_engine->record(scenario(Algorithm::attn_tiled_v2, 512), opt);
  g_use_query = g_engine->last_gpu_ms() >= 0.1 * g_engine->last_wall_ms();
}

std::string bench_name(Algorithm a, int N) {
  std::string id(algorithm_id(a));
  for (char& c : id)
    if (c == '-') c = '_';
  return "BM_gpu_" + id + "/" + std::to_string(N);
}

void BM_gpu_attention(benchmark::State& state, Algorithm a, int N) {
  const Resolved r = scenario(a, N);
  RecordOptions opt;
  opt.keep_steps = false;
  Recording rec;
  double query_ms = 0, wall_ms = 0;
  for (auto _ : state) {
    rec = g_engine->record(r, opt);
    query_ms += g_engine->last_gpu_ms();
    wall_ms += g_engine->last_wall_ms();
    state.SetIterationTime((g_use_query ? g_engine->last_gpu_ms() : g_engine->last_wall_ms()) * 1e-3);
  }
  // Per run: both clocks, and the IO model's counts (core/io_counters.h).
  const double runs = static_cast<double>(state.iterations());
  state.counters["query_ms"] = query_ms / runs;
  state.counters["wall_ms"] = wall_ms / runs;
  state.counters["flops"] = static_cast<double>(rec.io.flops);
  state.counters["hbm_accesses"] = static_cast<double>(rec.io.hbm_accesses());
}

std::string machine() {
  std::string model = "unknown CPU";
  std::ifstream cpu("/proc/cpuinfo");
  int cores = 0;
  for (std::string line; std::getline(cpu, line);) {
    if (line.rfind("model name", 0) == 0 && model == "unknown CPU") model = line.substr(line.find(':') + 2);
    if (line.rfind("processor", 0) == 0) ++cores;
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return strf("%s, %d cores, %s", model.c_str(), cores, date);
}

std::string section(const std::vector<bench::Result>& runs, const gpu::GlInfo& gl) {
  std::ostringstream md;
  md << "## GPU shaders\n\n"
     << "Renderer: " << gl.renderer << " (OpenGL " << gl.version << "); machine: " << machine()
     << ". Written by `bench/run_gpu_bench.sh`. fp32, d = 64, scale 1/sqrt(d), Br = Bc = 64 (M = "
        "16384), summary runs (no step trace), mean of each benchmark's runs. HBM accesses and "
        "FLOPs are the IO model's counts (core/io_counters.h).\n\n";
  if (g_use_query)
    md << "Times: GPU time of the compute dispatches from GL_TIME_ELAPSED queries.\n\n";
  else
    md << "Times: wall clock from the first dispatch to glFinish(). This driver's GL_TIME_ELAPSED "
          "queries do not cover its compute work (the second table shows what they report), so "
          "they are not used.\n\n";
  if (gl.renderer.find("llvmpipe") != std::string::npos)
    md << "llvmpipe is Mesa's software rasterizer: the shaders run on this machine's CPU cores and "
          "\"shared memory\" is ordinary memory there, so these figures show the work and dispatch "
          "structure of each shader, not the HBM traffic a real GPU would save.\n\n";
  md << "| N | attn-naive | attn-tiled (FA-1) | attn-tiled-v2 (FA-2) | naive / FA-2 | HBM accesses "
        "naive / FA-2 | FA-2 GFLOP/s |\n|---|---|---|---|---|---|---|\n";
  std::ostringstream queries;
  for (int N : kSizes) {
    const bench::Result* naive = bench::find(runs, bench_name(Algorithm::attn_naive, N) + "/");
    const bench::Result* v1 = bench::find(runs, bench_name(Algorithm::attn_tiled, N) + "/");
    const bench::Result* v2 = bench::find(runs, bench_name(Algorithm::attn_tiled_v2, N) + "/");
    if (!naive || !v1 || !v2) continue;
    const double io_naive = naive->counters.at("hbm_accesses"), io_v2 = v2->counters.at("hbm_accesses");
    md << strf("| %d | %.1f ms | %.1f ms | %.1f ms | %.2f× | %.2f× | %.2f |\n", N, naive->seconds * 1e3,
               v1->seconds * 1e3, v2->seconds * 1e3, naive->seconds / v2->seconds, io_naive / io_v2,
               v2->counters.at("flops") / v2->seconds * 1e-9);
    queries << strf("| %d | %.2f ms | %.2f ms | %.2f ms |\n", N, naive->counters.at("query_ms"),
                    v1->counters.at("query_ms"), v2->counters.at("query_ms"));
  }
  if (!g_use_query)
    md << "\nWhat GL_TIME_ELAPSED reported for the same runs:\n\n"
       << "| N | attn-naive | attn-tiled (FA-1) | attn-tiled-v2 (FA-2) |\n|---|---|---|---|\n"
       << queries.str();
  return md.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--markdown") == 0 && i + 1 < argc)
      markdown = argv[++i];
    else
      args.push_back(argv[i]);
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());

  std::string error;
  const auto context = gpu::HiddenContext::create(error);
  if (!context) {
    std::cerr << "bench_gpu: " << error << "\n";
    return 2;
  }
  gpu::Engine engine;
  g_engine = &engine;
  calibrate();
  for (Algorithm a : kAlgorithms)
    for (int N : kSizes)
      benchmark::RegisterBenchmark(bench_name(a, N).c_str(), BM_gpu_attention, a, N)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
  bench::CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (!markdown.empty()) {
    if (!bench::replace_section(markdown, "gpu-shaders", section(reporter.runs(), context->info()))) {
      std::cerr << "bench_gpu: cannot write " << markdown << "\n";
      return 1;
    }
    std::cout << "bench_gpu: wrote the \"GPU shaders\" section of " << markdown << "\n";
  }
  return 0;
}
