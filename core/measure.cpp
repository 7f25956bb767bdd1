#include "core/measure.h"

#include "core/text.h"
#include "core/timed_run.h"

#include <cstdio>
#include <cstring>

namespace flashstep {

std::int64_t extra_bytes_needed(Algorithm a, std::int64_t n) {
  if (a == Algorithm::attn_naive) return 2 * n * n * static_cast<std::int64_t>(sizeof(float));
  return 0;
}

std::int64_t default_memory_budget() {
  std::int64_t kib = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "MemAvailable:", 13) == 0) kib = std::strtoll(line + 13, nullptr, 10);
    std::fclose(f);
  }
  return kib > 0 ? kib * 1024 / 2 : std::int64_t{1} << 30;
}

bool measure(const MeasurePlan& plan, const std::atomic<bool>* cancel, const MeasureCallback& on_point) {
  const std::int64_t budget = plan.memory_budget > 0 ? plan.memory_budget : default_memory_budget();
  struct Job {
    Algorithm a;
    std::int64_t n;
  };
  std::vector<Job> jobs;
  for (std::int64_t N : plan.attention_n)
    for (Algorithm a : {kAttentionRace.slow, kAttentionRace.fast}) jobs.push_back({a, N});
  for (std::int64_t n : plan.softmax_n)
    for (Algorithm a : {kSoftmaxRace.slow, kSoftmaxRace.fast}) jobs.push_back({a, n});

  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (cancel && cancel->load()) return false;
    const Job& job = jobs[k];
    MeasurePoint p;
    p.algorithm = job.a;
    p.n = job.n;
    p.d = is_attention(job.a) ? plan.d : 0;
    const std::int64_t need = extra_bytes_needed(job.a, job.n);
    if (need > budget) {
      p.skipped = true;
      p.note = strf("would need %.1f GiB for S and P; the budget is %.1f GiB", need / 1073741824.0,
                    budget / 1073741824.0);
    } else {
      Scenario s;
      s.algorithm = job.a;
      s.n = static_cast<int>(job.n);
      s.d = plan.d;
      s.scale_mode = ScaleMode::inv_sqrt_d;
      s.block_rows = s.block_cols = 128;
      const TimedRun run = run_timed(resolve(s), plan.repeat, /*keep_output=*/false);
      p.time_ms = run.time_ms;
      p.peak_bytes = run.peak_bytes;
    }
    on_point(p, static_cast<float>(k + 1) / static_cast<float>(jobs.size()));
  }
  return true;
}

}  // namespace flashstep
