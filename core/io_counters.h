// The IO model: what every engine counts, in elements (not bytes), with one rule set.
//
//  hbm_reads / hbm_writes  every element moved between slow memory (HBM: inputs, outputs and
//                          anything an algorithm materialises there) and the chip. An element
//                          read again in a later pass or a later tile is counted again: that
//                          re-reading is exactly what the lessons compare.
//  sram_reads / sram_writes  on-chip memory (shared memory / SRAM): a tile loaded from HBM is
//                          written into SRAM once; an on-chip intermediate (S_ij, P̃_ij, the
//                          per-worker (m, l) pairs of `chunked`) is written once when computed
//                          and read once by each operation that consumes it. Scalars kept in
//                          registers (the running m and l of one softmax row, or of one
//                          `chunked` worker while it walks its chunk) are not counted: a worker's
//                          pair counts 2 writes once, when its chunk ends.
//  flops                   additions, subtractions, multiplications, divisions, comparisons
//                          (max) and logarithms, one each; a multiply-add is 2. exp() is not
//                          a flop here: it is counted on its own in `exps`.
//  exps                    calls of exp().
//
// With these rules, for an n-element row: naive 2n reads / n writes, safe 3n / n,
// online 2n / n; for N×d attention with Tc = ⌈N/Bc⌉, Tr = ⌈N/Br⌉ and no mask:
// attn-naive 3Nd + 2N² / 2N² + Nd, attn-tiled (FlashAttention-1) 2Nd + Tc·(2Nd + 2N) /
// Tc·(Nd + 2N), attn-tiled-v2 (FlashAttention-2) Nd + Tr·2Nd / Nd + N.
#pragma once

#include <cstdint>

namespace flashstep {

struct IoCounters {
  std::uint64_t hbm_reads = 0;
  std::uint64_t hbm_writes = 0;
  std::uint64_t sram_reads = 0;
  std::uint64_t sram_writes = 0;
  std::uint64_t flops = 0;
  std::uint64_t exps = 0;

  std::uint64_t hbm_accesses() const { return hbm_reads + hbm_writes; }
  bool operator==(const IoCounters& o) const {
    return hbm_reads == o.hbm_reads && hbm_writes == o.hbm_writes &&
           sram_reads == o.sram_reads && sram_writes == o.sram_writes && flops == o.flops &&
           exps == o.exps;
  }
  bool operator!=(const IoCounters& o) const { return !(*this == o); }
};

}  // namespace flashstep
