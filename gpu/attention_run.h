// Inside the GPU engine: what the attention recorders (attention_gpu.cpp, tiled_gpu.cpp) share:
// Q, K, V and O on the GPU, the traces and how to read them. What each step says, counts and
// writes is core's attention narration (core/narration_attention.h), the same as the CPU
// engine's; the numbers come from the GPU.
//
// Shapes: Q, K, V, O are (N, d) row-major, on the GPU as float arrays; traces of S and P are
// (N, N); per-tile traces of O are (Tc, N, d) and of m, l (Tc, N, 4).
#pragma once

#include "core/narration_attention.h"
#include "core/text.h"
#include "gpu/kernels.h"

#include <string>

namespace flashstep::gpu {

struct AttnGpuRun {
  Kernels& k;
  const Resolved& r;
  Recorder& rec;
  const int N, d;
  Buffer Q, K, V, O;

  AttnGpuRun(Kernels& k_, const Resolved& r_, Recorder& rec_)
      : k(k_), r(r_), rec(rec_), N(r_.n), d(r_.d), Q(k_.buffer("Q", to_floats(r_.q))),
        K(k_.buffer("K", to_floats(r_.k))), V(k_.buffer("V", to_floats(r_.v))),
        O(k_.buffer("O", cells(N, d) * 4)) {}

  static std::size_t cells(long long rows, long long cols) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }
  Defines defines(bool trace) const {
    Defines out = common_defines(r, trace);
    out.push_back({"D", std::to_string(d)});
    return out;
  }
  // A trace buffer, allocated only when steps are kept.
  Buffer trace_buffer(const char* what, std::size_t floats) const {
    return k.buffer(what, rec.on() ? floats * 4 : 0, nullptr, kTraceHint);
  }
  std::vector<float> read(const Buffer& b, std::size_t floats) const {
    return rec.on() ? b.read<float>(floats) : std::vector<float>{};
  }
  // rows × cols of `v` from v[offset], rows `stride` apart; empty when v was not kept (no steps
  // are recorded, so the narration only counts IO).
  static BlockView view(const std::vector<float>& v, std::size_t offset, int rows, int cols,
                        std::size_t stride) {
    if (v.empty()) return {};
    return {v.data() + offset, rows, cols, static_cast<std::ptrdiff_t>(stride)};
  }
};

}  // namespace flashstep::gpu
