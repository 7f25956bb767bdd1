// The algorithm table: one row per algorithm of the catalogue, with everything the rest of
// FlashStep may ask about an algorithm without naming it — its id and titles, its family and
// the view that draws it, the parameters it takes, the kernels it has (recorded, fast, GPU),
// its recorded engine, its pseudocode and the pair the Compare tab opens with.
//
// The app asks this table and never switches on an Algorithm. Adding an algorithm is its enum
// value (core/scenario.h), its engine, its shader, its row here, its lesson file and its tests:
// docs/ARCHITECTURE.md lists the files. The table is tied to the enum by a static_assert on its
// size and by tests/core/test_algorithms.cpp (row k describes algorithm k).
#pragma once

#include "core/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

class Recorder;
struct IoCounters;
struct RecordingSize;

enum class Family { softmax, attention };

// Which of the app's views draws a recording of the algorithm.
enum class ViewKind {
  vector,   // one row of x with its e and y bars, m and l registers
  chunked,  // the workers' chunks and the merge tree of (m, l)
  matrix,   // Q, Kᵀ, S, P, Vᵀ, O as heatmaps with the tile grid
};

struct AlgorithmInfo {
  Algorithm algorithm;
  std::string_view id;          // "attn-tiled-v2": command line, scenario files, lesson files
  std::string_view title;       // "FlashAttention-2 loop order"
  std::string_view short_name;  // "FlashAttention-2": legends, compare presets
  Family family;
  ViewKind view;

  // What its inputs are and what its recording holds.
  bool has_max = true;      // keeps a max m (naive softmax sums exp(x) directly)
  bool rescales = false;    // its sweep rescales l by e^{m_old − m_new} as m grows
  bool global_max = false;  // its m is a merge of partial maxima (the workers' (m, l))
  bool takes_workers = false;  // the worker count n_w (chunked)
  bool takes_blocks = false;   // Br, Bc or the SRAM budget M (tiled)

  // The kernels it has.
  void (*record)(const Resolved&, Recorder&) = nullptr;  // recorded CPU engine: the reference
  // Its IO model as a formula (core/io_model.h): what a run counts, without running it.
  IoCounters (*io)(const Resolved&) = nullptr;
  // The size of its recording (core/engine.h): steps exactly, cells and deltas closely.
  RecordingSize (*size)(const Resolved&) = nullptr;
  bool fast = false;  // a --steps none fp32 kernel (core/fast.h)
  bool gpu = false;   // a compute-shader engine (gpu/)

  // The algorithm in the notation of its paper; Step::line indexes it from 1.
  std::vector<std::string> pseudocode;

  // The pair the Compare tab opens with while this algorithm is shown.
  Algorithm compare_a, compare_b;
};

// Why `row`'s algorithm cannot run on the GPU ("attn-x has no GPU engine: …"), or "" when it
// has a GPU engine (row.gpu): one line for the command line, the Inputs panel's disabled GPU
// choice and the GPU engine's refusal alike.
std::string no_gpu_engine(const AlgorithmInfo& row);

// Row of `a`; every Algorithm has one.
const AlgorithmInfo& info(Algorithm a);
// Every row, in the catalogue's teaching order (the enum's order).
const std::vector<AlgorithmInfo>& algorithm_table();

// The named pairs the Compare tab offers.
struct ComparePreset {
  std::string_view name;
  Algorithm a, b;
  std::string_view why;
};
const std::vector<ComparePreset>& compare_presets();

}  // namespace flashstep
