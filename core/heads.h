// Several heads of attention, for `flashstep run --heads H --steps none` and the benchmarks: H
// independent heads of the same N and d, as a multi-head attention layer has them. The lessons'
// views stay one head.
//
// Head 0 is the scenario itself (so one head is exactly the single-head run); head h ≥ 1 draws
// its Q, K, V from a seed of its own, derived from the scenario's seed and h, so a seed still
// names the whole problem. A summary run of H heads is the per-head summaries stacked head
// after head: every result of the recording (output (H·N) × d, m, l and lse H·N long, and any
// other the algorithm declares), IO counts summed.
#pragma once

#include "core/recording.h"
#include "core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep {

inline constexpr int kMaxHeads = 1024;  // more is refused (a layer has tens)

// The seed head h's Q, K, V are drawn from: the scenario's own for h = 0.
std::uint64_t head_seed(std::uint64_t seed, int h);

// Head h ≥ 1 of r: r with Q, K, V drawn from head_seed(seed, h), rounded to r's precision,
// with r's N, d, scale, mask and blocks. Head 0 is r itself.
Resolved resolve_head(const Resolved& r, int h);

// attn-naive's S and P for H heads: 2·H·N² values of `value_bytes` bytes.
inline double s_and_p_bytes(int N, int heads, double value_bytes) {
  return 2.0 * heads * static_cast<double>(N) * static_cast<double>(N) * value_bytes;
}
// A size as the refusals of S and P name it: bytes_text's binary units, and decimal gigabytes
// beside them from 1 GB on ("512.0 GiB (550 GB)"), as memory is sold.
std::string s_and_p_text(double bytes);

// Refuses H heads of r with an InputError naming what to change: a softmax algorithm, H outside
// 1..kMaxHeads, or H·N·d values per matrix beyond kMaxElements.
void check_heads(const Resolved& r, int heads);

// The per-head summary recordings as one: every result stacked head after head, IO counts and
// non-finite outputs summed, `heads` set. The heads declare the same results (one algorithm).
Recording stack_heads(std::vector<Recording> heads);

}  // namespace flashstep
