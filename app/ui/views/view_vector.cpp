#include "app/ui/views/view_vector.h"

#include "app/ui/views/vector_bars.h"
#include "app/ui/views/view_logic.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>

namespace flashstep::ui {
namespace {

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
};

double value(const Ctx& c, int buffer, int col, bool* defined) {
  const int cols = c.rec.buffers[buffer].cols;
  *defined = c.st.is_defined(buffer, c.row, col, cols);
  return c.st.at(buffer, c.row, col, cols);
}

// The element drawn column `col` shows, from `get` (nullopt: not defined), and whether any
// element of the column is marked read or written this step.
using BarValue = std::function<std::optional<double>(int)>;
ColumnPick column_pick(const Ctx& c, int col, const BarValue& get, bool by_magnitude = false) {
  ColumnPick p;
  for (int i = c.cols.first(col); i < c.cols.end(col); ++i) {
    const std::optional<double> v = get(i);
    pick_into(p, i, v.has_value(), v.value_or(0.0), by_magnitude);
  }
  return p;
}
std::uint8_t column_marks(const Ctx& c, int buffer, int col) {
  std::uint8_t m = 0;
  for (int i = c.cols.first(col); i < c.cols.end(col); ++i) m |= cell_marks(c.in.step, buffer, c.row, i);
  return m;
}
BarValue buffer_value(const Ctx& c, int buffer) {
  return [&c, buffer](int i) -> std::optional<double> {
    bool def = false;
    const double v = value(c, buffer, i, &def);
    return def ? std::optional<double>(v) : std::nullopt;
  };
}
// "x₁₀₀₁ … x₁₁₅₇ (157 elements): the largest, x₁₀₄₅, is shown" for a column of many.
std::string column_note(const Ctx& c, int col, const ColumnPick& p, const std::function<std::string(int)>& name) {
  if (c.cols.per == 1) return "";
  std::string t = strf("This column stands for %s … %s (%d elements); ", name(c.cols.first(col)).c_str(),
                       name(c.cols.end(col) - 1).c_str(), c.cols.end(col) - c.cols.first(col));
  t += p.index < 0 ? "none is computed yet." : "it shows " + name(p.index) + ", the largest (nan or ∞ first).";
  return t + "\n";
}

void cell_tooltip(const Ctx& c, int buffer, int i, const std::string& name, const std::string& about = "") {
  bool def = false;
  const double v = value(c, buffer, i, &def);
  std::string body = about.empty() ? c.rec.buffers[buffer].description : about;
  const std::string why = nonfinite_reason(c.rec, c.st, buffer, c.row, i);
  if (!why.empty()) body = why + "\n" + body;
  tooltip(name + " = " + (def ? num(v) : std::string("not computed yet")), body);
}

// The row label at the left edge, with a (?) for what the row holds.
void row_label(const Ctx& c, float y, float h, const char* text, const char* help) {
  const ImVec2 ts = ImGui::CalcTextSize(text);
  const float x = c.cols.x0 - ts.x - c.fs * 1.9f;
  c.dl->AddText(ImVec2(x, y + (h - ts.y) * 0.5f), c.in.palette.text, text);
  help_marker_at(ImVec2(c.cols.x0 - c.fs * 1.6f, y + (h - ts.y) * 0.5f), help);
}

// x as cells with their values; returns the height used.
float draw_x_cells(const Ctx& c, float y) {
  const Palette& pal = c.in.palette;
  const float h = std::max(c.fs * 1.9f, 28.0f * c.s);
  const ValueRange range = buffer_range(c.rec, c.b.x);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const BarValue get = buffer_value(c, c.b.x);
  auto name = [](int i) { return "x" + sub(i + 1); };
  for (int col = 0; col < c.cols.count(); ++col) {
    const ColumnPick p = column_pick(c, col, get);
    const int i = std::max(p.index, c.cols.first(col));
    const double v = p.value;
    const CellKind kind = p.kind;
    const ImVec2 p0(c.cols.col_left(col), y), p1(c.cols.col_right(col), y + h);
    std::string text;
    if (p1.x - p0.x > 8) {
      text = compact_number(v, 4);
      if (ImGui::CalcTextSize(text.c_str()).x > p1.x - p0.x - 4) text = compact_number(v, 2);
    }
    value_cell(c.dl, pal, p0, p1, cell_fill(pal, kind, range.t(v)), text.c_str(), column_marks(c, c.b.x, col), c.s);
    if (c.hover_ok && ImGui::IsMouseHoveringRect(p0, p1) && mouse.x < p1.x)
      cell_tooltip(c, c.b.x, i, name(i), column_note(c, col, p, name) + c.rec.buffers[c.b.x].description);
  }
  row_label(c, y, h, "x",
            "The input scores of this row. They live in HBM: every pass over them "
            "is one more read of each element.");
  return h;
}

// s·x under each x when the scores are scaled (1/√d or a temperature): what exp() really sees.
float draw_scaled(const Ctx& c, float y) {
  const Palette& pal = c.in.palette;
  const float h = c.fs + 2 * c.s;
  // Numbers only: a column of many elements has no room for one.
  for (int i = 0; c.cols.per == 1 && i < c.cols.n; ++i) {
    bool def = false;
    const double v = value(c, c.b.x, i, &def) * c.rec.scale;
    std::string t = compact_number(v, 4);
    if (ImGui::CalcTextSize(t.c_str()).x > c.cols.right(i) - c.cols.left(i)) t = compact_number(v, 2);
    if (ImGui::CalcTextSize(t.c_str()).x <= c.cols.right(i) - c.cols.left(i) + 2 * c.s)
      text_centered(c.dl, ImVec2(c.cols.centre(i), y + h * 0.5f), pal.text_dim, t.c_str());
  }
  const std::string label = "s·x";
  const std::string help = strf(
      "The scores as the algorithm uses them: every x is multiplied by s = %s "
      "(1/√d or 1/temperature) when it is loaded.",
      num(c.rec.scale).c_str());
  row_label(c, y, h, label.c_str(), help.c_str());
  return h;
}

// Bars of one buffer ("e" or "y") growing from a baseline; values that are negative (log y)
// hang down. `get` gives each bar's value (the buffer's own, or the exp bars of vector_bars.h);
// with `rescale`, the elements it names are drawn twice in their slot: the old bar (outlined)
// and the rescaled one, with the factor written beside the row. Returns the height used.
float draw_bars(const Ctx& c, float y, float h, int buffer, ImU32 colour, const char* label, const char* help,
                const std::function<std::string(int)>& name, bool unit_scale, const BarValue& get,
                const ExpBars* rescale = nullptr) {
  const Palette& pal = c.in.palette;
  const ValueRange range = buffer_range(c.rec, buffer);
  const bool down = !range.empty && range.hi <= 0 && range.lo < 0;
  double top = down ? -range.lo : (range.empty ? 1.0 : std::max(range.hi, 0.0));
  if (unit_scale) top = std::max(top, 1.0);
  if (!(top > 0)) top = 1.0;
  const float label_h = c.fs + 2 * c.s;
  const float bar_h = h - label_h;
  const float base = down ? y + 4 * c.s : y + bar_h;
  c.dl->AddLine(ImVec2(c.cols.x0, base), ImVec2(c.cols.x0 + c.cols.cw * static_cast<float>(c.cols.n), base),
                pal.grid, 1.0f);
  const float full = down ? bar_h - 4 * c.s : bar_h, min_outline = 6 * c.s;
  auto extent = [&](double v, CellKind kind) {
    return bar_extent(v, kind == CellKind::finite, is_alarm(kind), top, full, min_outline);
  };
  auto bar = [&](float x0, float x1, double v, CellKind kind, ImU32 fill, bool ghost) {
    const ImU32 col = is_alarm(kind) ? pal.nonfinite : fill;
    const float bh = extent(v, kind).bar;
    if (bh <= 0) return;
    const ImVec2 p0(x0, down ? base : base - bh), p1(x1, down ? base + bh : base);
    if (ghost) {
      c.dl->AddRectFilled(p0, p1, with_alpha(col, 0.25f), 2.0f * c.s);
      c.dl->AddRect(p0, p1, col, 2.0f * c.s, 0, 1.5f * c.s);
    } else {
      c.dl->AddRectFilled(p0, p1, col, 2.0f * c.s);
    }
    if (is_alarm(kind)) hatch(c.dl, p0, p1, IM_COL32(0, 0, 0, 70), 8.0f * c.s);
  };
  for (int col = 0; col < c.cols.count(); ++col) {
    const ColumnPick p = column_pick(c, col, get, down);
    const int i = std::max(p.index, c.cols.first(col));
    const bool def = p.index >= 0;
    const double v = p.value;
    const CellKind kind = p.kind;
    const std::uint8_t marks = column_marks(c, buffer, col);
    const float x0 = c.cols.col_left(col), x1 = c.cols.col_right(col);
    // The rescale's old bar: beside the new one where there is room, else behind it.
    bool twice = false;
    double old = 0;
    if (rescale && rescale->rescale) {
      for (int e = c.cols.first(col); e < c.cols.end(col); ++e)
        if (rescale->rescaled[static_cast<std::size_t>(e)]) {
          const double o = rescale->old_value[static_cast<std::size_t>(e)];
          if (!twice || o > old) old = o;
          twice = true;
        }
    }
    // The current element's tint and outline are the bar's own height (the taller of old and
    // new), at least a small marker: a tiny value must not look like a full bar.
    float oh = extent(v, kind).outline;
    if (twice) oh = std::max(oh, extent(old, cell_kind(true, old)).outline);
    const ImVec2 o0(x0, down ? base : base - oh), o1(x1, down ? base + oh : base);
    if (marks & kMarkWrite) c.dl->AddRectFilled(o0, o1, with_alpha(pal.write, 0.12f));
    if (twice && x1 - x0 >= 6 * c.s) {
      // Old | new, side by side: the same term before and after the multiply by the factor.
      const float mid = (x0 + x1) * 0.5f;
      bar(x0, mid - 1 * c.s, old, cell_kind(true, old), colour, true);
      bar(mid + 1 * c.s, x1, v, kind, colour, false);
    } else {
      if (twice) bar(x0, x1, old, cell_kind(true, old), colour, true);
      bar(x0, x1, v, kind, colour, false);
    }
    if (def && x1 - x0 > 8) {
      std::string t = compact_number(v, 4);
      if (ImGui::CalcTextSize(t.c_str()).x > x1 - x0) t = compact_number(v, 2);
      if (ImGui::CalcTextSize(t.c_str()).x <= x1 - x0 + 2 * c.s)
        text_centered(c.dl, ImVec2(c.cols.col_centre(col), y + bar_h + label_h * 0.5f),
                      is_alarm(kind) ? pal.nonfinite : pal.text, t.c_str());
    }
    mark_outline(c.dl, pal, o0, o1, marks & kMarkWrite, c.s);
    if (c.hover_ok && ImGui::IsMouseHoveringRect(ImVec2(x0, y), ImVec2(x1, y + h))) {
      std::string title = name(i) + " = " + (def ? num(v) : std::string("not computed yet"));
      std::string body = column_note(c, col, p, name) + help;
      if (const std::string why = nonfinite_reason(c.rec, c.st, buffer, c.row, i); !why.empty())
        body = why + "\n" + body;
      if (twice && rescale->rescaled[static_cast<std::size_t>(i)])
        body = "Before this step: " + num(rescale->old_value[static_cast<std::size_t>(i)]) + " (against m = " +
               num(rescale->m_old) + "); rescaled by " + num(rescale->factor) + ".\n" + body;
      tooltip(title, body);
    }
  }
  row_label(c, y, bar_h, label, help);
  const std::string scale = down ? "0 … −" + num(top) : "0 … " + num(top);
  const float lx = c.cols.x0 - ImGui::CalcTextSize(label).x - c.fs * 1.9f;
  c.dl->AddText(ImGui::GetFont(), c.fs * 0.8f, ImVec2(lx, y + bar_h * 0.5f + c.fs * 0.6f), pal.text_dim,
                scale.c_str());
  if (rescale && rescale->rescale) {
    // The factor, under the row label: "old → × e^{m_old − m_new} → new".
    const float fy = y + bar_h * 0.5f + c.fs * 1.6f;
    const float small = c.fs * 0.8f;
    c.dl->AddText(ImGui::GetFont(), small, ImVec2(lx, fy), pal.current, "old | new:");
    const std::string f = "× " + num(rescale->factor);
    c.dl->AddText(ImGui::GetFont(), small, ImVec2(lx, fy + small * 1.1f), pal.current, f.c_str());
    const std::string e = "= e^{" + num(rescale->m_old) + " − " + num(rescale->m_new) + "}";
    draw_rich(c.dl, ImVec2(lx, fy + small * 2.3f), pal.current, e, small);
  }
  return h;
}

// Column headers x₁ … xₙ; the element(s) this step reads get an arrow.
float draw_header(const Ctx& c, float y) {
  const Palette& pal = c.in.palette;
  const float h = c.fs + 6 * c.s;
  int every = 1;
  const float label_w = ImGui::CalcTextSize("x₈₈₈₈₈").x + 4 * c.s;
  while (c.cols.col_right(0) - c.cols.col_left(0) + c.cols.gap < label_w / static_cast<float>(every)) every *= 2;
  // The columns read this step are always named; the regular labels keep clear of them.
  std::vector<int> read_cols;
  for (int col = 0; col < c.cols.count(); ++col)
    if (column_marks(c, c.b.x, col) & kMarkRead) read_cols.push_back(col);
  auto near_read = [&](int col) {
    for (int r : read_cols)
      if (r != col && std::fabs(c.cols.col_centre(r) - c.cols.col_centre(col)) < label_w) return true;
    return false;
  };
  for (int col = 0; col < c.cols.count(); ++col) {
    const bool read = std::binary_search(read_cols.begin(), read_cols.end(), col);
    if (read) {
      const float x0 = c.cols.col_left(col), x1 = std::max(c.cols.col_right(col), x0 + 2 * c.s);
      c.dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + h - 2 * c.s), with_alpha(pal.current, 0.85f),
                          3.0f * c.s);
    }
    if (!read && (col % every != 0 || near_read(col))) continue;
    // A column of many is named by the element it reads, else by its first.
    int i = c.cols.first(col);
    if (read)
      for (int e = c.cols.first(col); e < c.cols.end(col); ++e)
        if (cell_marks(c.in.step, c.b.x, c.row, e) & kMarkRead) {
          i = e;
          break;
        }
    const std::string t = "x" + sub(i + 1);
    const ImVec2 centre(c.cols.col_centre(col), y + h * 0.5f - c.s);
    if (read && c.cols.per > 1) {
      // The label is wider than its column: a plate of its own, over the neighbours.
      const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
      c.dl->AddRectFilled(ImVec2(centre.x - ts.x * 0.5f - 3 * c.s, y), ImVec2(centre.x + ts.x * 0.5f + 3 * c.s, y + h - 2 * c.s),
                          pal.current, 3.0f * c.s);
    }
    text_centered(c.dl, centre, read ? IM_COL32(20, 20, 20, 255) : pal.text_dim, t.c_str());
  }
  return h;
}

