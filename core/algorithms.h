// The algorithm table: one row per algorithm of the catalogue, with everything the rest of
// FlashStep may ask about an algorithm without naming it — its id and titles, its family and
// the view that draws it, its traits (the inputs it takes and their shapes, the options that
// apply, its Compare group, the N × N matrices it holds, its tile, the window's limit, its
// passes), the kernels it has (recorded, fast, GPU), its pseudocode and the pair the Compare
// tab opens with.
//
// The app asks this table and never switches on an Algorithm. Adding an algorithm is its enum
// value (core/scenario.h), its engine, its shader, its row here, its lesson file and its tests:
// docs/ARCHITECTURE.md lists the files. The table is tied to the enum by a static_assert on its
// size and by tests/core/test_algorithms.cpp (row k describes algorithm k).
#pragma once

#include "core/scenario.h"
#include "core/tiles.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flashstep {

class Recorder;
struct IoCounters;
struct RecordingSize;
struct FastRun;

enum class Family { softmax, attention, backward };

// Which of the app's views draws a recording of the algorithm.
enum class ViewKind {
  vector,   // one row of x with its e and y bars, m and l registers
  chunked,  // the workers' chunks and the merge tree of (m, l)
  matrix,   // Q, Kᵀ, S, P, Vᵀ, O as heatmaps with the tile grid
};

// ---- traits: what the rest of FlashStep asks about a row instead of its family -------------

// The sizes input shapes are written in. Inputs that share a letter must agree on it (resolve()
// checks), so Q, K, V all N × d share N; a decoding row would give Q its own Nq beside K's Nk.
enum class Extent {
  n,     // softmax length (Scenario::n when the input is random)
  rows,  // softmax rows, each its own softmax (Scenario::rows)
  N,     // attention sequence length (Scenario::n when the inputs are random)
  d,     // head dimension (Scenario::d)
};
std::string_view extent_name(Extent e);  // "n", "rows", "N", "d"

// One input matrix: its name as the papers write it, its shape, and where a scenario holds it
// (given, or empty for standard-normal numbers from the seed) and resolve() puts it (rounded to
// the precision). An input the backward adds (dO, N × d) is one more of these and its members.
struct InputSpec {
  std::string_view name;   // "x", "Q"
  std::string_view field;  // how messages name it: "input", "Q"
  Extent rows, cols;
  std::vector<std::vector<double>> Scenario::*given;
  MatrixRM Resolved::*value;
  // Given or drawn on its own, whatever the others are: the backward's dO may be given with
  // random Q, K, V and left out with given ones (then drawn after them, from the seed). The
  // others of a row are all given or all drawn.
  bool own = false;
};
inline const InputSpec kInputX{"x", "input", Extent::rows, Extent::n, &Scenario::x, &Resolved::x};
inline const InputSpec kInputQ{"Q", "Q", Extent::N, Extent::d, &Scenario::q, &Resolved::q};
inline const InputSpec kInputK{"K", "K", Extent::N, Extent::d, &Scenario::k, &Resolved::k};
inline const InputSpec kInputV{"V", "V", Extent::N, Extent::d, &Scenario::v, &Resolved::v};
inline const InputSpec kInputDO{"dO", "dO", Extent::N, Extent::d, &Scenario::d_o, &Resolved::d_o, true};
// Every input some row takes, each once: what a scenario may give.
const std::vector<const InputSpec*>& all_inputs();

// How a row's passes are named on the timeline: its fixed names, or one pass per query row, per
// Q block or per K/V block, named by a prefix and the 1-based number ("K/V block j = 3"); then
// the names before the prefix (the last name) are passes of their own, before the numbered ones.
enum class PassesPer { fixed, query_row, q_block, kv_block };

// The largest N the window records every step of for a row whose views show N × N matrices
// (the Inputs panel and scenario files are held to it; `run --steps none` takes more).
inline constexpr int kWindowMaxN = 512;

struct AlgorithmInfo {
  Algorithm algorithm;
  std::string_view id;          // "attn-tiled-v2": command line, scenario files, lesson files
  std::string_view title;       // "FlashAttention-2 loop order"
  std::string_view short_name;  // "FlashAttention-2": legends, compare presets
  Family family;
  ViewKind view;

