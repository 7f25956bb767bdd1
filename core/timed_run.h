// A summary run timed for `flashstep run --steps none` and the "measure it yourself" lesson:
// the fast fp32 kernel where there is one, the recording engine (summary only) otherwise.
#pragma once

#include "core/recording.h"
#include "core/scenario.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flashstep {

struct TimedRun {
  Recording rec;                // summary only: output (unless !keep_output), m, l, lse, io
  double time_ms = 0;           // best kernel time of the repeats, inputs excluded
  std::vector<double> times_ms; // every repeat's time, in order (with heads: the heads' sum)
  std::int64_t peak_bytes = 0;  // the most working memory the kernel held (core/workspace.h)
  std::string kernel;           // "fast" or "reference"
  bool kernel_blocks = false;   // the tiled kernel ran with its own blocks (fast::kernel_blocks)
};

// What a row's fast kernel (AlgorithmInfo::fast) fills: it prepares its fp32 inputs once, outside
// the timing, then hands `time` the body to time, which writes out, m, l (and lse).
struct FastRun {
  MatRM<float> out;
  std::vector<float> m, l, lse;
  // Results beside out, m, l and lse (the backward's gradients and D), named and grouped as the
  // recording engine declares them (core/recording.h).
  Results extra;
  std::function<void(const std::function<void()>&)> time;
};
// The rows' fast kernels (core/fast.h).
void fast_safe(const Resolved& r, FastRun& run);
void fast_online(const Resolved& r, FastRun& run);
void fast_chunked(const Resolved& r, FastRun& run);
void fast_attn_naive(const Resolved& r, FastRun& run);
void fast_attn_tiled(const Resolved& r, FastRun& run);
void fast_attn_tiled_v2(const Resolved& r, FastRun& run);
void fast_attn_backward(const Resolved& r, FastRun& run);        // core/fast_backward.h
void fast_attn_flash_backward(const Resolved& r, FastRun& run);

// True where a fast kernel computes this scenario: fp32, and a row with a `fast` kernel.
bool has_fast_kernel(const Resolved& r);

// Whether a timed run of r takes the fast tiled kernel's own blocks (fast::kernel_blocks): fp32
// tiled attention with none of Br, Bc and M given. The lesson's blocks come from M, sized for a
// GPU's shared memory; the CPU kernel is faster with larger ones.
bool takes_kernel_blocks(const Resolved& r);
// The notice that says so, naming the lesson's blocks it stands in for.
std::string kernel_blocks_notice(const Resolved& r);
// r with those blocks, and that notice in place of the one that derived r's from M.
Resolved with_kernel_blocks(const Resolved& r);

// With more than one repeat, the cores are woken (fast::warm_up) after the inputs are prepared,
// just before the first repeat, unless `warm` is false (the caller woke them), and a fast kernel
// runs once untimed before its repeats.
TimedRun run_timed(const Resolved& r, int repeat, bool keep_output, bool warm = true);

// H heads of r (core/heads.h), each run as run_timed runs one, one after another: time_ms is
// the sum of the heads' best times, peak_bytes the largest, the recording the heads stacked.
// Throws InputError for what check_heads() and check_s_and_p_fit() refuse.
TimedRun run_timed_heads(const Resolved& r, int heads, int repeat, bool keep_output);

}  // namespace flashstep
