// Inside the GPU engine: what the attention recorders (attention_gpu.cpp, tiled_gpu.cpp) share.
// The buffers, labels and IO counting mirror core/attention.cpp, so both backends' Recordings
// line up step by step; the values come from the GPU.
//
// Shapes: Q, K, V, O are (N, d) row-major, on the GPU as float arrays; traces of S and P are
// (N, N); per-tile traces of O are (Tc, N, d) and of m, l (Tc, N, 4).
#pragma once

#include "core/text.h"
#include "gpu/kernels.h"

#include <string>

namespace flashstep::gpu {

struct AttnGpuRun {
  Kernels& k;
  const Resolved& r;
  Recorder& rec;
  const int N, d;
  const bool scaled, causal;
  int bQ, bK, bV, bO;
  Buffer Q, K, V, O;

  AttnGpuRun(Kernels& k_, const Resolved& r_, Recorder& rec_)
      : k(k_), r(r_), rec(rec_), N(r_.n), d(r_.d), scaled(r_.scale != 1.0),
        causal(r_.scenario.causal), Q(k_.buffer("Q", to_floats(r_.q))),
        K(k_.buffer("K", to_floats(r_.k))), V(k_.buffer("V", to_floats(r_.v))),
        O(k_.buffer("O", cells(N, d) * 4)) {
    bQ = rec.add_buffer({"Q", N, d, Space::hbm, "queries, one row per token"});
    bK = rec.add_buffer({"K", N, d, Space::hbm, "keys, one row per token"});
    bV = rec.add_buffer({"V", N, d, Space::hbm, "values, one row per token"});
    bO = rec.add_buffer({"O", N, d, Space::hbm, "the output O = softmax(S) V, in HBM"});
    rec.init(bQ, r.q);
    rec.init(bK, r.k);
    rec.init(bV, r.v);
    rec.recording().output = MatrixRM::Zero(N, d);
  }

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

  // The flops of S = Q[rows] K[cols]^T * s for an nr x nc block, as the CPU engine counts them.
  void scores_io(long long nr, long long nc) {
    rec.io().flops += 2ull * nr * nc * d;
    if (scaled) rec.io().flops += static_cast<std::uint64_t>(nr) * nc;
  }
  // Writes rows [r0, r0 + nr) x cols [c0, c0 + nc) of buffer b from `src`, whose row `row` starts
  // at src[row * stride + c0] (the traces are laid out like the buffers they fill).
  void write_block(int b, int r0, int nr, int c0, int nc, const float* src, std::size_t stride) {
    if (!rec.on()) return;
    for (int a = 0; a < nr; ++a)
      for (int c = 0; c < nc; ++c) rec.write(b, r0 + a, c0 + c, src[(r0 + a) * stride + c0 + c]);
  }
  void set_output(const std::vector<float>& O_host) {
    for (int i = 0; i < N; ++i)
      for (int c = 0; c < d; ++c) rec.recording().output(i, c) = O_host[cells(i, d) + c];
  }
  static Region rows_of(int b, int r0, int nr, int cols) { return {b, r0, 0, r0 + nr, cols}; }
  // "[0.1, 0.2, 0.3, 0.4, …]": the first entries of a row.
  static std::string list(const float* row, int count, int max_items = 4) {
    std::string out = "[";
    for (int k = 0; k < count && k < max_items; ++k) out += (k ? ", " : "") + num(row[k]);
    if (count > max_items) out += ", …";
    return out + "]";
  }
};

}  // namespace flashstep::gpu
