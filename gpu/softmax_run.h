// Inside the GPU engine: what the softmax recorders (softmax_gpu.cpp, chunked_gpu.cpp) share:
// the input on the GPU, the row statistics, the traces and how to read them. What each step
// says, counts and writes is core's SoftmaxNarration, the same as the CPU engine's; the
// numbers come from the GPU.
#pragma once

#include "core/narration_softmax.h"
#include "core/text.h"
#include "gpu/kernels.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace flashstep::gpu {

// The elements of a row one dispatch of softmax_rows.comp walks: a long row takes several,
// which keeps each invocation far below llvmpipe's loop cap (common.glsl).
inline constexpr int kRowSegment = 16384;

inline constexpr int kTraceStride = 5;  // z, e, m, l, rescale factor (chunked: e of the normalize pass)

// One element's entry in a softmax trace.
struct TraceEntry {
  double z, e, m, l, f;  // f: the rescale factor (chunked: e of the normalize pass)
};

// What every softmax recorder shares: the input on the GPU, the row statistics (m, l, LSE per
// row), the progress counters, and reading the traces back.
struct SoftmaxGpuRun {
  Kernels& k;
  const Resolved& r;
  Recorder& rec;
  const std::size_t cells;
  Buffer X, stats, Y, done;
  int row_passes = 0;  // sequential passes run so far: done[row] must be row_passes * n

  SoftmaxGpuRun(Kernels& k_, const Resolved& r_, Recorder& rec_)
      : k(k_), r(r_), rec(rec_),
        cells(static_cast<std::size_t>(r_.rows) * static_cast<std::size_t>(r_.n)),
        X(k_.buffer("the input x", to_floats(r_.x))),
        stats(k_.buffer("the row statistics", static_cast<std::size_t>(r_.rows) * 16)),
        Y(k_.buffer("the output y", cells * 4)),
        done(k_.buffer("the progress counters", static_cast<std::size_t>(r_.rows) * 4)) {}

  // A trace of `per_cell` floats per element, allocated only when steps are kept.
  Buffer trace_buffer(int per_cell) const {
    return k.buffer("the step trace", rec.on() ? cells * per_cell * 4 : 0, nullptr, kTraceHint);
  }
  const Program& program(const char* shader, int mode, bool with_lse = false) {
    Defines d = common_defines(r, rec.on());
    d.push_back({"MODE", std::to_string(mode)});
    if (with_lse) d.push_back({"WITH_LSE", "1"});
    return k.program(shader, d);
  }
  void set_uniforms(const Program& p) const {
    p.use();
    p.set("rows", r.rows);
    p.set("n", r.n);
    p.set("s", scale_of(r));
  }
  // One invocation per row walks it in order, kSegment elements per dispatch.
  void run_rows(const Program& p, const Buffer& trace) {
    set_uniforms(p);
    X.bind(0);
    stats.bind(1);
    trace.bind(2);
    done.bind(3);
    for (int first = 0; first < r.n; first += kRowSegment) {
      p.set("first", first);
      p.set("last", std::min(r.n, first + kRowSegment));
      dispatch(groups_for(r.rows, 64));
    }
    ++row_passes;
  }
  // Every row went through every element in every sequential pass.
  void check_done(int per_row, const char* hint) const {
    const auto d = done.read<int>(static_cast<std::size_t>(r.rows));
    for (int row = 0; row < r.rows; ++row)
      if (d[row] != per_row)
        stopped_early(k, std::string(algorithm_id(r.scenario.algorithm)) + " (row " +
                          std::to_string(row + 1) + ")",
                      hint);
  }
  void check_done() const { check_done(row_passes * r.n, "use a shorter row"); }
  // One invocation per element.
  void run_normalize(const Program& p, const Buffer& trace) const {
    set_uniforms(p);
    X.bind(0);
    stats.bind(1);
    Y.bind(2);
    trace.bind(3);
    dispatch(groups_for(static_cast<long long>(cells), 256));
  }
  std::vector<float> read(const Buffer& trace, int per_cell) const {
    return rec.on() ? trace.read<float>(cells * per_cell) : std::vector<float>{};
  }

  std::size_t at(int row, int i, int per_cell) const {
    return (static_cast<std::size_t>(row) * r.n + i) * per_cell;
  }
  // Element i of `row` in a trace of kTraceStride floats per element; zeros when the trace was
  // not kept (no steps are recorded, so the narration only counts IO).
  TraceEntry entry(const std::vector<float>& t, int row, int i) const {
    if (t.empty()) return {0, 0, 0, 0, 0};
    const float* e = &t[at(row, i, kTraceStride)];
    return {e[0], e[1], e[2], e[3], e[4]};
  }
  // Element i of `row` in a trace of one float per element (0 when not kept).
  double value(const std::vector<float>& t, int row, int i) const { return t.empty() ? 0.0 : t[at(row, i, 1)]; }

  // The last pass of naive, safe and online from what softmax_normalize.comp left: y, and e_i
  // in `e_norm`; z_i comes from the trace of the row's first pass.
  void normalize_steps(SoftmaxNarration& say, int row, double m, double l, const std::vector<float>& y,
                       const std::vector<float>& e_norm, const std::vector<float>& z_trace) const {
    for (int i = 0; i < r.n; ++i)
      say.normalize(row, i, entry(z_trace, row, i).z, m, l, value(e_norm, row, i), y[at(row, i, 1)]);
  }
};

}  // namespace flashstep::gpu
