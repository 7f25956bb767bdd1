// What the two backward lessons say at every step, for every backend: the CPU engines
// (core/attn_backward.cpp) and the GPU recorders compute, then hand their numbers to a builder
// here, which counts the step's IO (in every mode, as the forward's builders do), writes the
// cells it changed when steps are kept, fills the results (dq, dk, dv in group "grads", the
// per-row "D") and commits the Step with its parts.
//
// The forward runs first in the same Recording (attn-naive's for attn-backward, FlashAttention-2's
// for attn-flash-backward, through record_attn_naive / record_attn_tiled_v2 or the GPU's own
// forward recorder); the builders here are made after it and find its buffers by name (Q, K, V,
// O, and P for the standard one, LSE for the flash one), then declare their own (dO, D, dP, dS,
// dQ, dK, dV; the flash one recomputes into the forward's S and P tiles). Their steps' passes
// and pseudocode lines follow the forward's (the rows list the forward's passes and lines first).
//
// Indices are 0-based (i: query row or Q block, j: key row or K/V block); sentences count from
// 1. Every BlockView holds the values after the step; an empty BlockView stands for values a
// backend did not keep (no steps recorded): the builders then only count IO, except where a
// result is filled (dq, dk, dv, D), which every mode needs.
#pragma once

#include "core/narration_attention.h"

namespace flashstep {

// What both backward builders share: the forward's Q, K, V, O found by name; dO (with its
// contents), dQ, dK, dV in HBM, D per row; the results list's "dq", "dk", "dv" and "D".
class AttnBackwardBase {
 public:
  AttnBackwardBase(const Resolved& r, Recorder& rec);
  // The final gradients (N × d each) and D (N × 1) as results, for a backend that kept no
  // per-row or per-tile values (a GPU run without traces passes empty BlockViews to the steps
  // and reads back only these); the CPU engines need not call it.
  void results(const BlockView& dQ, const BlockView& dK, const BlockView& dV, const BlockView& D);

 protected:
  void write_block(int b, int r0, int c0, const BlockView& M);
  // Rows [r0, r0 + M.rows()) of the result `name` (group "grads") from M.
  void set_grad(const char* name, int r0, const BlockView& M);
  // The step's pass: the forward's passes come first.
  int pass(int k) const { return forward_passes_ + k; }
  // The step's pseudocode line: the forward's lines come first.
  int line(int k) const { return forward_lines_ + k; }

  const Resolved& r_;
  Recorder& rec_;
  const int N, d;
  const bool scaled_;
  int forward_passes_ = 0, forward_lines_ = 0;
  int bQ_, bK_, bV_, bO_;              // the forward's
  int bdO_, bD_, bdQ_, bdK_ = -1, bdV_;  // the backward's (dK declared by each lesson)
};

// attn-backward: the standard backward after attn-naive's forward. P (the forward's), dP and dS
// are N × N in HBM; four matmuls: dV = Pᵀ dO, dP = dO Vᵀ, dQ = s · dS K, dK = s · dSᵀ Q.
class AttnBackwardNarration : public AttnBackwardBase {
 public:
  AttnBackwardNarration(const Resolved& r, Recorder& rec);  // finds P; declares dP, dS
  void dv_row(int j, const BlockView& dV_row);  // dV_j = Σ_i P_ij dO_i (key row j), 1 × d
  void dp_row(int i, const BlockView& dP_row);  // dP_i = dO_i Vᵀ, 1 × N (dense: P zeroes masked dS)
  // D_i = rowsum(dO_i ∘ O_i), shown beside rowsum(P_i ∘ dP_i): the same number.
  void d_row(int i, double D_from_O, double D_from_P);
  void ds_row(int i, const BlockView& dS_row);  // dS_i = P_i ∘ (dP_i − D_i), 1 × N
  void dq_row(int i, const BlockView& dQ_row);  // dQ_i = s · dS_i K, 1 × d
  void dk_row(int j, const BlockView& dK_row);  // dK_j = s · Σ_i dS_ij Q_i (key row j), 1 × d
  void finish();

 private:
  int bP_, bdP_, bdS_;
};

// attn-flash-backward: FlashAttention-2's backward (Dao 2023, Algorithm 2) after its forward.
// D first; outer loop over K/V blocks j with Kⱼ, Vⱼ, dKⱼ, dVⱼ on chip; inner loop over Q blocks
// i, recomputing Sᵢⱼ and Pᵢⱼ = exp(Sᵢⱼ − Lᵢ) from the forward's L alone; dQᵢ read from and
// written back to HBM at every tile. Causal: the engine skips empty tiles (Mask::tile) and does
// not call tile() for them.
class AttnFlashBackwardNarration : public AttnBackwardBase {
 public:
  AttnFlashBackwardNarration(const Resolved& r, Recorder& rec);  // finds LSE, S, P; declares dP, dS
  // D_i = rowsum(dO_i ∘ O_i) of Q block i (br × 1), written to HBM.
  void d_block(int i, const BlockView& D);
  // Kⱼ, Vⱼ to SRAM; dKⱼ = dVⱼ = 0 on chip.
  void start_kv(int j);
  // Tile (i, j): S, P, dP, dS are br × bc (P recomputed from L); dQ is dQᵢ after the tile
  // (br × d, read from and written back to HBM); dK, dV are dKⱼ, dVⱼ after it (bc × d, on chip).
  void tile(int i, int j, const BlockView& S, const BlockView& P, const BlockView& dP,
            const BlockView& dS, const BlockView& dQ, const BlockView& dK, const BlockView& dV);
  // dKⱼ, dVⱼ (bc × d) written to HBM after the inner loop.
  void finish_kv(int j, const BlockView& dK, const BlockView& dV);
  void finish();

 private:
  int bL_, bS_, bP_, bdP_, bdS_;
  int tiles_in_kv_ = 0;  // tiles of the current column j so far
};

}  // namespace flashstep
