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

}  // namespace bench
