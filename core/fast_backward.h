// Fast fp32 kernels of the attention backward pass: no steps recorded, Eigen's GEMMs and packet
// exp, OpenMP across blocks. They compute what the recorded backward engines compute (tests
// check both against long-double references) and are what `--steps none` and the benchmarks
// time; the forward they start from (P, or O and L) is an input, computed outside the timing.
//
// Shapes: Q, K, V, O, dO, dQ, dK, dV are N × d row-major; P is N × N; L and D have N entries.
// The forward was O = softmax(s·QKᵀ, masked) V; the gradients are those of a loss with
// ∂loss/∂O = dO.
#pragma once

#include "core/mask.h"
#include "core/matrix.h"

#include <vector>

namespace flashstep::fast {

struct Gradients {
  MatRM<float> dQ, dK, dV;
  std::vector<float> D;  // Dᵢ = rowsum(dO ∘ O)ᵢ
};

// The standard backward, every N × N matrix in memory: dV = Pᵀ dO, dP = dO Vᵀ, D = rowsum(dO ∘ O),
// dS = P ∘ (dP − D), dQ = s·dS K, dK = s·dSᵀ Q. Four SGEMMs on every core; P, dP and dS held
// (3 N² floats). P is the forward's (0 where masked), so the mask needs no second look.
void attention_backward(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V,
                        const MatRM<float>& P, const MatRM<float>& O, const MatRM<float>& dO, float scale,
                        Gradients& g);

// FlashAttention-2's backward (Dao 2023, Algorithm 2): D first; K/V blocks j in parallel, each
// with its dKⱼ, dVⱼ on chip; for each Q block i, Sᵢⱼ and Pᵢⱼ = exp(Sᵢⱼ − Lᵢ) recomputed from the
// forward's L alone, then dVⱼ += Pᵢⱼᵀ dOᵢ, dPᵢⱼ = dOᵢ Vⱼᵀ, dSᵢⱼ = Pᵢⱼ ∘ (dPᵢⱼ − Dᵢ),
// dQᵢ += s·dSᵢⱼ Kⱼ, dKⱼ += s·dSᵢⱼᵀ Qᵢ. Tiles the mask leaves empty are skipped.
// dQ: on a GPU the K/V blocks' additions to dQᵢ race (atomics); here each thread adds into a dQ
// of its own, and the threads' dQ are summed in a fixed order at the end, so the result does not
// depend on timing (the deal of K/V blocks to threads is static). Holds per thread its tiles and
// a dQ (N × d), nothing of size N².
// L is the forward's log-sum-exp, −∞ for a row with no visible key (whose gradients are 0).
void attention_flash_backward(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V,
                              const MatRM<float>& O, const std::vector<float>& L, const MatRM<float>& dO,
                              float scale, const Mask& mask, int Br, int Bc, Gradients& g);

}  // namespace flashstep::fast
