// Inside the GPU engine: what the attention recorders (attention_gpu.cpp, tiled_gpu.cpp) share:
// Q, K, V and O on the GPU, the traces and how to read them. What each step says, counts and
// writes is core's attention narration (core/narration_attention.h), the same as the CPU
// engine's; the numbers come from the GPU.
//
// Shapes: Q, K, V, O are (N, d) row-major, on the GPU as float arrays, one after another for
// several heads; traces of S and P are (N, N); per-tile traces of O are (Tc, N, d) and of m, l
// (Tc, N, 4) (one head: steps are kept for one head only).
#pragma once

#include "core/narration_attention.h"
#include "core/text.h"
#include "gpu/kernels.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace flashstep::gpu {

// "head 3, " where a run has several heads (h from 0), "" for one: how a message names the head.
inline std::string head_text(int H, int h) { return H > 1 ? strf("head %d, ", h + 1) : std::string(); }

struct AttnGpuRun {
  // Heads [h0, h0 + count) of the run, in buffers of their own: Q, K, V and O are
  // (count, N, d), head after head. The shaders take the head from their grid's last dimension.
  struct Batch {
    int h0, count;
    Buffer Q, K, V, O;
    // At the bindings every one-pass attention shader declares: Q 0, K 1, V 2, O 3.
    void bind_qkvo() const {
      Q.bind(0);
      K.bind(1);
      V.bind(2);
      O.bind(3);
    }
  };

  Kernels& k;
  const Resolved& r;
  const HeadRecorders& heads;
  Recorder& rec;  // head 0's: the only one that keeps steps
  const int N, d, H;
  const int per_batch;  // heads per batch
  std::vector<Batch> batches;
  // The run's dispatches: how many it makes in all (its recorder says, before the first) and
  // how many are done, for the progress bar and cancel (Kernels::dispatched).
  long long dispatches_total = 1, dispatches_done = 0;
  void dispatched() { k.dispatched(++dispatches_done, dispatches_total); }

  // per_head_bytes: the largest buffer one head needs in this algorithm (S for attn-naive, Q
  // for the others). The heads are split into batches whose buffers fit the driver's largest
  // storage buffer, and at most kMaxGroups heads each: all H in one when they fit. Every batch
  // is allocated up front, so the GPU holds all heads at once, as a layer does.
  AttnGpuRun(Kernels& k_, const Resolved& r_, const HeadRecorders& heads_, double per_head_bytes)
      : k(k_), r(r_), heads(heads_), rec(*heads_.front()), N(r_.n), d(r_.d), H(static_cast<int>(heads_.size())),
        per_batch(heads_per_batch(k_.limits(), per_head_bytes, H)) {
    for (int h0 = 0; h0 < H; h0 += per_batch) {
      const int count = std::min(per_batch, H - h0);
      std::vector<float> q, kk, v;
      for (int h = h0; h < h0 + count; ++h) {
        if (h == 0) {
          append(q, to_floats(r.q)), append(kk, to_floats(r.k)), append(v, to_floats(r.v));
        } else {
          const Kernels::HeadFloats& head = k.head_floats(r, h);
          append(q, head.q), append(kk, head.k), append(v, head.v);
        }
      }
      batches.push_back({h0, count, k.buffer("Q", q), k.buffer("K", kk), k.buffer("V", v),
                         k.buffer("O", cells(count, cells(N, d)) * 4)});
    }
  }

  static int heads_per_batch(const Limits& lim, double per_head_bytes, int H) {
    const double fit = std::floor(static_cast<double>(lim.max_storage_bytes) / std::max(per_head_bytes, 4.0));
    return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(std::min(H, kMaxGroups))));
  }
  static void append(std::vector<float>& out, const std::vector<float>& f) { out.insert(out.end(), f.begin(), f.end()); }
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

// attn-naive's forward (three kernels through S and P in HBM), dispatched, read back and
// narrated apart, so that attn-backward runs it first in its own recording and then reads its P
// and O on the GPU.
class NaiveForward {
 public:
  static constexpr int kDispatchesPerBatch = 3;
  // S, P and the row statistics of every head, batch by batch (a layer holds them all at once).
  explicit NaiveForward(AttnGpuRun& a);
  // The three kernels for every batch (inside the caller's GpuTimer::Scope).
  void dispatch();
  // S and P of head 0 when steps are kept, the statistics and O of every batch.
  void read_back();
  // Head h's steps, handed to the attention narration on its recorder.
  void narrate(int h) const;
  const Buffer& P(std::size_t batch) const { return scratch_[batch].P; }
  // Head 0's P (N × N), empty when no steps are kept.
  const std::vector<float>& P_host() const { return P_host_; }

 private:
  struct Scratch {
    Buffer S, P, stats;
  };
  AttnGpuRun& a_;
  std::vector<Scratch> scratch_;
  std::vector<float> S_host_, P_host_;
  std::vector<std::vector<float>> stats_, O_;  // per batch
};

// FlashAttention-2's forward (shaders/attn_tiled_v2.comp), dispatched, read back and narrated
// apart, so that attn-flash-backward runs it first in its own recording and then reads its O and
// L on the GPU.
class TiledV2Forward {
 public:
  static constexpr int kDispatchesPerBatch = 1;
  explicit TiledV2Forward(AttnGpuRun& a);
  ~TiledV2Forward();
  void dispatch();
  void read_back();
  // Checks that head h's workgroups finished every tile, then hands its steps to the narration.
  void narrate(int h) const;
  // The row statistics of a batch, (count, N, 4) floats: m, l, L, tiles done.
  const Buffer& stats(std::size_t batch) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flashstep::gpu
