// Recording: what an engine run leaves behind and what the timeline plays.
//
// A Recording holds
//  - the buffers the algorithm touches (x, y, m, l, Q, K, V, S, P, O, ...), each rows × cols,
//    with the memory it lives in (HBM, SRAM or a register);
//  - the Steps, in the algorithm's loop order: pass, pseudocode lines, a sentence with the real
//    numbers, the regions read and written, the cumulative IO counters;
//  - the buffer contents at every step, stored as keyframes plus per-step deltas, so memory
//    grows with the number of writes, not steps × cells, and seeking is cheap both ways.
//
// A cell is "undefined" until something writes it (m before the first element is read is
// −inf because the algorithm sets it so; y before pass 3 is undefined).
//
// A summary-only Recording (keep_steps == false) has no steps, no deltas and no buffer
// contents: only its results (the output, the final per-row statistics, ...) and the IO totals.
//
// Results are a list of named values that the engine declares and fills: matrices ("output",
// later the gradients) and per-row statistics ("m", "l", "lse", later "D"). compare(), the JSON
// report and the stacking of heads go through the list, so a new result needs no code of theirs.
#pragma once

#include "core/io_counters.h"
#include "core/mask.h"
#include "core/matrix.h"
#include "core/precision.h"
#include "core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep {

enum class Space : std::uint8_t { hbm, sram, reg };
std::string_view space_name(Space s);

// What an axis of a buffer runs over: the matrix view aligns axes of the same role and names
// a tile by the block index of its rows' role (a key-row buffer's tile is dK_j, not dK_i).
enum class Axis : std::uint8_t { none, query, key, feature, split, device };

// Where the matrix view places a buffer (app/ui/views/matrix_layout.h):
//                  above: transposed, stacked over its host (its key rows along the columns)
//     left   centre   right   stats     (the main band: rows are queries, in `order`)
enum class Place : std::uint8_t { hidden, left, centre, right, stats, above };

struct BufferInfo {
  BufferInfo() = default;
  BufferInfo(std::string name_, int rows_, int cols_, Space space_, std::string description_ = "")
      : name(std::move(name_)), rows(rows_), cols(cols_), space(space_), description(std::move(description_)) {}
  // Declarations for the matrix view, chained: BufferInfo{...}.axes(Axis::key, Axis::feature).at(Place::above)
  BufferInfo& axes(Axis rows_role, Axis cols_role) {
    row_axis = rows_role, col_axis = cols_role;
    return *this;
  }
  BufferInfo& at(Place p, int order_ = 0, std::string host_name = "") {
    place = p, order = order_, host = std::move(host_name);
    return *this;
  }
  BufferInfo& labelled(std::string l) {
    label = std::move(l);
    return *this;
  }
  BufferInfo& titled(std::vector<std::string> t) {
    titles = std::move(t);
    return *this;
  }
  BufferInfo& in_steps() {
    step_column = true;
    return *this;
  }
  BufferInfo& shown_as(std::string markup) {
    symbol = std::move(markup);
    return *this;
  }
  BufferInfo& partial_sum(std::string left_to_do) {
    partial = std::move(left_to_do);
    return *this;
  }
  BufferInfo& word() {
    subscripted = false;
    return *this;
  }
  BufferInfo& holds(std::string result_name) {
    result = std::move(result_name);
    return *this;
  }

  std::string name;  // "x", "y", "m", "l", "Q", "K", "V", "S", "P", "O", "LSE", ...
  int rows = 0, cols = 0;
  Space space = Space::hbm;
  std::string description;  // one line for tooltips: "running max of each row"
  Axis row_axis = Axis::none, col_axis = Axis::none;
  Place place = Place::hidden;
  int order = 0;     // along the band, top to bottom in a stack, and in the view's toolbar
  std::string host;  // above: the buffer it stacks on ("S" for K); absent or not shown: the first centre one
  // Titles over the matrix in markup, longest first; the first that fits is drawn (none: the name).
  std::vector<std::string> titles;
  std::string label;  // the toolbar's name for it (empty: the last title)
  bool step_column = false;  // a per-row register the Steps tab shows beside each step (m, l)
  // How its blocks are named (the close-up's titles, the memory panel): the symbol in markup
  // (empty: the name) followed by the block's subscript by its rows' role (P̃₃₂ from "\\~P", dK₂);
  // a name that is a word (LSE) takes no subscript in the close-up. A partial sum over the other
  // role's blocks so far (the accumulator Oᵢ⁽ʲ⁾) adds the superscript (j) and what is left to do
  // to it ("not yet divided").
  std::string symbol;
  bool subscripted = true;
  std::string partial;
  // Whether a step of the recording writes it (set as the Recorder commits the step): what the
  // steps compute, as against an input that is only read (Q, K, V, dO).
  bool written = false;
  // The result (Results) whose values this buffer holds as the steps compute them, when its name
  // is not the result's ("output" in O or y): compare() follows the result through the steps in
  // it. Empty: the result of its own name, case aside (lse in LSE, dq in dQ).
  std::string result;
  const std::string& shown() const { return symbol.empty() ? name : symbol; }
};

