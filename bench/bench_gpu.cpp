// GPU benchmarks: attn-naive's three shaders (S and P written to and read from N x N buffers in
// GPU memory) against the tiled FlashAttention shaders (K_j, V_j in shared memory), FA-1 and FA-2,
// over N = 1024 ... 16384, d = 64 and 128, fp32, without and with the causal mask, H = 1 and 16
// heads (all heads in the same dispatches, as `run --heads` runs them), summary runs (no step
// trace). The time is that of the dispatches alone (no upload, read-back or Recording): the
// GL_TIME_ELAPSED query around them, or, where the driver's timer queries leave compute work out
// (llvmpipe reports ~0 ms), the wall clock from the first dispatch to glFinish(). attn-naive's
// kernels are also timed apart (GL_TIMESTAMP queries, or the wall clock between glFinish()es).
//
//   bench_gpu [google-benchmark flags] [--markdown FILE] [--max-n N]
// --max-n: the largest N run (default 16384; 1024 on llvmpipe, whose run of the whole range
// would take hours on a CPU). Rows the GPU refuses (memory, buffer size, the measured loop cap)
// are listed with the reason. With --markdown the figures, the renderer and the machine are
// written into FILE's "GPU shaders" section. Needs an OpenGL 4.3 context: EGL without a display,
// or a window where there is a display (bench/run_gpu_bench.sh).
#include "bench/bench_report.h"
#include "core/engine.h"
#include "core/text.h"
#include "gpu/gpu_engine.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>

using namespace flashstep;

namespace {

constexpr int kSizes[] = {1024, 2048, 4096, 8192, 16384};
constexpr int kDims[] = {64, 128};
constexpr int kHeads[] = {1, 16};
constexpr Algorithm kAlgorithms[] = {Algorithm::attn_naive, Algorithm::attn_tiled, Algorithm::attn_tiled_v2};

gpu::Engine* g_engine = nullptr;

// Whether the driver's GL_TIME_ELAPSED queries see compute work: decided once, by calibrate(),
// so that every figure of a table comes from the same clock.
bool g_use_query = true;
double g_calibration_query_ms = 0, g_calibration_wall_ms = 0;

// Why a row did not run: refused before (unsupported(), the loop cap) or during the run.
std::map<std::string, std::string> g_refused;

// The 1-minute load average when the benchmark started: on llvmpipe the shaders share the CPU
// with whatever else runs, which the figures then include.
std::string g_load = "unknown";
void read_load() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  if (in >> first) g_load = first;
}

struct Shape {
  int N, d, H;
  bool causal;
};

std::vector<Shape> shapes(int max_n) {
  std::vector<Shape> out;
  for (int d : kDims)
    for (bool causal : {false, true})
      for (int H : kHeads)
        for (int N : kSizes)
          if (N <= max_n) out.push_back({N, d, H, causal});
  return out;
}

Resolved scenario(Algorithm a, int N, int d, bool causal) {
  Scenario s;
  s.algorithm = a;
  s.n = N;
  s.d = d;
  s.causal = causal;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  return resolve(s);
}

RecordOptions summary() {
  RecordOptions opt;
  opt.keep_steps = false;
  return opt;
}

// A query that saw less than a tenth of the wall-clock time did not see the dispatches.
void calibrate() {
  g_engine->record(scenario(Algorithm::attn_tiled_v2, 512, 64, false), summary());
  g_calibration_query_ms = g_engine->last_gpu_ms();
  g_calibration_wall_ms = g_engine->last_wall_ms();
  g_use_query = g_calibration_query_ms >= 0.1 * g_calibration_wall_ms;
}

std::string bench_name(Algorithm a, const Shape& x) {
  std::string id(algorithm_id(a));
  for (char& c : id)
    if (c == '-') c = '_';
  return strf("BM_gpu_%s/%d/%d/%d/%s", id.c_str(), x.N, x.d, x.H, x.causal ? "causal" : "full");
}

// Why the GPU would refuse this row before running it, or "".
std::string refusal(Algorithm a, const Shape& x) {
  Scenario s;
  s.algorithm = a;
  s.n = x.N;
  s.d = x.d;
  s.causal = x.causal;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  const Resolved r = resolve(s);
  if (std::string why = g_engine->unsupported(r, false, x.H); !why.empty()) return why;
  return g_engine->exceeds_loop_cap(r);
}