  // What it takes: its input matrices in the order a seed draws them (one stream), and the
  // options that apply to it.
  std::vector<const InputSpec*> inputs;
  bool takes_mask = false;     // the causal mask (query i sees keys j ≤ i)
  bool takes_workers = false;  // the worker count n_w (chunked)
  bool takes_blocks = false;   // Br, Bc or the SRAM budget M (tiled)
  // What Compare may pair it with, and the Memory panel's HBM chart lists together: the rows
  // of one group run on the same inputs and give the same outputs.
  std::string_view group;
  // The N × N matrices it keeps in memory at once ("S", "P"): refused before they are allocated
  // where they do not fit (core/engine.h), skipped in the Measure race beyond the budget, and
  // the baseline the Memory panel's chart measures the others of its group against.
  std::vector<std::string_view> square;
  // What one of its tile steps holds on chip (core/tiles.h); none for an untiled row.
  TileShape tile;
  // The window's limit: N ≤ window_max_n where its views show N × N matrices; 0: the window
  // limits the number of input values instead.
  int window_max_n = 0;

  // What its recording holds.
  bool has_max = true;      // keeps a max m (naive softmax sums exp(x) directly)
  bool rescales = false;    // its sweep rescales l by e^{m_old − m_new} as m grows
  bool global_max = false;  // its m is a merge of partial maxima (the workers' (m, l))
  bool stores_lse = false;  // it writes the log-sum-exp L (LSE) of each row
  // Its passes: the fixed names, or with `passes_per` one prefix numbered per row or block.
  std::vector<std::string_view> passes;
  PassesPer passes_per = PassesPer::fixed;
  // The row whose run comes first in this one's recording (the backward's forward): its passes
  // come before `passes` on the timeline, and its pseudocode lines before this row's own (the
  // row's `pseudocode` starts with them), so that its steps keep their pass and line numbers.
  std::optional<Algorithm> runs_after;

  // The kernels it has.
  void (*record)(const Resolved&, Recorder&) = nullptr;  // recorded CPU engine: the reference
  // Its IO model as a formula (core/io_model.h): what a run counts, without running it.
  IoCounters (*io)(const Resolved&) = nullptr;
  // The size of its recording (core/engine.h): steps exactly, cells and deltas closely.
  RecordingSize (*size)(const Resolved&) = nullptr;
  // Its --steps none fp32 kernel (core/fast.h, wired in core/timed_run.cpp); null: none.
  void (*fast)(const Resolved&, FastRun&) = nullptr;
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

// ---- questions answered from the traits ----

bool takes(Algorithm a, const InputSpec& input);
// Q, K and V: the scores are q · k, and the rows are the N queries.
inline bool takes_qkv(Algorithm a) { return takes(a, kInputQ) && takes(a, kInputK) && takes(a, kInputV); }
// Whether Compare may pair a with b (the same group).
bool same_group(Algorithm a, Algorithm b);
// The rows of a's group, in the table's order.
std::vector<Algorithm> group_of(Algorithm a);
// The row of a's group whose N × N matrices the others avoid (attn-naive for attention); a
// itself where its group has none.
Algorithm materialized_of(Algorithm a);
// "S and P"; empty for a row that holds none.
std::string square_names(Algorithm a);
// The bytes of a's N × N matrices for H heads in values of `value_bytes`: |square|·H·N²·bytes.
double square_bytes(Algorithm a, long long N, int heads, double value_bytes);
// The 1-based line of a's pseudocode that starts with `start` (0 when none does).
int pseudocode_line(Algorithm a, std::string_view start);
// The timeline's pass names of a run of r's algorithm, never empty and none empty: those of the
// row it runs after first.
std::vector<std::string> pass_names(const Resolved& r);
// How many passes and pseudocode lines of a run of r (of row a) belong to the row it runs after
// (0 when none): its own steps' pass and line numbers start after them.
int own_pass_offset(const Resolved& r);
int own_line_offset(Algorithm a);

// The named pairs the Compare tab offers.
struct ComparePreset {
  std::string_view name;
  Algorithm a, b;
  std::string_view why;
};
const std::vector<ComparePreset>& compare_presets();

}  // namespace flashstep
