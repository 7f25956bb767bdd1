// Collects Google Benchmark results and writes them, with the in-run ratios, as a Markdown
// section of BENCHMARKS.md (replacing only that section).
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace bench {

struct Result {
  std::string name;      // benchmark_name(), e.g. "BM_attn_naive/4096/64/real_time"
  double seconds = 0;    // real time per iteration
  std::map<std::string, double> counters;
};

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;
  const std::vector<Result>& runs() const { return runs_; }

 private:
  std::vector<Result> runs_;
};

// The first result whose name starts with `prefix` ("BM_attn_naive/4096/64/"), or nullptr.
const Result* find(const std::vector<Result>& runs, const std::string& prefix);

// Replaces the text between "<!-- BEGIN name -->" and "<!-- END name -->" in `path` (appends
// the section when absent, creates the file when missing). Returns false on a write error.
bool replace_section(const std::string& path, const std::string& name, const std::string& body);

// "AMD EPYC, 2 cores, g++ 12.2.0, 2026-11-22"
std::string machine_line();

bool write_cpu_section(const std::string& path, const std::vector<Result>& runs);
// The backward pass: each backward's time against FA-2's forward at the same shape (the FLOP
// ratio beside it) and its working memory.
bool write_backward_section(const std::string& path, const std::vector<Result>& runs);

// What ablation variant k turns off (0: nothing; the kernel as it runs).
inline const std::vector<std::string> kAblation = {
    "nothing: the kernel as `run --steps none` runs it",
    "its own blocks: the lesson's Br, Bc from M = 16384 instead",
    "exp with Eigen's packet math: std::exp score by score instead",
    "exponentials and row sum in one sweep: two sweeps instead",
    "rescaling only when the row max moved: every tile instead",
    "register-blocked micro-kernels (Q_i and P~ read in place, only K_j repacked): Eigen's GEMM instead",
    "dynamic schedule, costliest Q block first: a static snake deal instead (balanced, but waits for a delayed thread)",
    "dynamic schedule, costliest Q block first: contiguous static instead (each thread one run of neighbouring blocks)"};

// Every repeat of one kernel, run as `flashstep run --steps none --repeat R` runs it.
struct UserRun {
  std::string what;  // "sgemm" (the 2048³ reference) or an algorithm id
  int d = 0;
  bool causal = false;
  std::vector<double> ms;
  int Br = 0, Bc = 0;
  double flops = 0;  // of the whole problem (the causal mask's half is not taken off)
};

// attn-tiled-v2 at N = 4096 with one technique turned off (kAblation[variant]), every run.
struct AblationRun {
  int variant = 0;
  int d = 0;
  bool causal = false;
  std::vector<double> ms;
  int Br = 0, Bc = 0;
};

// The machine's roof measured in the same run (bench/roof.h): the kernels' share of it.
struct Roof {
  std::string isa;               // the instruction set the kernels were compiled for
  double fma_flops = 0;          // FLOP/s of multiply-add chains on every core
  double read_bytes_per_s = 0;   // every core streaming memory
};

// Writes the section "cpu-user": those runs, their spread and share of the FMA peak, the targets
// of issue 19 (ERRATA), and what each technique of attn-tiled-v2 brings.
bool write_user_section(const std::string& path, const std::vector<UserRun>& runs,
                        const std::vector<AblationRun>& ablation, const Roof& roof);

}  // namespace bench