void BM_gpu_attention(benchmark::State& state, Algorithm a, Shape x) {
  const Resolved r = scenario(a, x.N, x.d, x.causal);
  const std::string name = bench_name(a, x);
  Recording rec;
  double query_ms = 0, wall_ms = 0;
  std::map<std::string, double> phase_ms;
  try {
    // The shaders compiled (llvmpipe compiles at the first dispatch) before anything is timed:
    // the same defines at a small N.
    g_engine->record(scenario(a, 128, x.d, x.causal), summary());
    for (auto _ : state) {
      rec = g_engine->record(r, summary(), x.H);
      query_ms += g_engine->last_gpu_ms();
      wall_ms += g_engine->last_wall_ms();
      for (const gpu::PhaseTime& p : g_engine->last_phases()) phase_ms[p.name] += g_use_query ? p.gpu_ms : p.wall_ms;
      state.SetIterationTime((g_use_query ? g_engine->last_gpu_ms() : g_engine->last_wall_ms()) * 1e-3);
    }
  } catch (const std::exception& e) {
    g_refused[name] = e.what();
    state.SkipWithError(e.what());
    return;
  }
  // Per run: both clocks, attn-naive's kernels, and the IO model's counts (core/io_counters.h).
  const double runs = static_cast<double>(state.iterations());
  state.counters["query_ms"] = query_ms / runs;
  state.counters["wall_ms"] = wall_ms / runs;
  for (const auto& [phase, ms] : phase_ms) state.counters["phase " + phase] = ms / runs;
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
  return strf("%s, %d cores, %s, load average %s at the start", model.c_str(), cores, date, g_load.c_str());
}

// The peaks a row is set against, for a card whose figures we know (their source in `source`).
struct Peak {
  const char* card = nullptr;
  double flops = 0, bandwidth = 0;  // fp32 non-tensor FLOP/s; memory bytes/s
  const char* source = "";
};

Peak peak_of(const std::string& renderer) {
  if (renderer.find("H100") != std::string::npos)
    return {"NVIDIA H100", 67e12, 3.35e12,
            "NVIDIA's H100 SXM5 figures as issue 13 and ERRATA §13 quote them: 67 TFLOP/s fp32 without "
            "tensor cores, 3.35 TB/s HBM3"};
  // The H200 is the H100's GH100 chip at the same clocks with HBM3e: the same fp32 rate, more bandwidth.
  if (renderer.find("H200") != std::string::npos)
    return {"NVIDIA H200", 67e12, 4.8e12,
            "NVIDIA's H200 SXM figures: 67 TFLOP/s fp32 without tensor cores (the H100's GH100 chip), "
            "4.8 TB/s HBM3e"};
  return {};
}

// The model's ceiling on naive / FA-2 (ERRATA §13): per N² element, S = QKᵀ and O = PV are 2d
// FLOPs each at the fp32 peak F, and the softmax pass reads S and writes P, 8 bytes at the
// bandwidth BW; FA-2 does the FLOPs alone. Naive / FA-2 ≤ (4d/F + 8/BW) / (4d/F).
double ceiling(const Peak& p, int d) { return (4.0 * d / p.flops + 8.0 / p.bandwidth) / (4.0 * d / p.flops); }

std::string time_text(double seconds) {
  return seconds >= 1 ? strf("%.2f s", seconds) : strf("%.1f ms", seconds * 1e3);
}
std::string rate_text(double per_second, const char* unit) {
  return per_second >= 1e12 ? strf("%.2f T%s", per_second * 1e-12, unit) : strf("%.2f G%s", per_second * 1e-9, unit);
}
std::string share_text(const Peak& p, double value, double peak_value) {
  return p.card ? strf("%.1f%%", 100.0 * value / peak_value) : "peak unknown";
}

