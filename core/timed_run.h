// A summary run timed for `flashstep run --steps none` and the "measure it yourself" lesson:
// the fast fp32 kernel where there is one, the recording engine (summary only) otherwise.
#pragma once

#include "core/recording.h"
#include "core/scenario.h"

#include <cstdint>
#include <string>

namespace flashstep {

struct TimedRun {
  Recording rec;                // summary only: output (unless !keep_output), m, l, lse, io
  double time_ms = 0;           // best kernel time of the repeats, inputs excluded
  std::int64_t peak_bytes = 0;  // the most working memory the kernel held (core/workspace.h)
  std::string kernel;           // "fast" or "reference"
};

// True where a fast kernel computes this scenario (fp32: safe, online, chunked, attn-naive,
// attn-tiled, attn-tiled-v2).
bool has_fast_kernel(const Resolved& r);

TimedRun run_timed(const Resolved& r, int repeat, bool keep_output);

// H heads of r (core/heads.h), each run as run_timed runs one, one after another: time_ms is
// the sum of the heads' best times, peak_bytes the largest, the recording the heads stacked.
// Throws InputError for what check_heads() and check_s_and_p_fit() refuse.
TimedRun run_timed_heads(const Resolved& r, int heads, int repeat, bool keep_output);

}  // namespace flashstep