// Which worker owns each element (chunked softmax), as a band under the x cells.
float draw_worker_band(const Ctx& c, float y) {
  const Palette& pal = c.in.palette;
  const int K = c.rec.chunks;
  const float h = c.fs + 4 * c.s;
  for (int w = 0; w < K; ++w) {
    const int b0 = chunk_begin(w, c.cols.n, K), b1 = chunk_begin(w + 1, c.cols.n, K);
    if (b1 <= b0) continue;
    const float x0 = c.cols.left(b0), x1 = c.cols.right(b1 - 1);
    c.dl->AddRectFilled(ImVec2(x0, y + 2 * c.s), ImVec2(x1, y + h),
                        w % 2 ? mix(pal.cell, pal.background, 0.3f) : pal.cell, 3.0f * c.s);
    const std::string t = strf("worker %d", w + 1);
    text_fit(c.dl, ImVec2(x0 + 4 * c.s, y + 3 * c.s), pal.text_dim,
             {t.c_str(), strf("w%d", w + 1).c_str(), ""}, x1 - x0 - 6 * c.s);
  }
  return h + 2 * c.s;
}

// m, l, LSE and the rescale factor, left to right from the columns' start between `left` and
// `right`, wrapping onto another line rather than past the view's edge. Returns the height used.
float draw_registers(const Ctx& c, float y0, float left, float right) {
  const Palette& pal = c.in.palette;
  const Recording& rec = c.rec;
  const float gap = 10 * c.s;
  const float box_w = std::min(std::clamp((right - left) / 4.2f, 150.0f * c.s, 250.0f * c.s), right - left);
  float x = c.cols.x0 + box_w <= right ? c.cols.x0 : left;
  float y = y0, h = 0;  // the current line's top and height
  auto place = [&](float w) {
    if (x > left && x + w > right) {
      y += h + gap;
      h = 0;
      x = left;
    }
  };
  auto box = [&](int buffer, const char* name, const char* role) -> CellChange {
    RegisterBox r;
    r.name = name;
    r.role = role;
    r.change = cell_change(rec, c.st, c.in.playhead, buffer, c.row, 0);
    r.marks = cell_marks(c.in.step, buffer, c.row, 0);
    r.reason = nonfinite_reason(rec, c.st, buffer, c.row, 0);
    place(box_w);
    const ImVec2 sz = register_box(c.dl, pal, ImVec2(x, y), box_w, r, c.s);
    x += sz.x + gap;
    h = std::max(h, sz.y);
    return r.change;
  };
  CellChange m;
  const AlgorithmInfo& algo = info(rec.algorithm);
  if (c.b.m >= 0) m = box(c.b.m, "m", algo.global_max ? "global max" : "running max");
  CellChange l;
  if (c.b.l >= 0)
    l = box(c.b.l, "l", algo.has_max ? "sum of exp(x − m)" : "sum of exp(x)");
  if (c.b.lse >= 0) box(c.b.lse, "LSE", "m + log l");

  // The rescale factor: only the online update multiplies the old sum when the max grows.
  const bool online = algo.rescales && !algo.global_max;
  const bool in_sweep = c.in.step && c.in.step->pass == 1 && c.b.m >= 0 &&
                        (cell_marks(c.in.step, c.b.m, c.row, 0) & kMarkWrite);
  if (online && in_sweep) {
    const float fs = c.fs, pad = 6 * c.s;
    const float w = std::min(box_w * 1.35f, right - left);
    place(w);
    const ImVec2 p0(x, y), p1(x + w, y + fs * 2 + pad * 3);
    const bool rescaled =
        m.changed() && m.old_defined && std::isfinite(m.old_value) && l.old_defined && l.old_value != 0;
    c.dl->AddRectFilled(
        p0, p1, rescaled ? mix(pal.background, pal.current, 0.22f) : mix(pal.background, pal.cell, 0.5f),
        5.0f * c.s);
    c.dl->AddRect(p0, p1, rescaled ? pal.current : pal.grid, 5.0f * c.s, 0, rescaled ? 2.0f * c.s : 1.0f);
    c.dl->AddText(ImVec2(p0.x + pad, p0.y + pad), pal.text, "rescale of the old l");
    help_marker_at(ImVec2(p0.x + pad + ImGui::CalcTextSize("rescale of the old l").x + 6 * c.s, p0.y + pad),
                   "The old sum l was computed against the old max m. When the max grows to m′, every "
                   "term e^{xᵢ − m} must become e^{xᵢ − m′}: multiplying the whole sum by "
                   "e^{m − m′} does that in one step, without re-reading x.");
    std::string t;
    if (rescaled)
      t = "× e^{" + num(m.old_value) + " − " + num(m.new_value) + "} = " + num(std::exp(m.old_value - m.new_value));
    else if (m.changed())
      t = "old l = 0: nothing to rescale";
    else
      t = "m unchanged: × e^{0} = 1";
    const ImVec2 tp(p0.x + pad, p0.y + pad * 2 + fs);
    if (draw_rich(c.dl, tp, 0, t, fs, true) <= p1.x - p0.x - 2 * pad)
      draw_rich(c.dl, tp, rescaled ? pal.text : pal.text_dim, t, fs);
    h = std::max(h, p1.y - p0.y);
  }
  return y - y0 + h;
}

