// "Measure it yourself": times naive vs tiled attention and safe vs online softmax for growing
// sizes on this machine, with the fast kernels, so a student sees the lessons' claims hold; and,
// where a GPU backend is given, the same attention race on the GPU's shaders.
// Runs on any thread; the app runs it off the UI thread and plots the points as they come.
#pragma once

#include "core/scenario.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flashstep {

struct MeasurePoint {
  Algorithm algorithm;
  std::int64_t n = 0;           // softmax length or attention N
  int d = 0;                    // attention head dimension (0 for softmax)
  double time_ms = 0;           // best of the repeats
  std::int64_t peak_bytes = 0;  // working memory beyond inputs and output (core/workspace.h)
  bool skipped = false;         // not run: it would not fit in memory, or the GPU refused it
  std::string note;             // "would need 4.0 GiB for S and P" when skipped
  bool gpu = false;             // timed on the GPU backend (peak_bytes is then not counted: 0)
};

// The two races the lab runs: the algorithm a lesson improves on against the improvement.
struct MeasureRace {
  Algorithm slow, fast;
  const char* slow_label;
  const char* fast_label;
};
inline constexpr MeasureRace kAttentionRace{Algorithm::attn_naive, Algorithm::attn_tiled_v2,
                                            "naive (S, P in memory)", "tiled (FlashAttention-2)"};
inline constexpr MeasureRace kSoftmaxRace{Algorithm::safe, Algorithm::online, "safe (3 passes)",
                                          "online (2 passes)"};

struct MeasurePlan {
  std::vector<std::int64_t> attention_n = {512, 1024, 2048, 4096, 8192};
  int d = 64;
  std::vector<std::int64_t> softmax_n = {1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24};
  int repeat = 3;
  std::int64_t memory_budget = 0;  // bytes a run may use; 0 = half of the available memory
  // The attention race on a GPU: the milliseconds of the shaders' dispatches for one summary run
  // (no steps kept) of r, or a throw whose message says why the GPU cannot run it (the point is
  // then skipped with that message). Empty: CPU points only.
  std::function<double(const Resolved& r, const std::atomic<bool>* cancel)> gpu_time_ms;
};

// Bytes a run of `a` at size n needs beyond its inputs and output (the IO model's extra
// memory: S and P for attn-naive, nothing that grows with n for the others).
std::int64_t extra_bytes_needed(Algorithm a, std::int64_t n);
// Half of MemAvailable from /proc/meminfo (1 GiB where it cannot be read).
std::int64_t default_memory_budget();

using MeasureCallback = std::function<void(const MeasurePoint& point, float progress)>;

// Runs the plan in order (attention sizes and softmax sizes on the CPU, then the attention
// sizes on the GPU, so the two races never share the CPU), calling `on_point` after each point. Returns false when *cancel was set before the end.
bool measure(const MeasurePlan& plan, const std::atomic<bool>* cancel, const MeasureCallback& on_point);

}  // namespace flashstep
