// The vector view's rows, each drawn across the same columns: the x cells, s·x, the bars of e
// and y, the column headers and the workers' band, with the small helpers they share (what a
// column shows, its tooltip, a row's label). view_vector.cpp stacks them with the registers
// and the row strips. Internal to the vector view.
#pragma once

#include "app/ui/views/view_logic.h"
#include "app/ui/views/vector_bars.h"
#include "app/ui/views/view.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace flashstep::ui::vector_view {


struct Buffers {
  int x, e, y, m, l, lse;
  explicit Buffers(const Recording& rec)
      : x(rec.find_buffer("x")),
        e(rec.find_buffer("e")),
        y(rec.find_buffer("y")),
        m(rec.find_buffer("m")),
        l(rec.find_buffer("l")),
        lse(rec.find_buffer("LSE")) {}
};

// The geometry of one row of per-element slots (cells or bars). With more elements than
// pixels, one drawn column stands for `per` elements (ColumnPick says which one it shows), so a
// frame draws about as many rectangles as the view is wide, whatever n is.
struct Columns {
  float x0 = 0, cw = 0, gap = 0;
  int n = 0;
  int per = 1;
  float left(int i) const { return x0 + static_cast<float>(i) * cw + gap * 0.5f; }
  float right(int i) const { return x0 + static_cast<float>(i + 1) * cw - gap * 0.5f; }
  float centre(int i) const { return x0 + (static_cast<float>(i) + 0.5f) * cw; }
  int count() const { return (n + per - 1) / per; }  // drawn columns
  int first(int col) const { return col * per; }
  int end(int col) const { return std::min(n, (col + 1) * per); }
  float col_left(int col) const { return per == 1 ? left(col) : x0 + static_cast<float>(first(col)) * cw; }
  float col_right(int col) const { return per == 1 ? right(col) : x0 + static_cast<float>(end(col)) * cw; }
  float col_centre(int col) const { return (col_left(col) + col_right(col)) * 0.5f; }
};

struct Ctx {
  const ViewInput& in;
  const Recording& rec;
  const State& st;
  const Buffers b;
  ImDrawList* dl;
  float s, fs;
  int row;
  Columns cols;
  bool hover_ok;
  std::vector<WrittenNumber>* numbers = nullptr;  // where the rows report the numbers they write
};

double value(const Ctx& c, int buffer, int col, bool* defined);
// The element drawn column `col` shows, from `get` (nullopt: not defined), and whether any
// element of the column is marked read or written this step.
using BarValue = std::function<std::optional<double>(int)>;
ColumnPick column_pick(const Ctx& c, int col, const BarValue& get, bool by_magnitude = false);
std::uint8_t column_marks(const Ctx& c, int buffer, int col);
BarValue buffer_value(const Ctx& c, int buffer);
// "x₁₀₀₁ … x₁₁₅₇ (157 elements): the largest, x₁₀₄₅, is shown" for a column of many.
std::string column_note(const Ctx& c, int col, const ColumnPick& p, const std::function<std::string(int)>& name);
void cell_tooltip(const Ctx& c, int buffer, int i, const std::string& name, const std::string& about = "");
// Each column's number: the most digits (up to 4) that fit `room(col)` at `size`, a fraction
// written one way in the row (cell_numbers); empty where the column has no value or no form
// fits. Reported to c.numbers.
std::vector<std::string> column_numbers(const Ctx& c, const std::vector<std::optional<double>>& values,
                                        float size, const std::function<float(int)>& room);
// The row label at the left edge, with a (?) for what the row holds.
void row_label(const Ctx& c, float y, float h, const char* text, const char* help);

// Each row returns the height it used.
float draw_x_cells(const Ctx& c, float y);  // x as cells with their values
float draw_scaled(const Ctx& c, float y);   // s·x under each x when the scores are scaled
// Bars of one buffer ("e" or "y") from a baseline (see view_vector_rows.cpp).
float draw_bars(const Ctx& c, float y, float h, int buffer, ImU32 colour, const char* label, const char* help,
                const std::function<std::string(int)>& name, bool unit_scale, const BarValue& get,
                const ExpBars* rescale = nullptr);
float draw_header(const Ctx& c, float y);       // column headers x₁ … xₙ, arrows on those read
float draw_worker_band(const Ctx& c, float y);  // which worker owns each element (chunked)

}  // namespace flashstep::ui::vector_view
