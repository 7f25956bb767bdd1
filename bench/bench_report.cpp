#include "bench/bench_report.h"

#include "core/fast.h"
#include "core/text.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>

namespace bench {

using flashstep::strf;

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& r : runs) {
    if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
    Result res;
    res.name = r.benchmark_name();
    res.seconds = r.real_accumulated_time / static_cast<double>(r.iterations);
    for (const auto& [k, c] : r.counters) res.counters[k] = c.value;
    runs_.push_back(std::move(res));
  }
  ConsoleReporter::ReportRuns(runs);
}

const Result* find(const std::vector<Result>& runs, const std::string& prefix) {
  for (const Result& r : runs)
    if (r.name.compare(0, prefix.size(), prefix) == 0) return &r;
  return nullptr;
}

bool replace_section(const std::string& path, const std::string& name, const std::string& body) {
  std::string text;
  {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  if (text.empty()) text = "# FlashStep benchmarks\n\nFigures measured by the programs in bench/; each section names its machine and date.\n";
  const std::string begin = "<!-- BEGIN " + name + " -->", end = "<!-- END " + name + " -->";
  const std::string block = begin + "\n" + body + end;
  const auto b = text.find(begin), e = text.find(end);
  if (b != std::string::npos && e != std::string::npos && e > b)
    text.replace(b, e + end.size() - b, block);
  else
    text += "\n" + block + "\n";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

std::string machine_line() {
  std::string model = "unknown CPU";
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  // The instruction set the kernels were compiled for, from their vector width (the build may be
  // native or not: FLASHSTEP_NATIVE, or -march given by hand as bench/run_isa_table.sh does).
  const int floats = flashstep::fast::vector_floats();
  const char* isa = floats == 16 ? "AVX-512" : floats == 8 ? "AVX2" : floats == 4 ? "SSE2" : "scalar";
  return strf("%s, %d threads, g++ %s, -O3, kernels for %s (%d-float vectors), %s", model.c_str(),
              flashstep::fast::threads(), __VERSION__, isa, floats, date);
}

namespace {

std::string ms(const Result* r) { return r ? strf("%.2f ms", r->seconds * 1e3) : "—"; }
std::string verdict(bool ok) { return ok ? "**met**" : "**not met**"; }
double counter(const Result* r, const char* k) {
  if (!r) return 0;
  auto it = r->counters.find(k);
  return it == r->counters.end() ? 0 : it->second;
}

}  // namespace

bool write_cpu_section(const std::string& path, const std::vector<Result>& runs) {
  std::ostringstream md;
  md << "## CPU kernels\n\n" << machine_line() << ". Written by `bench/run_benchmarks.sh`; every ratio "
     << "compares two figures of the same run.\n\n";
  md << "| what | measured | ratio | target | |\n|---|---|---|---|---|\n";
  for (const char* shape : {"1/67108864", "4000/4000"}) {
    const Result* copy = find(runs, strf("BM_memcpy/%s/", shape));
    const Result* safe = find(runs, strf("BM_softmax_safe/%s/", shape));
    const Result* online = find(runs, strf("BM_softmax_online/%s/", shape));
    if (!copy || !safe || !online) continue;
    const char* label = std::string(shape) == "1/67108864" ? "2^26 elements, one row" : "4000 rows × 4000";
    const double speedup = safe->seconds / online->seconds;
    md << strf("| online vs safe softmax, %s | safe %s, online %s | %.2f× | ≥ 1.25× | %s |\n", label,
               ms(safe).c_str(), ms(online).c_str(), speedup, verdict(speedup >= 1.25).c_str());
    if (const Result* traffic = find(runs, strf("BM_online_traffic/%s/", shape))) {
      const double share = traffic->seconds / online->seconds;
      md << strf("| online softmax vs its own traffic at memory speed (a max pass, then a read and a streaming "
                 "write: online's passes without their arithmetic), %s | online %s, traffic alone %s | online at "
                 "%.0f%% of memory speed | — | %s |\n",
                 label, ms(online).c_str(), ms(traffic).c_str(), 100 * share,
                 share >= 0.9 ? "at memory speed" : strf("%.0f%% slower than memory", 100 * (1 / share - 1)).c_str());
    }
    const double copy_bw = counter(copy, "bytes") / copy->seconds;
    for (const Result* k : {safe, online}) {
      const double bw = counter(k, "bytes") / k->seconds;
      md << strf("| %s bandwidth (IO-model bytes / time), %s | %.1f GB/s vs memcpy %.1f GB/s | %.0f%% | ≥ 80%% | %s |\n",
                 k == safe ? "safe" : "online", label, bw / 1e9, copy_bw / 1e9, 100 * bw / copy_bw,
                 verdict(bw >= 0.8 * copy_bw).c_str());
    }
  }
  const Result* exp_rate = find(runs, "BM_exp_in_cache/");
  const Result* read_rate = find(runs, "BM_read_stream/");
  if (exp_rate && read_rate) {
    const double e = counter(exp_rate, "elements") / exp_rate->seconds / 1e9;
    const double r = counter(read_rate, "elements") / read_rate->seconds / 1e9;
    md << strf("| what limits a softmax pass, 2^26 elements, all cores: reading from memory (a max pass) vs exp() "
               "on data already in L1 | read %.1f G elements/s, exp() %.1f G elements/s | exp() costs %.0f%% of a read | — | "
               "%s |\n",
               r, e, 100 * r / e,
               r > e ? "exp() is the slower: a pass that computes it is compute-bound"
                     : "memory is the slower, but exp() is close behind");
  }
  const Result* naive = find(runs, "BM_attn_naive/4096/64/");
  const Result* v2 = find(runs, "BM_attn_tiled_v2/4096/64/");
  const Result* v1 = find(runs, "BM_attn_tiled/4096/64/");
  const Result* gemm = find(runs, "BM_sgemm/2048/");
  if (naive && v2) {
    const double r = naive->seconds / v2->seconds;
    md << strf("| attn-tiled-v2 vs attn-naive (Eigen SGEMMs, S and P materialized), N = 4096, d = 64 | naive %s, "
               "tiled-v2 %s, tiled (FA-1 order) %s | %.2f× | ≥ 2× | %s |\n",
               ms(naive).c_str(), ms(v2).c_str(), ms(v1).c_str(), r, verdict(r >= 2).c_str());
  }
  if (v2 && gemm) {
    const double rate = counter(v2, "flops") / v2->seconds, gemm_rate = counter(gemm, "flops") / gemm->seconds;
    md << strf("| attn-tiled-v2 FLOP rate (4·N²·d / time) vs Eigen SGEMM 2048³ | %.1f vs %.1f GFLOP/s | %.0f%% | ≥ 50%% | %s |\n",
               rate / 1e9, gemm_rate / 1e9, 100 * rate / gemm_rate, verdict(rate >= 0.5 * gemm_rate).c_str());
  }
  const Result* naive8k = find(runs, "BM_attn_naive/8192/64/");
  const Result* v2_8k = find(runs, "BM_attn_tiled_v2/8192/64/");
  if (naive8k && v2_8k) {
    const double mib = 1024.0 * 1024.0;
    const double t = counter(v2_8k, "workspace_bytes") / mib, n = counter(naive8k, "workspace_bytes") / mib;
    // S and P are exactly 2·N²·4 B = 512 MiB, counted where they are allocated (core/workspace.h).
    md << strf("| working memory beyond Q, K, V, O (workspace), N = 8192, d = 64 | tiled-v2 %.2f MiB, naive %.1f MiB | — | "
               "tiled ≤ 16 MiB, naive ≥ 512 MiB (S and P) | %s |\n",
               t, n, verdict(t <= 16 && n >= 512).c_str());
  }
  const Result* rec_all = find(runs, "BM_record/steps:1/");
  const Result* rec_none = find(runs, "BM_record/steps:0/");
  if (rec_all && rec_none) {
    const double r = rec_all->seconds / rec_none->seconds;
    const double mib = counter(rec_all, "recording_bytes") / (1024.0 * 1024.0);
    md << strf("| recording overhead, attn-tiled N = 256, d = 64, Br = Bc = 32: `--steps all` vs `none` | %s vs %s, "
               "recording %.1f MiB | %.1f× | ≤ 20×, ≤ 64 MiB | %s |\n",
               ms(rec_all).c_str(), ms(rec_none).c_str(), mib, r, verdict(r <= 20 && mib <= 64).c_str());
  }
  md << "\nWhat limits online softmax. The model counts 4 memory accesses per element for safe softmax and 3 "
        "for online, so online should be 4/3 as fast where every pass re-reads x from memory and nothing else "
        "costs. Online's two passes each compute an exp() per element (the block sums, then the outputs), and on "
        "this machine an exp() pass runs at nearly the speed of a memory pass (the row above): the row \"online "
        "softmax vs its own traffic\" measures how far that arithmetic keeps it from the speed of the same reads "
        "and writes with none of it. With 4000-element rows (16 KiB) a row stays in L1 between the passes, "
        "so memory is read once by both kernels and the exponentials are all that is left: neither kernel is "
        "memory-bound there, and the 4/3 needs rows larger than the cache.\n";
  md << "\n### Naive vs tiled attention against N (fp32, all cores)\n\n"
     << "| N | d | naive time | tiled-v2 time | naive working memory | tiled-v2 working memory |\n|---|---|---|---|---|---|\n";
  for (int d : {64, 128})
    for (int N = 512; N <= 16384; N *= 2) {
      const Result* a = find(runs, strf("BM_attn_naive/%d/%d/", N, d));
      const Result* b = find(runs, strf("BM_attn_tiled_v2/%d/%d/", N, d));
      if (!a && !b) continue;
      md << strf("| %d | %d | %s | %s | %.1f MiB | %.2f MiB |\n", N, d, ms(a).c_str(), ms(b).c_str(),
                 counter(a, "workspace_bytes") / 1048576.0, counter(b, "workspace_bytes") / 1048576.0);
    }
  return replace_section(path, "cpu", md.str());
}

bool write_backward_section(const std::string& path, const std::vector<Result>& runs) {
  std::ostringstream md;
  md << "## Backward pass\n\n" << machine_line() << ". Written by `bench/run_benchmarks.sh`; fp32, all cores, "
     << "no mask, s = 1/√d, every figure of the same run. The forward is FlashAttention-2's (`BM_attn_tiled_v2`, "
     << "4·N²·d FLOPs); the standard backward does four matmuls (8·N²·d) with P, dP and dS in memory, the flash "
     << "backward five (10·N²·d: S recomputed) from O and L alone, so it should take about 2.5 times the "
     << "forward.\n\n";
  md << "| N | d | forward (FA-2) | standard backward | flash backward | flash / forward (FLOPs: 2.5×) | "
        "standard working memory | flash working memory |\n|---|---|---|---|---|---|---|---|\n";
  bool any = false;
  for (auto [N, d] : {std::pair{1024, 64}, {4096, 64}, {8192, 64}, {4096, 128}}) {
    const Result* fwd = find(runs, strf("BM_attn_tiled_v2/%d/%d/", N, d));
    const Result* std_b = find(runs, strf("BM_attn_backward/%d/%d/", N, d));
    const Result* flash = find(runs, strf("BM_attn_flash_backward/%d/%d/", N, d));
    if (!std_b && !flash) continue;
    any = true;
    const std::string ratio = fwd && flash ? strf("%.2f×", flash->seconds / fwd->seconds) : "—";
    md << strf("| %d | %d | %s | %s | %s | %s | %.1f MiB | %.2f MiB |\n", N, d, ms(fwd).c_str(), ms(std_b).c_str(),
               ms(flash).c_str(), ratio.c_str(), counter(std_b, "workspace_bytes") / 1048576.0,
               counter(flash, "workspace_bytes") / 1048576.0);
  }
  if (!any) return true;
  md << "\nWorking memory is what the kernel holds beyond its inputs and gradients (core/workspace.h): for the "
        "standard backward P (saved by the forward for it), dP and dS, 3·N²·4 bytes (768 MiB at N = 8192); for "
        "the flash backward each thread's tiles and its own dQ (N·d floats), summed into dQ at the end.\n";
  return replace_section(path, "backward", md.str());
}

namespace {

struct Spread {
  double best = 0, median = 0, worst = 0;
};
Spread spread_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return {};
  return {ms.front(), ms[ms.size() / 2], ms.back()};
}

const UserRun* find_user(const std::vector<UserRun>& runs, const std::string& what, int d, bool causal) {
  for (const UserRun& u : runs)
    if (u.what == what && u.d == d && u.causal == causal) return &u;
  return nullptr;
}

// ggml's CPU flash attention (llama.cpp's), F32 K/V, one head, N = 4096, 2 threads, measured beside
// FlashStep on other machines of this kind; quoted, not measured by this program.
std::string ggml_figure(const std::string& what, int d, bool causal) {
  if (what != "attn-tiled-v2" || causal) return "";
  if (d == 64) return "46–54 ms (issue 19, 2026-11-22); 40.5–46.1 ms (2026-11-23)";
  if (d == 128) return "77–85 ms (2026-11-23)";
  return "";
}

// What each technique brings: the kernel with one turned off against the kernel as it runs,
// interleaved in rounds.
void write_ablation(std::ostringstream& md, const std::vector<AblationRun>& runs) {
  auto find_run = [&](int v, int d, bool causal) -> const AblationRun* {
    for (const AblationRun& a : runs)
      if (a.variant == v && a.d == d && a.causal == causal && !a.ms.empty()) return &a;
    return nullptr;
  };
  if (!find_run(0, 64, false)) return;
  md << strf("\n### What each technique of attn-tiled-v2 brings\n\n"
             "N = 4096, fp32, all threads, one technique turned off at a time (fast::TiledOptions), against the kernel "
             "as it runs. The variants take turns, %zu runs each in every round, so that a drift of the machine's speed "
             "slows all alike. Median time, its ratio to the kernel's (above 1×: what the technique saves) and the "
             "spread of its runs (the slowest over the fastest, across all rounds: the machine's drift is in it).\n\n",
             runs.front().ms.size());
  md << "| turned off | mask | d = 64 | ratio | spread | d = 128 | ratio | spread |\n|---|---|---|---|---|---|---|---|\n";
  for (bool causal : {false, true})
    for (std::size_t v = 0; v < kAblation.size(); ++v) {
      std::string cells;
      bool any = false;
      for (int d : {64, 128}) {
        const AblationRun* r = find_run(static_cast<int>(v), d, causal);
        const AblationRun* base = find_run(0, d, causal);
        any |= r != nullptr;
        if (!r || !base) {
          cells += " — | — | — |";
          continue;
        }
        const Spread a = spread_of(r->ms), b = spread_of(base->ms);
        const std::string blocks = v <= 1 ? strf(" (%d × %d)", r->Br, r->Bc) : "";
        cells += strf(" %.2f ms%s | %.2f× | %.0f%% |", a.median, blocks.c_str(), a.median / b.median,
                      100 * (a.worst / a.best - 1));
      }
      if (any) md << "| " << kAblation[v] << " | " << (causal ? "causal" : "none") << " |" << cells << "\n";
    }
}

}  // namespace

bool write_user_section(const std::string& path, const std::vector<UserRun>& runs,
                        const std::vector<AblationRun>& ablation, const Roof& roof) {
  std::ostringstream md;
  md << "## CPU attention: the command a user runs\n\n" << machine_line()
     << ". Written by `bench/run_benchmarks.sh`: `flashstep run --algo A --n 4096 --d D --scale sqrt --steps none "
        "--output none --repeat 10`, through the function behind it (run_timed: the same inputs from seed 1, the "
        "same blocks, threads and timing, the cores woken first), beside an Eigen SGEMM 2048³ timed the same way "
        "in the same run. The tiled kernels take their own blocks (`blocks.chosen_by = \"kernel\"` in the JSON); "
        "spread is the worst repeat over the best. A causal run's rate counts only the unmasked scores "
        "(2·N·(N+1)·d FLOPs).\n\n";
  md << strf("The roof, measured in the same run (bench/roof.h): kernels compiled for %s; independent multiply-add "
             "chains in vector registers on every core reach %.1f GFLOP/s (the FMA peak), and every core reading "
             "memory %.1f GB/s.\n\n",
             roof.isa.c_str(), roof.fma_flops / 1e9, roof.read_bytes_per_s / 1e9);
  md << "| kernel | d | blocks | best | median | worst | spread | rate | share of the FMA peak | share of the SGEMM "
        "rate | ggml flash_attn_ext (reference, measured separately) |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  const double N = 4096;
  for (int d : {64, 128}) {
    const UserRun* gemm = find_user(runs, "sgemm", d, false);
    const double gemm_rate = gemm ? gemm->flops / spread_of(gemm->ms).best * 1e3 : 0;
    for (const UserRun& u : runs) {
      if (u.d != d) continue;
      const Spread sp = spread_of(u.ms);
      const double flops = u.what == "sgemm" ? u.flops : (u.causal ? 2.0 * N * (N + 1) * d : u.flops);
      const double rate = flops / sp.best * 1e3;
      const std::string name = u.what == "sgemm" ? "Eigen SGEMM 2048³ (reference)" : u.what + (u.causal ? " causal" : "");
      md << strf("| %s | %d | %s | %.2f ms | %.2f ms | %.2f ms | %.1f%% | %.1f GFLOP/s | %.0f%% | %s | %s |\n",
                 name.c_str(), d, u.Br > 0 ? strf("%d × %d", u.Br, u.Bc).c_str() : "—", sp.best, sp.median, sp.worst,
                 100 * (sp.worst / sp.best - 1), rate / 1e9, 100 * rate / roof.fma_flops,
                 u.what == "sgemm" ? "—" : strf("%.0f%%", 100 * rate / gemm_rate).c_str(),
                 ggml_figure(u.what, d, u.causal).c_str());
    }
  }
  md << "\n| target (ERRATA §19: relative, measured in one run) | measured | |\n|---|---|---|\n";
  for (int d : {64, 128}) {
    const UserRun *gemm = find_user(runs, "sgemm", d, false), *v2 = find_user(runs, "attn-tiled-v2", d, false),
                  *v1 = find_user(runs, "attn-tiled", d, false), *v2c = find_user(runs, "attn-tiled-v2", d, true);
    if (!gemm || !v2 || !v1 || !v2c) continue;
    const Spread g = spread_of(gemm->ms), a = spread_of(v2->ms), b = spread_of(v1->ms), c = spread_of(v2c->ms);
    const double share = (v2->flops / a.best) / (gemm->flops / g.best);
    md << strf("| d = %d: attn-tiled-v2's rate ≥ 85%% of the SGEMM's | %.0f%% | %s |\n", d, 100 * share,
               verdict(share >= 0.85).c_str());
    md << strf("| d = %d: attn-tiled-v2's spread over %zu repeats ≤ 10%% | %.1f%% (best %.2f ms, worst %.2f ms; the SGEMM "
               "of the same run: %.1f%%) | %s |\n",
               d, v2->ms.size(), 100 * (a.worst / a.best - 1), a.best, a.worst, 100 * (g.worst / g.best - 1),
               verdict(a.worst <= 1.1 * a.best).c_str());
    md << strf("| d = %d: FA-2 at least as fast as FA-1 (best FA-1 / best FA-2) | %.2f× | %s |\n", d, b.best / a.best,
               verdict(b.best >= a.best).c_str());
    md << strf("| d = %d: causal attn-tiled-v2 ≥ 1.8× faster than without the mask | %.2f× (%.2f ms vs %.2f ms) | %s |\n",
               d, a.best / c.best, c.best, a.best, verdict(a.best >= 1.8 * c.best).c_str());
  }
  write_ablation(md, ablation);
  return replace_section(path, "cpu-user", md.str());
}

}  // namespace bench
