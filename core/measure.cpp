#include "core/measure.h"

#include "core/algorithms.h"
#include "core/engine.h"
#include "core/fast.h"
#include "core/text.h"
#include "core/timed_run.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

namespace flashstep {

std::int64_t extra_bytes_needed(Algorithm a, std::int64_t n) {
  return static_cast<std::int64_t>(info(a).square.size()) * n * n * static_cast<std::int64_t>(sizeof(float));
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

namespace {

// No block sizes given: on the CPU the fast kernel takes its own (fast::kernel_blocks), as
// `run --steps none` does; the GPU shaders take the tiles the default SRAM size M gives, as the
// lessons do, since K_j and V_j must fit in shared memory.
Scenario scenario_of(Algorithm a, std::int64_t n, int d) {
  Scenario s;
  s.algorithm = a;
  s.n = static_cast<int>(n);
  s.d = d;
  s.scale_mode = ScaleMode::inv_sqrt_d;
  return s;
}

}  // namespace

bool measure(const MeasurePlan& plan, const std::atomic<bool>* cancel, const MeasureCallback& on_point) {
  const std::int64_t budget = plan.memory_budget > 0 ? plan.memory_budget : default_memory_budget();
  struct Job {
    Algorithm a;
    std::int64_t n;
    bool gpu;
  };
  std::vector<Job> jobs;
  for (std::int64_t N : plan.attention_n)
    for (Algorithm a : {kAttentionRace.slow, kAttentionRace.fast}) jobs.push_back({a, N, false});
  for (std::int64_t n : plan.softmax_n)
    for (Algorithm a : {kSoftmaxRace.slow, kSoftmaxRace.fast}) jobs.push_back({a, n, false});
  // The GPU race after the whole CPU race, never between its points: on a software renderer the
  // shaders run on the same cores, and what they leave running would skew the CPU's times.
  if (plan.gpu_time_ms)
    for (std::int64_t N : plan.attention_n)
      for (Algorithm a : {kAttentionRace.slow, kAttentionRace.fast}) jobs.push_back({a, N, true});

  // The cores are woken once; the points then follow one another with no idle time between.
  fast::warm_up(fast::kWarmUpSeconds);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (cancel && cancel->load()) return false;
    const Job& job = jobs[k];
    MeasurePoint p;
    p.algorithm = job.a;
    p.n = job.n;
    p.d = takes_qkv(job.a) ? plan.d : 0;
    p.gpu = job.gpu;
    const std::int64_t need = extra_bytes_needed(job.a, job.n);
    if (job.gpu) {
      // The best of the repeats, as on the CPU; the first run also compiles the shaders.
      try {
        const Resolved r = resolve(scenario_of(job.a, job.n, plan.d));
        double best = 0;
        for (int k = 0; k < std::max(plan.repeat, 1); ++k) {
          const double ms = plan.gpu_time_ms(r, cancel);
          if (k == 0 || ms < best) best = ms;
        }
        p.time_ms = best;
      } catch (const Cancelled&) {
        return false;
      } catch (const std::exception& e) {
        p.skipped = true;
        p.note = e.what();
      }
    } else if (need > budget) {
      p.skipped = true;
      p.note = strf("would need %.1f GiB for %s; the budget is %.1f GiB", need / 1073741824.0,
                    square_names(job.a).c_str(), budget / 1073741824.0);
    } else {
      const TimedRun run = run_timed(resolve(scenario_of(job.a, job.n, plan.d)), plan.repeat, /*keep_output=*/false,
                                     /*warm=*/false);
      p.time_ms = run.time_ms;
      p.peak_bytes = run.peak_bytes;
    }
    on_point(p, static_cast<float>(k + 1) / static_cast<float>(jobs.size()));
  }
  return true;
}

}  // namespace flashstep
