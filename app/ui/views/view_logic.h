// What the views compute before they draw: colour ranges, which cells a step touches, old and
// new values, why a cell is inf or nan, the matrix layout, the merge-tree layout, what is on
// chip, and the IO totals the model predicts. No ImGui and no GL here, so all of it is
// unit-tested without a window (tests/app/test_views_logic.cpp). The sections are defined in
// view_logic.cpp (values, what a step touches), layout_logic.cpp (chunked, matrix layout) and
// memory_logic.cpp (memory).
//
// [SECTION] values and colours
// [SECTION] what a step touches
// [SECTION] chunked softmax
// [SECTION] matrix layout
// [SECTION] memory
#pragma once

#include "core/engine.h"
#include "core/recording.h"
#include "core/tiles.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flashstep::ui {

// ---- [SECTION] values and colours ---------------------------------------------------------

// The finite values a buffer holds, for colour scaling.
struct ValueRange {
  double lo = 0, hi = 0;
  bool empty = true;
  void add(double v);       // ignores inf and nan
  float t(double v) const;  // v mapped to [0, 1]; 0.5 when the range is one point
  // Values of both signs: drawn with a diverging map centred on 0 (signed_t), where the sign is
  // what a student reads first (S: a negative score is an unlikely key).
  bool signed_values() const { return !empty && lo < 0 && hi > 0; }
  float signed_t(double v) const;  // 0.5 + v / (2·max|v|): 0 maps to the middle
};

// Every finite value the buffer ever holds in the recording (its start and every write), so a
// colour means the same number at every step instead of drifting as cells fill in.
ValueRange buffer_range(const Recording& rec, int buffer);

// A cheap identity of a recording's contents (shape, counters and a sample of its values), so
// caches notice a new recording even when it reuses the old one's address and size.
std::uint64_t recording_fingerprint(const Recording& rec);

enum class CellKind : std::uint8_t { undefined, finite, neg_inf, pos_inf, nan };
CellKind cell_kind(bool defined, double v);
// +inf and nan are errors the student should notice; −inf is a legitimate start value or mask.
inline bool is_alarm(CellKind k) { return k == CellKind::pos_inf || k == CellKind::nan; }

// A number short enough for a heatmap cell: `digits` significant digits in core's notation (num:
// "−1.5", "1.2×10⁴", "∞", "−∞", "nan").
std::string compact_number(double v, int digits = 2);

// The shortest form of a number, for cells too narrow for compact_number: "0" for zero, "≈0" for
// any other value below 0.05 (a cell that reads 0 holds 0), one decimal without the leading zero below 1 (".5", "−.3"), else a rounded integer.
std::string tiny_number(double v);

// The numbers of a matrix's, a close-up's or a vector's cells, each with the most significant
// digits that fit its cell (`fits(i, text)` for values[i]): `most` (3), then fewer down to 2,
// with the leading zero ("0.63"); then 2 without it where only that fits (".63", before
// "−0.6"); then 1 digit, with the zero and without; then tiny_number. A fraction is written one way in all of them: where one needs ".63", every
// "0.83" becomes ".83" (a cell's text only gets shorter, so it still fits). And no number is shown
// with digits beside a farther one that reads "≈0": where −0.036 is ≈0, 0.007 is ≈0 too.
std::vector<std::string> cell_numbers(const std::vector<double>& values,
                                      const std::function<bool(std::size_t, const std::string&)>& fits, int most = 3);

// A number a view wrote in a cell or under a bar, or the room it found too small for any form
// (text empty), as the views report it for tests.
struct WrittenNumber {
  int group = 0;  // the numbers written as one (a matrix, a row of cells): a fraction one way
  double value = 0;
  std::string text;
  float size = 0, room = 0;  // the text's size and the width it had
};

// What a register box wrote on its second line, for tests: the text, its width and the room the
// box has for it.
struct RegisterLine {
  std::string text;
  float width = 0, room = 0;
};

// A value for a register or a tooltip: num(v), 5 significant digits.
std::string display_number(double v);

// How many cells one drawn rectangle covers so that no rectangle is smaller than min_px.
int decimation(float cell_px, float min_px = 2.0f);

// More elements than pixels (a vector of 100,000): one drawn column stands for `per` elements,
// and the element it shows is picked so that nothing a student must see disappears: a nan
// first, then +inf, then the largest finite value (the largest magnitude for values that hang
// down), then −inf. Elements not yet defined are skipped; index −1 when none is.
struct ColumnPick {
  int index = -1;
  double value = 0;
  CellKind kind = CellKind::undefined;
  int defined = 0;  // how many of the column's elements are
};
void pick_into(ColumnPick& p, int i, bool defined, double v, bool by_magnitude = false);