// A matrix result ("output": softmax rows × n, attention N × d) and the JSON object it goes in
// ("" : the top level, "grads": beside the others of its kind).
struct MatrixResult {
  std::string name;
  std::string group;
  MatrixRM values;
};

// A statistic per row ("m", "l", "lse"), written under "stats". Declared but empty: the algorithm
// does not compute it (naive softmax has no running max), null in every row.
struct RowResult {
  std::string name;
  std::vector<double> values;
};

struct Results {
  std::vector<MatrixResult> matrices;
  std::vector<RowResult> rows;

  const MatrixResult* find_matrix(std::string_view name) const;
  const RowResult* find_row(std::string_view name) const;
  // The named result, declared (empty, at the end of the list) when absent.
  MatrixRM& matrix(std::string_view name, std::string_view group = "");
  std::vector<double>& row(std::string_view name);
};

// Cells [r0, r1) × [c0, c1) of one buffer.
struct Region {
  int buffer = 0;
  int r0 = 0, c0 = 0, r1 = 0, c1 = 0;
};
inline bool operator==(const Region& a, const Region& b) {
  return a.buffer == b.buffer && a.r0 == b.r0 && a.r1 == b.r1 && a.c0 == b.c0 && a.c1 == b.c1;
}
inline bool operator!=(const Region& a, const Region& b) { return !(a == b); }

// A part of a step that one pseudocode line (or a few) does on its own: a tile's S_ij, then
// its P̃_ij, then the merge into O_i. The part's writes are the step's deltas up to delta_end;
// the last part ends where the step does. ",", "." in the app step through them.
struct StepPart {
  int line = 0, line_end = 0;   // highlighted pseudocode lines of the part
  std::uint32_t delta_end = 0;  // the step's deltas [delta_begin, delta_end) are done by now
  std::string text;             // the part's sentence with its numbers
};

struct Step {
  int pass = 1;             // 1-based; pass_names[pass - 1] names it
  int line = 0;             // first highlighted pseudocode line (1-based), 0 = none
  int line_end = 0;         // last highlighted line (== line for a single line)
  int row = -1;             // softmax row / query row this step is about, -1 = all
  int tile_i = -1;          // Q block index (tiled attention), -1 = none
  int tile_j = -1;          // K/V block index (tiled attention), -1 = none
  std::string label;        // short, for tables: "m₃", "tile (i=2, j=1)"
  std::string text;         // the sentence with the real numbers
  std::vector<Region> reads, writes;
  // Of the writes to HBM buffers, those that stay on chip this step: a sum kept in SRAM whose
  // rows the HBM buffer shows as they grow, written to HBM at a later step (the FlashAttention-2
  // backward's dKⱼ, dVⱼ). The memory panel does not count them as written back.
  std::vector<Region> kept;
  bool keeps(const Region& g) const {
    for (const Region& k : kept)
      if (k == g) return true;
    return false;
  }
  // Set by step_as_of_part only: what the step writes later but holds on chip already, where a
  // part before its write is shown (FlashAttention-2's O_i^(j), m_i, l_i while S_ij is computed).
  // On chip, not yet written by the part shown.
  std::vector<Region> held;
  IoCounters io;            // cumulative, after this step
  std::uint32_t delta_end = 0;  // this step's deltas are [previous step's delta_end, delta_end)
  std::vector<StepPart> parts;  // empty, or two or more parts in order (see StepPart)
};

// One cell change. `old` makes stepping backward as cheap as forward.
struct Delta {
  std::uint32_t buffer;
  std::uint32_t index;  // row * cols + col
  double value;
  double old;
  bool defined;
  bool old_defined;
};

// The contents of every buffer at one moment.
struct State {
  std::vector<std::vector<double>> values;
  std::vector<std::vector<std::uint8_t>> defined;

  double at(int b, int r, int c, int cols) const { return values[b][r * cols + c]; }
  bool is_defined(int b, int r, int c, int cols) const { return defined[b][r * cols + c] != 0; }
};

