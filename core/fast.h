// Fast fp32 kernels: no steps recorded, vectorized with Eigen's packet math, multi-threaded
// with OpenMP. They compute what the recording engines compute (tests/core/test_fast.cpp
// checks both against long-double references) and are what `--steps none` and the
// benchmarks time.
//
// Softmax inputs are `rows` contiguous rows of length n, row-major. Attention inputs are
// N × d row-major; O is N × d; lse (optional) gets m + log l per row.
#pragma once

#include "core/matrix.h"

#include <cstdint>
#include <vector>

namespace flashstep::fast {

// Each kernel can also return the final m and l of every row (m_out, l_out: `rows` floats).

// Three passes over x: max, sum of exp(x - m), normalize.
void softmax_safe(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out = nullptr,
                  float* l_out = nullptr);
// Two passes: (m, l) together, then normalize. The first pass folds x into (m, l) one
// L1-sized block at a time: block max, then one exp per element, so x is read from memory once.
void softmax_online(const float* x, float* y, std::int64_t rows, std::int64_t n, float* m_out = nullptr,
                    float* l_out = nullptr);
// Online (m, l) of K chunks, merged pairwise up a tree, then normalize.
void softmax_chunked(const float* x, float* y, std::int64_t rows, std::int64_t n, int K,
                     float* m_out = nullptr, float* l_out = nullptr);

// S = scale·QKᵀ and P = softmax(S) materialized (N × N each), O = PV: Eigen SGEMMs, all cores.
void attention_naive(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     bool causal, MatRM<float>& O, float* m_out = nullptr, float* l_out = nullptr);
// FlashAttention-2 order: Q blocks in parallel, K/V blocks inner, O divided by l once.
void attention_tiled_v2(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                        bool causal, int Br, int Bc, MatRM<float>& O, std::vector<float>* lse = nullptr,
                        float* m_out = nullptr, float* l_out = nullptr);
// FlashAttention-1 order: K/V blocks outer, Q blocks inner (in parallel), m, l, O in memory.
void attention_tiled(const MatRM<float>& Q, const MatRM<float>& K, const MatRM<float>& V, float scale,
                     bool causal, int Br, int Bc, MatRM<float>& O, float* m_out = nullptr,
                     float* l_out = nullptr);

int threads();  // how many threads the kernels use

}  // namespace flashstep::fast
