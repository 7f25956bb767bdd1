// The sentences the Inputs panel, the memory panel and the overflow lab show beside their
// numbers: help on the block sizes, the SRAM budget and the precision, the tile's fit, the
// overflow lab's verdicts, the HBM traffic of streaming without tiles. Each sentence that states
// a number is built from it, so tests/app/test_explain.cpp recomputes what it says. No ImGui.
#pragma once

#include "app/ui/labs/lab_overflow.h"
#include "core/precision.h"
#include "core/recording.h"
#include "core/tiles.h"

#include <string>
#include <vector>

namespace flashstep::ui {

// ---- block sizes and the SRAM budget (Inputs panel, memory panel) -------------------------

// The rule FlashAttention picks Br and Bc by, for the "from M" choice's help.
std::string block_rule_help();
// What a tile step holds, why the rule leaves room for Sᵢⱼ (Dao et al. 2022, Theorem 2), and
// how far over M the rule's constants let a tile go.
std::string tile_rule_help(const TileShape& t);
// The help of the M field: the on-chip memory of named GPUs, in bytes and fp32 elements.
std::string sram_help();

// One line on the size of a tile of shape `t` (the row's, core/tiles.h) against M. `problem`
// only when its d-wide blocks (the forward's Qᵢ, Kⱼ, Vⱼ and Oᵢ) alone exceed M (blocks set by
// hand): with the paper's rule the score tiles (Sᵢⱼ) on top are expected, not an error.
struct TileFitLine {
  std::vector<std::string> lines;  // short enough for a line each of the Inputs panel
  bool problem = false;
  std::string text() const;        // the lines joined by "; "
};
TileFitLine tile_fit_line(const TileShape& t, int Br, int Bc, int d, int M);

// ---- precision (Inputs panel, overflow lab, the attention presets) ------------------------

// What FlashStep rounds where, against what FlashAttention's kernels do with 16-bit inputs.
std::string precision_help();
// One line under the precision's choice: for fp16 and bf16, that FlashStep accumulates in them
// too, unlike FlashAttention's kernels. Empty for fp32 and fp64.
std::string precision_note(Precision p);
// The tooltip of attention preset `preset` (inputs.h) in precision p, with its numbers.
std::string attention_preset_tooltip(int preset, Precision p);

// ---- the overflow lab's verdicts ----------------------------------------------------------

// Naive softmax on [1, 2, x]: every y finite, or which elements went where and why.
std::string naive_verdict(const OverflowRun& r, Precision p);
// Safe softmax: e^{xᵢ − m} lies in [0, 1], and which elements underflowed to 0.
std::string safe_verdict(const OverflowRun& r, Precision p);

// ---- HBM traffic (memory panel) -----------------------------------------------------------

// For an attention recording without tiles that moves more through HBM than materialized
// attention would for the same shape: how much more and why (every query reads K and V
// again), from the counters. Empty otherwise.
std::string streaming_traffic_note(const Recording& rec);

}  // namespace flashstep::ui
