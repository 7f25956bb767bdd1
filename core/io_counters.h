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
//
// The counters are a list (FLASHSTEP_IO_COUNTERS below): everything that copies, sums, prints
// or draws them iterates kIoCounters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flashstep {

// The counters, one line each: member (and run's JSON key), name on screen, unit, help. A new
// counter is one line here plus its formula in core/io_model.cpp and its counts in the engines;
// the struct, its comparison, --heads' sums, run's JSON and the memory panel's rows follow.
#define FLASHSTEP_IO_COUNTERS(X)                                                                    \
  X(hbm_reads, "HBM reads", "elements",                                                             \
    "Elements read from slow memory. An element read again in a later pass or tile counts again.")   \
  X(hbm_writes, "HBM writes", "elements", "Elements written to slow memory.")                       \
  X(sram_reads, "SRAM reads", "elements", "Elements read from on-chip shared memory. Registers are not counted.") \
  X(sram_writes, "SRAM writes", "elements",                                                         \
    "Elements written to on-chip shared memory (a loaded tile is written once).")                   \
  X(flops, "FLOPs", "operations",                                                                   \
    "Additions, multiplications, divisions, max and log, one each; a multiply-add is 2. exp() is "   \
    "counted on its own.")                                                                          \
  X(exps, "exp()", "calls", "Calls of exp(): the expensive part of softmax on a GPU.")

struct IoCounters {
#define FLASHSTEP_IO_MEMBER(member, name, unit, help) std::uint64_t member = 0;
  FLASHSTEP_IO_COUNTERS(FLASHSTEP_IO_MEMBER)
#undef FLASHSTEP_IO_MEMBER

  std::uint64_t hbm_accesses() const { return hbm_reads + hbm_writes; }
  bool operator==(const IoCounters& o) const;
  bool operator!=(const IoCounters& o) const { return !(*this == o); }
  IoCounters& operator+=(const IoCounters& o);  // every counter: the heads of a layer, summed
};

// One counter of the list: what run's JSON calls it ("hbm_reads"), what the window calls it
// ("HBM reads"), what it counts in, and where it is in IoCounters.
struct IoCounterInfo {
  std::string_view key;
  std::string_view name;
  std::string_view unit;
  std::string_view help;
  std::uint64_t IoCounters::*field;
};

inline constexpr IoCounterInfo kIoCounters[] = {
#define FLASHSTEP_IO_ROW(member, name, unit, help) {#member, name, unit, help, &IoCounters::member},
    FLASHSTEP_IO_COUNTERS(FLASHSTEP_IO_ROW)
#undef FLASHSTEP_IO_ROW
};
inline constexpr std::size_t kIoCounterCount = sizeof(kIoCounters) / sizeof(kIoCounters[0]);
// Nothing in IoCounters outside the list.
static_assert(sizeof(IoCounters) == kIoCounterCount * sizeof(std::uint64_t),
              "every member of IoCounters is a line of FLASHSTEP_IO_COUNTERS");

inline bool IoCounters::operator==(const IoCounters& o) const {
  for (const IoCounterInfo& c : kIoCounters)
    if (this->*c.field != o.*c.field) return false;
  return true;
}

inline IoCounters& IoCounters::operator+=(const IoCounters& o) {
  for (const IoCounterInfo& c : kIoCounters) this->*c.field += o.*c.field;
  return *this;
}

}  // namespace flashstep