// Every row as a thin strip (y where computed, else x); click one to pin it.
float draw_row_strips(const Ctx& c, float y, float max_h, VectorViewOptions& opt) {
  const Palette& pal = c.in.palette;
  const Recording& rec = c.rec;
  const int rows = rec.rows;
  const float strip_h = std::clamp((max_h - c.fs - 4 * c.s) / static_cast<float>(rows), 2.0f, 12.0f * c.s);
  const int shown = std::min(rows, static_cast<int>((max_h - c.fs) / strip_h));
  if (shown <= 0) return 0;
  c.dl->AddText(ImVec2(c.cols.x0, y), pal.text_dim, "all rows (click to pin one; y where computed, else x)");
  y += c.fs + 4 * c.s;
  const ValueRange rx = buffer_range(rec, c.b.x);
  const float x_end = c.cols.x0 + c.cols.cw * static_cast<float>(c.cols.n);
  for (int r = 0; r < shown; ++r) {
    const float y0 = y + strip_h * static_cast<float>(r), y1 = y0 + strip_h - (strip_h > 4 ? 1 : 0);
    const int nc = rec.buffers[c.b.x].cols;
    for (int col = 0; col < c.cols.count(); ++col) {
      // y where computed, else x; a column of many shows its largest (nan or inf first).
      ColumnPick py, px;
      for (int i = c.cols.first(col); i < c.cols.end(col); ++i) {
        if (c.b.y >= 0 && c.st.is_defined(c.b.y, r, i, nc)) pick_into(py, i, true, c.st.at(c.b.y, r, i, nc));
        else pick_into(px, i, true, c.st.at(c.b.x, r, i, nc));
      }
      const ImU32 col_y = cell_fill(pal, py.kind, static_cast<float>(std::clamp(py.value, 0.0, 1.0)));
      const ImU32 col_x = mix(cell_fill(pal, px.kind, rx.t(px.value)), pal.background, 0.55f);
      c.dl->AddRectFilled(ImVec2(c.cols.col_left(col) - c.cols.gap * 0.5f, y0),
                          ImVec2(c.cols.col_right(col) + c.cols.gap * 0.5f, y1), py.index >= 0 ? col_y : col_x);
    }
    const std::string lab = strf("%d", r + 1);
    c.dl->AddText(ImGui::GetFont(), std::min(c.fs, strip_h * 1.2f),
                  ImVec2(c.cols.x0 - ImGui::CalcTextSize(lab.c_str()).x - 4 * c.s, y0),
                  r == c.row ? pal.text : pal.text_dim, lab.c_str());
    if (r == c.row)
      outline(c.dl, ImVec2(c.cols.x0 - 1, y0 - 1), ImVec2(x_end + 1, y1 + 1), pal.current, 2.0f * c.s);
    if (c.hover_ok && ImGui::IsMouseHoveringRect(ImVec2(c.cols.x0, y0), ImVec2(x_end, y1))) {
      ImGui::SetTooltip("row %d", r + 1);
      if (ImGui::IsMouseClicked(0)) opt.row = r;
    }
  }
  return c.fs + 4 * c.s + strip_h * static_cast<float>(shown);
}

}  // namespace