std::string section(const std::vector<bench::Result>& runs, const gpu::GlInfo& gl, const std::vector<Shape>& rows,
                    int max_n, bool max_n_default) {
  const Peak peak = peak_of(gl.renderer);
  const bool llvmpipe = gl.renderer.find("llvmpipe") != std::string::npos;
  std::ostringstream md;
  md << "## GPU shaders\n\n"
     << "Renderer: " << gl.renderer << " (OpenGL " << gl.version << ", context: " << gl.path
     << "); machine: " << machine()
     << ". Written by `bench/run_gpu_bench.sh`. fp32, scale 1/sqrt(d), blocks derived from M = 16384 "
        "(d = 64: Br = Bc = 64; d = 128: Br = Bc = 32), summary runs (no step trace), H heads in the same "
        "dispatches (every shader's grid covers heads × blocks), mean of each benchmark's runs.\n\n";
  if (g_use_query)
    md << "Times: GPU time of the compute dispatches from GL_TIME_ELAPSED queries; attn-naive's three "
          "kernels from GL_TIMESTAMP queries between them.\n\n";
  else
    md << strf("Times: wall clock from the first dispatch to glFinish(), attn-naive's kernels between "
               "glFinish()es. This driver's GL_TIME_ELAPSED queries do not cover its compute work (%.2f ms "
               "reported for a run of %.1f ms on the wall clock), so they are not used.\n\n",
               g_calibration_query_ms, g_calibration_wall_ms);
  if (llvmpipe)
    md << "llvmpipe is Mesa's software rasterizer: the shaders run on this machine's CPU cores and "
          "\"shared memory\" is ordinary memory there, so these figures show the work and dispatch "
          "structure of each shader, not the HBM traffic a real GPU would save. Its peak FLOP rate "
          "and bandwidth are not a GPU's: shares of peak are \"peak unknown\".\n\n";
  if (peak.card)
    md << "Peak figures: " << peak.source << ".\n\n";
  else if (!llvmpipe)
    md << "Peak figures: peak unknown (no figures for this renderer in bench_gpu.cpp).\n\n";
  if (max_n < kSizes[std::size(kSizes) - 1])
    md << strf("Rows above N = %d were not run (--max-n %d%s).\n\n", max_n, max_n,
               max_n_default ? ", the default on llvmpipe: the whole range takes hours on a CPU" : "");
  md << "Limits measured at start-up: this driver "
     << (g_engine->loop_cap() > 0 ? strf("ends an invocation's loops after %lld iterations", g_engine->loop_cap())
                                  : std::string("ran a probe loop of 1,000,000 iterations to its end (no loop cap)"))
     << ".\n\n";

  auto result = [&](Algorithm a, const Shape& x) { return bench::find(runs, bench_name(a, x) + "/"); };
  auto why_not = [&](Algorithm a, const Shape& x) {
    const auto it = g_refused.find(bench_name(a, x));
    return it == g_refused.end() ? std::string("not run") : "refused: " + it->second;
  };
  auto mask = [](const Shape& x) { return x.causal ? "causal" : "none"; };

  md << "### attn-naive: three kernels through S and P in GPU memory\n\n"
     << "S, P bytes: 4·H·N²·4 B (write S, read S, write P, read P), the least that three kernels with S "
        "and P in memory move. The shaders move more: attn_softmax.comp reads each row of S twice (max, "
        "then exp) and writes P twice (unnormalized, then normalized after reading it back), 5·H·N²·4 B in "
        "its pass, and attn_pv.comp reads a row of P once per output column (caches serve most of it). "
        "With the causal mask they still compute and store every cell (a masked score as −∞, its P as 0), "
        "so nothing is halved. Effective bandwidth: those bytes / the naive time; softmax pass: its "
        "2·H·N²·4 B (read S, write P) / its own time"
     << (peak.card ? strf(", and its share of the card's %.2f TB/s", peak.bandwidth * 1e-12) : std::string())
     << ".\n\n"
     << "| N | d | mask | H | time | S = QKᵀ / softmax / O = PV | S, P bytes | effective bandwidth | softmax pass "
        "bandwidth |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Shape& x : rows) {
    const bench::Result* r = result(Algorithm::attn_naive, x);
    md << strf("| %d | %d | %s | %d | ", x.N, x.d, mask(x), x.H);
    if (!r) {
      md << why_not(Algorithm::attn_naive, x) << " | | | | |\n";
      continue;
    }
    const double nn = static_cast<double>(x.N) * x.N * x.H;
    const double bytes = 4 * nn * 4, softmax_bytes = 2 * nn * 4;
    auto phase = [&](const char* name) {
      const auto it = r->counters.find(std::string("phase ") + name);
      return it == r->counters.end() ? 0.0 : it->second * 1e-3;
    };
    const double t_s = phase("S = QK^T"), t_soft = phase("P = softmax(S)"), t_pv = phase("O = PV");
    const double soft_bw = t_soft > 0 ? softmax_bytes / t_soft : 0;
    md << strf("%s | %s / %s / %s | %s | %s | %s%s |\n", time_text(r->seconds).c_str(), time_text(t_s).c_str(),
               time_text(t_soft).c_str(), time_text(t_pv).c_str(), bytes_text(bytes).c_str(),
               rate_text(bytes / r->seconds, "B/s").c_str(), rate_text(soft_bw, "B/s").c_str(),
               peak.card ? (" (" + share_text(peak, soft_bw, peak.bandwidth) + ")").c_str() : "");
  }

  md << "\n### The tiled shaders: FA-1 (attn-tiled) and FA-2 (attn-tiled-v2)\n\n"
     << "FLOP rate: 4·N²·d·H FLOPs (S = QKᵀ and O = PV, 2d each per score), half of it with the causal "
        "mask, over the time; its share of the card's fp32 peak without tensor cores"
     << (peak.card ? strf(" (%.0f TFLOP/s)", peak.flops * 1e-12) : std::string(" (peak unknown here)"))
     << ". naive / FA-2 is the ratio of the two times measured in this run";
  if (peak.card)
    md << strf("; the model's ceiling on it for this card is (4d/F + 8/BW) / (4d/F): %.3f× at d = 64 and "
               "%.3f× at d = 128, the naive path being at most the softmax pass's bytes slower when every "
               "pass runs at its roof",
               ceiling(peak, 64), ceiling(peak, 128));
  md << ".\n\n| N | d | mask | H | FA-1 | FA-1 rate | FA-2 | FA-2 rate | FA-2 share of fp32 peak | naive / FA-2 |"
     << (peak.card ? " model ceiling |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
                   : "\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Shape& x : rows) {
    const double flops = 4.0 * x.N * x.N * x.d * x.H * (x.causal ? 0.5 : 1.0);
    md << strf("| %d | %d | %s | %d | ", x.N, x.d, mask(x), x.H);
    for (Algorithm a : {Algorithm::attn_tiled, Algorithm::attn_tiled_v2}) {
      const bench::Result* r = result(a, x);
      if (r)
        md << time_text(r->seconds) << " | " << rate_text(flops / r->seconds, "FLOP/s") << " | ";
      else
        md << why_not(a, x) << " | | ";
    }
    const bench::Result* v2 = result(Algorithm::attn_tiled_v2, x);
    const bench::Result* naive = result(Algorithm::attn_naive, x);
    md << (v2 ? share_text(peak, flops / v2->seconds, peak.flops) : std::string()) << " | "
       << (v2 && naive ? strf("%.2f×", naive->seconds / v2->seconds) : std::string("—")) << " |";
    if (peak.card) md << strf(" %.3f× |", ceiling(peak, x.d));
    md << "\n";
  }
  return md.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  int max_n = 0;  // 0: the default for the renderer
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--markdown") == 0 && i + 1 < argc)
      markdown = argv[++i];
    else if (std::strcmp(argv[i], "--max-n") == 0 && i + 1 < argc)
      max_n = std::atoi(argv[++i]);
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
  read_load();
  gpu::Engine engine;
  g_engine = &engine;
  const bool max_n_default = max_n <= 0;
  if (max_n_default) max_n = context->info().renderer.find("llvmpipe") != std::string::npos ? 1024 : 16384;
  calibrate();
  const std::vector<Shape> rows = shapes(max_n);
  for (Algorithm a : kAlgorithms)
    for (const Shape& x : rows) {
      if (std::string why = refusal(a, x); !why.empty()) {
        g_refused[bench_name(a, x)] = why;
        std::cout << bench_name(a, x) << ": refused: " << why << "\n";
        continue;
      }
      benchmark::RegisterBenchmark(bench_name(a, x).c_str(), BM_gpu_attention, a, x)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  bench::CollectingReporter reporter;
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (ran == 0) {  // a --benchmark_filter that matches nothing: say so, and leave BENCHMARKS.md as it is
    std::cerr << "bench_gpu: no benchmark matches the filter; nothing was measured\n";
    return 2;
  }
  if (!markdown.empty()) {
    if (!bench::replace_section(markdown, "gpu-shaders", section(reporter.runs(), context->info(), rows, max_n, max_n_default))) {
      std::cerr << "bench_gpu: cannot write " << markdown << "\n";
      return 1;
    }
    std::cout << "bench_gpu: wrote the \"GPU shaders\" section of " << markdown << "\n";
  }
  return 0;
}