// ---- [SECTION] what a step touches ----------------------------------------------------------

enum : std::uint8_t { kMarkRead = 1, kMarkWrite = 2 };
bool region_contains(const Region& g, int r, int c);
// kMarkRead | kMarkWrite for cell (r, c) of `buffer` in `step` (nullptr: nothing).
std::uint8_t cell_marks(const Step* step, int buffer, int r, int c);

// A cell before and after the step at `playhead`, from that step's deltas (the first delta of
// a cell in a step holds its value before the step).
struct CellChange {
  double old_value = 0, new_value = 0;
  bool old_defined = false, new_defined = false;
  bool written = false;  // some delta of this step wrote the cell
  bool changed() const;  // written and the value (or definedness) differs
};
CellChange cell_change(const Recording& rec, const State& now, int playhead, int buffer, int r, int c);

// Why a cell holds +inf, −inf or nan, in a sentence with the numbers ("exp(12) overflows fp16:
// the largest finite fp16 is 65504"). Empty for a finite or undefined cell.
std::string nonfinite_reason(const Recording& rec, const State& st, int buffer, int r, int c);

// The row a step is about (softmax row or query row); `fallback` when the step has none.
int step_row(const Step* step, int fallback);

// ---- [SECTION] chunked softmax --------------------------------------------------------------

// Worker w of K owns elements [chunk_begin(w), chunk_begin(w + 1)), as the engine splits them.
int chunk_begin(int worker, int n, int K);
int chunk_of(int i, int n, int K);

// Horizontal centre of every merge-tree node: a worker sits over its chunk, a merge between
// its children, a carried node over its only child.
std::vector<float> merge_tree_x(const std::vector<MergeNode>& tree, const std::vector<float>& worker_x);
int merge_tree_levels(const std::vector<MergeNode>& tree);

// ---- [SECTION] matrix layout ----------------------------------------------------------------

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
  bool shown = false;
  bool contains(float px, float py) const { return shown && px >= x && py >= y && px < x + w && py < y + h; }
};


// ---- [SECTION] memory -----------------------------------------------------------------------

// The name a lecture would give a region this step touches: "K₂", "S₁₂", "x₃", "q₄", "m".
std::string region_name(const Recording& rec, const Step& step, const Region& g);
long long region_elements(const Region& g);

// What sits on chip during a step: tiles loaded from HBM (read regions of HBM buffers) and
// intermediates computed there (regions of SRAM and register buffers).
struct OnChip {
  std::string name;
  int buffer = 0;
  Region region;
  long long elements = 0;
  bool loaded = false;        // came from HBM this step
  bool written_back = false;  // goes back to HBM at the end of the step
  Space space = Space::sram;
};
// `before`: the step before it, whose reads and writes are still on chip (read again, they are
// not loaded again); a write in step.kept stays on chip (not written back); step.held (a part
// of the step shown) is on chip, neither loaded nor written yet.
std::vector<OnChip> on_chip(const Recording& rec, const Step& step, const Step* before = nullptr);
// What the step moves between HBM and the chip, region by region: a read of an HBM buffer is a
// load unless the step before read or wrote the same region (FlashAttention-2's Qᵢ over the
// tiles of its row, FlashAttention-1's Kⱼ, Vⱼ down a column stay on chip); a write to one is a
// write-back unless it is in step.kept.
bool hbm_read(const Recording& rec, const Step* before, const Region& g);
bool hbm_written(const Recording& rec, const Step& step, const Region& g);

// The tile of `step`'s own loop: the row's, or during the forward a backward row runs first
// (its steps on the forward's pseudocode lines), the forward row's.
const TileShape& step_tile(const Recording& rec, const Step* step);

// The SRAM a tile step needs is the row's tile (core/tiles.h: tile_budget). Br and Bc the
// paper's rule gives for an SRAM of M elements (core/tiles.h: sram_blocks), clamped to N, as
// core/scenario.cpp resolves them; 0 for a non-positive M, N or d.
void paper_blocks(int M, int N, int d, int& Br, int& Bc);

// The recording's shape as a scenario for algorithm `a` (same rows, n or N, d, scale, mask,
// chunks; Br and Bc from the recording, else from the default SRAM budget), so core's
// expected_io() gives what `a` would move for the same input.
Resolved comparable(const Recording& rec, Algorithm a);

}  // namespace flashstep::ui