static void draw_vector_view_body(const ViewInput& in, VectorViewOptions& opt) {
  const Recording& rec = in.rec;
  const Buffers b(rec);
  if (b.x < 0 || rec.n <= 0 || rec.initial.values.empty()) {
    ImGui::TextDisabled("This lesson has no vector to show.");
    return;
  }
  const float s = in.ui_scale, fs = ImGui::GetFontSize();
  if (opt.show_toolbar && rec.rows > 1) {
    bool follow = opt.row < 0;
    if (ImGui::Checkbox("follow the step's row", &follow)) opt.row = follow ? -1 : step_row(in.step, 0);
    help_marker(
        "Each row of x is its own softmax with its own m and l. Follow the step, or pin one row "
        "(click a strip below) to watch it while the steps go on.");
    if (!follow) {
      ImGui::SameLine();
      int r = opt.row + 1;
      ImGui::SetNextItemWidth(140 * s);
      if (ImGui::SliderInt("row", &r, 1, rec.rows)) opt.row = r - 1;
    }
  }
  const int row = std::clamp(opt.row >= 0 ? opt.row : step_row(in.step, 0), 0, rec.rows - 1);

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = ImGui::CalcTextSize(rec.scale != 1.0 ? "exp(s·x − m)" : "exp(x − m)").x + fs * 2.4f;
  const float usable = std::max(avail.x - label_w - 8 * s, 40.0f);
  Columns cols;
  cols.n = rec.n;
  cols.x0 = origin.x + label_w;
  // Wide enough to fill a projector with a short vector, not so wide a bar reads as a block.
  cols.cw = std::min(usable / static_cast<float>(rec.n), 170.0f * s);
  cols.gap = cols.cw >= 20 ? 6.0f * s : (cols.cw >= 6 ? 1.0f : 0.0f);
  cols.per = decimation(cols.cw, 2.0f);

  Ctx c{in,  rec,  in.cursor.state(),       b, ImGui::GetWindowDrawList(), s, fs,
        row, cols, ImGui::IsWindowHovered()};
  const Palette& pal = in.palette;
  float y = origin.y;
  if (rec.rows > 1) {
    const std::string t = strf("row %d of %d", row + 1, rec.rows);
    c.dl->AddText(ImVec2(origin.x, y), pal.text, t.c_str());
  }
  y += draw_header(c, y);
  // A faint column band ties the element being read to its e and y below.
  const float band_top = y;
  y += draw_x_cells(c, y) + 4 * s;
  if (rec.scale != 1.0) y += draw_scaled(c, y) + 4 * s;
  if (info(rec.algorithm).takes_workers && rec.chunks > 0) y += draw_worker_band(c, y);
  y += 6 * s;
  const float reserve = fs * 2 + 18 * s + 16 * s + fs * 1.6f + (rec.rows > 1 && opt.show_rows ? 60 * s : 0) +
                        (cols.per > 1 ? ImGui::GetTextLineHeightWithSpacing() : 0);
  const float bar_h = std::clamp((avail.y - (y - origin.y) - reserve) / 2.0f - 8 * s, 46.0f * s, 130.0f * s);
  const bool naive = !info(rec.algorithm).has_max;
  const bool log_y = b.lse >= 0;
  if (b.e >= 0) {
    const bool scaled = rec.scale != 1.0;
    const ExpBars bars = exp_bars(rec, c.st, in.playhead, row);
    const char* e_label = naive ? (scaled ? "exp(s·x)" : "exp(x)") : (scaled ? "exp(s·x − m)" : "exp(x − m)");
    y += draw_bars(
             c, y, bar_h, b.e, pal.bar_exp, e_label,
             naive ? "e^{x} of each element, with nothing subtracted: for large x this overflows to ∞. "
                     "The bars sum to l."
                   : "e^{x − m} of each element summed so far, against the m of this moment: the term it "
                     "adds to l, so the bars sum to l. Subtracting the max keeps every exponent ≤ 0, so "
                     "each term is at most 1 and cannot overflow. When m grows, the terms already summed "
                     "shrink by e^{m − m′} (m the old max, m′ the new): old and new bar side by side.",
             [&](int i) {
               const std::string x = (scaled ? "s·x" : "x") + sub(i + 1);
               return naive ? "exp(" + x + ")" : "exp(" + x + " − m)";
             },
             !naive,
             [&](int i) -> std::optional<double> {
               const std::size_t k = static_cast<std::size_t>(i);
               if (k >= bars.drawn.size() || !bars.drawn[k]) return std::nullopt;
               return bars.value[k];
             },
             &bars) +
         8 * s;
  }
  if (b.y >= 0) {
    y += draw_bars(
             c, y, bar_h, b.y, pal.bar_y, log_y ? "log y" : "y",
             log_y ? "log-softmax log y_{i} = x_{i} − LSE, written to HBM. It is ≤ 0, so the bars hang down."
                   : naive ? "The output y_{i} = e^{xᵢ} / l, written to HBM. The bars sum to 1."
                           : "The output y_{i} = e^{xᵢ − m} / l, written to HBM. The bars sum to 1.",
             [&](int i) { return (log_y ? "log y" : "y") + sub(i + 1); }, !log_y,
             [&](int i) -> std::optional<double> {
               bool def = false;
               const double v = value(c, b.y, i, &def);
               return def ? std::optional<double>(v) : std::nullopt;
             }) +
         8 * s;
  }
  const float band_bottom = y - 8 * s;
  if (in.step)
    for (const Region& g : in.step->reads)
      if (g.buffer == b.x && g.r0 <= row && row < g.r1)
        for (int col = std::max(g.c0, 0) / cols.per; col <= (std::min(g.c1, cols.n) - 1) / cols.per; ++col)
          c.dl->AddRectFilled(ImVec2(cols.col_left(col) - 2 * s, band_top),
                              ImVec2(cols.col_right(col) + 2 * s, band_bottom), with_alpha(pal.current, 0.07f),
                              4.0f * s);
  y += 4 * s;
  y += draw_registers(c, y, origin.x, origin.x + avail.x) + 10 * s;
  if (rec.rows > 1 && opt.show_rows) {
    const float left = std::max(origin.y + avail.y - y - fs * 1.8f, 0.0f);
    y += draw_row_strips(c, y, std::min(left, 16.0f * s * static_cast<float>(rec.rows) + fs), opt) + 6 * s;
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, y));
  if (cols.per > 1) {
    const std::string t = strf("%d elements, %d per column: each shows its largest (nan, ∞ first)", rec.n, cols.per);
    text_fit(ImGui::GetWindowDrawList(), ImGui::GetCursorScreenPos(), pal.text_dim,
             {t.c_str(), strf("%d per column: each shows its largest", cols.per).c_str(),
              strf("%d per column", cols.per).c_str()},
             avail.x);
    ImGui::Dummy(ImVec2(1, ImGui::GetTextLineHeight()));
  }
  mark_legend(pal, s, false);
  ImGui::Dummy(ImVec2(avail.x, 1));
}

// One ID scope per options struct, so two copies of the view (compare mode) never share
// widgets, child windows or textures.
void draw_vector_view(const ViewInput& in, VectorViewOptions& opt) {
  ImGui::PushID(&opt);
  draw_vector_view_body(in, opt);
  ImGui::PopID();
}

}  // namespace flashstep::ui
