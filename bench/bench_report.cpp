#include "bench/bench_report.h"

#include "core/fast.h"
#include "core/text.h"

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
  return strf("%s, %d threads, g++ %s, -O3 -march=native, %s", model.c_str(), flashstep::fast::threads(),
              __VERSION__, date);
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
  md << "\nWhy online softmax gains less than the 4/3 of the theory here. The model counts 4 memory "
        "accesses per element for safe softmax and 3 for online, which holds when every pass re-reads x "
        "from memory and nothing else costs. On this machine a pass that computes exp() runs at nearly "
        "the speed of one that only reads (the row above), so the pass online saves is the cheap max "
        "pass, and its own first pass pays the block max and the exponentials back to back. With "
        "4000-element rows (16 KiB) a row stays in L1 between safe softmax's three passes, so both read "
        "memory once and the two are equally fast: the 4/3 needs rows larger than the cache.\n";
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

}  // namespace bench
