// Inside the GPU engine: the backward passes' kernels (gpu/backward_kernels.cpp), after the forward
// of attention_run.h in the same run. The standard backward (attn-backward) reads attn-naive's P
// and O on the GPU; the flash one (attn-flash-backward) FlashAttention-2's O and L.
//
// Shapes: dO, dQ, dK, dV are (heads, N, d) row-major on the GPU, like Q, K, V; D is (heads, N, 2):
// rowsum(dO ∘ O) and (standard backward only) rowsum(P ∘ dP); the standard backward's dP and dS
// are (heads, N, N) like its P.
#pragma once

#include "gpu/attention_run.h"

#include <vector>

namespace flashstep::gpu {

// What the backward kernels of one batch of heads leave on the GPU, and read back.
struct GradBuffers {
  Buffer dO, D, dQ, dK, dV;
  std::vector<float> D_host, dQ_host, dK_host, dV_host;  // after read_back
};

// attn-backward's kernels after attn-naive's forward: dV = Pᵀ dO, dP = dO Vᵀ, D (both ways) and
// dS = P ∘ (dP − D), dQ = s · dS K, dK = s · dSᵀ Q; P, dP and dS whole in HBM.
class NaiveBackward {
 public:
  static constexpr int kDispatchesPerBatch = 5;
  // dO: each batch's (count, N, d) floats.
  NaiveBackward(AttnGpuRun& a, const NaiveForward& forward, const std::vector<std::vector<float>>& dO);
  void dispatch();
  // D, dQ, dK, dV of every batch; head 0's dP and dS when steps are kept.
  void read_back();
  const GradBuffers& grads(std::size_t batch) const { return grads_[batch]; }
  const std::vector<float>& dP_host() const { return dP_host_; }
  const std::vector<float>& dS_host() const { return dS_host_; }

 private:
  AttnGpuRun& a_;
  const NaiveForward& forward_;
  std::vector<GradBuffers> grads_;
  std::vector<Buffer> dP_, dS_;  // per batch
  std::vector<float> dP_host_, dS_host_;
};

// attn-flash-backward's kernels after FlashAttention-2's forward: D = rowsum(dO ∘ O), then
// dK, dV with one workgroup per K/V block (attn_flash_bwd_kv.comp) and dQ with one per Q block
// (attn_flash_bwd_dq.comp), both recomputing S and P = exp(S − L) tile by tile.
class FlashBackward {
 public:
  static constexpr int kDispatchesPerBatch = 3;
  FlashBackward(AttnGpuRun& a, const TiledV2Forward& forward, const std::vector<std::vector<float>>& dO);
  void dispatch();
  // D, dQ, dK, dV and the per-row counts of every batch; head 0's traces when steps are kept.
  // Refuses (stopped_early) a batch whose shaders stopped before the end of their work.
  void read_back();
  const GradBuffers& grads(std::size_t batch) const { return grads_[batch]; }

  // Head 0's traces: S, P, dP, dS (N × N) where the tiles put them; dK_j, dV_j after tile
  // (i, j) at (i, key row); dQ_i after tile (i, j) at (j, query row); (T, N, d) each.
  struct Traces {
    std::vector<float> S, P, dP, dS, dK, dV, dQ;
  };
  const Traces& traces() const { return traces_; }
  // Whether tile (i, j) ran in head h of batch `batch` (h counted within the batch).
  bool ran(std::size_t batch, int h, int i, int j) const;

 private:
  AttnGpuRun& a_;
  const TiledV2Forward& forward_;
  std::vector<GradBuffers> grads_;
  struct Counts {
    Buffer kv_done, q_done, tiles;
    std::vector<int> kv_host, q_host, tiles_host;
  };
  std::vector<Counts> counts_;
  Buffer TS_, TP_, TdP_, TdS_, TdK_, TdV_, TdQ_;
  Traces traces_;
};

// For the tests of the shaders' own numbers: the forward and the backward on r's Q, K, V (one
// head) with the upstream gradient dO (N × d, row-major), no steps. flash: FlashAttention-2's
// forward and backward with r's Br, Bc; else attn-naive's forward and the standard backward.
struct BackwardNumbers {
  std::vector<float> O, L;             // N × d, N (L: flash only)
  std::vector<float> D, D_from_P;      // N each (D_from_P: standard only)
  std::vector<float> dQ, dK, dV;       // N × d each
};
BackwardNumbers backward_numbers(Kernels& k, const Resolved& r, const std::vector<float>& dO, bool flash);

}  // namespace flashstep::gpu