struct Recording {
  Algorithm algorithm = Algorithm::online;
  std::string backend = "cpu";
  std::string device;       // "CPU" or the GL renderer string
  Precision precision = Precision::fp32;
  int rows = 0, n = 0, d = 0;  // softmax: rows × n; attention: N = n, d
  double scale = 1.0;
  Mask mask{Mask::Kind::none, 0, 0};  // the mask it ran under; run's JSON says "causal" and "mask"
  int Br = 0, Bc = 0, Tr = 0, Tc = 0, chunks = 0;
  ParamValues params;  // the parameters declared since format 1 that the algorithm takes
  std::vector<std::string> notices;
  std::vector<std::string> derived;  // Resolved::derived: values worked out, not adjustments

  std::vector<std::string> pass_names;
  std::vector<BufferInfo> buffers;
  std::vector<Step> steps;
  bool keep_steps = true;

  // Results, also in a summary-only recording (see Results above).
  Results results;
  IoCounters io;                      // totals
  long long nonfinite = 0;            // inf/nan entries in the output (also when not kept)
  // Attention summaries of several heads (core/heads.h): every result holds them head after
  // head ((heads·N) × d, heads·N); n and d are one head's.
  int heads = 1;
  // A GPU recording: the milliseconds of its compute dispatches alone (the GL timer query, or
  // the wall clock up to glFinish() where the driver's queries leave compute out); −1 on the CPU.
  double gpu_ms = -1;

  // Contents: the state before step 0, keyframes (state after step keyframe_steps[k]) and
  // the deltas of every step.
  State initial;
  std::vector<State> keyframes;
  std::vector<int> keyframe_steps;
  std::vector<Delta> deltas;

  // The results every algorithm has, by name. The non-const ones declare the result when absent;
  // the const ones give an empty value then.
  MatrixRM& output() { return results.matrix("output"); }             // softmax: rows × n; attention: N × d
  std::vector<double>& m() { return results.row("m"); }               // final per row (NaN where never defined)
  std::vector<double>& l() { return results.row("l"); }
  std::vector<double>& lse() { return results.row("lse"); }           // logsumexp and attn-tiled-v2: m + log l
  const MatrixRM& output() const;
  const std::vector<double>& m() const;
  const std::vector<double>& l() const;
  const std::vector<double>& lse() const;

  int step_count() const { return static_cast<int>(steps.size()); }
  int pass_count() const { return static_cast<int>(pass_names.size()); }
  int find_buffer(std::string_view name) const;  // -1 if absent
  std::uint32_t delta_begin(int step) const { return step == 0 ? 0 : steps[step - 1].delta_end; }
  std::size_t memory_bytes() const;               // approximate footprint
  long long count_nonfinite_outputs() const;
};

// Moves through a Recording's states. seek(k) leaves state() equal to the contents after
// step k (k = -1: before the first step), whichever direction it came from. seek(k, p) stops
// inside step k, after its part p (p = -1, or the last part: the whole step).
class Cursor {
 public:
  explicit Cursor(const Recording& rec);
  void seek(int k) { seek(k, -1); }
  void seek(int k, int part);
  int position() const { return part_ < 0 ? pos_ : pos_ + 1; }
  int part() const { return part_; }  // -1: the whole step
  const State& state() const { return state_; }
  double value(int buffer, int r, int c) const;
  bool defined(int buffer, int r, int c) const;

 private:
  void apply_forward(int step);
  void apply_backward(int step);
  void seek_whole(int k);
  const Recording* rec_;
  State state_;
  int pos_ = -1;   // steps applied whole
  int part_ = -1;  // the part of step pos_ + 1 applied on top, -1 when none
};

// The part of step k that seek(k, part) would show: -1 when part means the whole step.
int normal_part(const Recording& rec, int k, int part);

// Step k as it stands after its part `part`: its writes only where the part or one before it
// has written (a tile's O is not yet written back while its S is computed); a write left out
// whose region is on chip and holds a value from before the step (an on-chip buffer's, or one
// of step.kept) goes to `held`. The whole step when `part` means the whole step.
Step step_as_of_part(const Recording& rec, int k, int part);

// The per-row registers shown beside every step (the Steps tab, the steps of the JSON report):
// m and l always (buffer −1 where the algorithm has none: an empty column), then every other
// buffer the recording declares a step column, in its order.
struct StepColumn {
  std::string name;
  int buffer = -1;
};
std::vector<StepColumn> step_columns(const Recording& rec);

// Replays deltas from the initial state to step k: the plain definition seek() must equal.
State replay(const Recording& rec, int k);

// Steps where a new pass (or a new row's passes) starts: the timeline's boundaries.
std::vector<int> pass_starts(const Recording& rec);

}  // namespace flashstep
