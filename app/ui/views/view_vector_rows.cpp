// The vector view's rows (view_vector_rows.h).
#include "app/ui/views/view_vector_rows.h"

#include "app/ui/views/hit_map.h"
#include "app/ui/views/view_logic.h"
#include "app/ui/widgets.h"
#include "core/algorithms.h"
#include "core/text.h"

#include <algorithm>
#include <cmath>

namespace flashstep::ui::vector_view {

double value(const Ctx& c, int buffer, int col, bool* defined) {
  const int cols = c.rec.buffers[buffer].cols;
  *defined = c.st.is_defined(buffer, c.row, col, cols);
  return c.st.at(buffer, c.row, col, cols);
}

// The element drawn column `col` shows, from `get` (nullopt: not defined), and whether any
// element of the column is marked read or written this step.
ColumnPick column_pick(const Ctx& c, int col, const BarValue& get, bool by_magnitude) {
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

void cell_tooltip(const Ctx& c, int buffer, int i, const std::string& name, const std::string& about) {
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

std::vector<std::string> column_numbers(const Ctx& c, const std::vector<std::optional<double>>& values,
                                        float size, const std::function<float(int)>& room) {
  const int group = c.numbers ? static_cast<int>(c.numbers->size()) : 0;  // this row's
  return fitted_numbers(values, size, room, 4, c.numbers, group);
}

// x as cells with their values; returns the height used.
float draw_x_cells(const Ctx& c, float y) {
  const Palette& pal = c.in.palette;
  const float h = std::max(c.fs * 1.9f, 28.0f * c.s);
  const ValueRange range = buffer_range(c.rec, c.b.x);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const BarValue get = buffer_value(c, c.b.x);
  auto name = [](int i) { return "x" + sub(i + 1); };
  std::vector<ColumnPick> picks;
  std::vector<std::optional<double>> values;
  for (int col = 0; col < c.cols.count(); ++col) {
    picks.push_back(column_pick(c, col, get));
    values.emplace_back(picks.back().value);
  }
  const std::vector<std::string> numbers =
      column_numbers(c, values, value_cell_text_size(h),
                     [&](int col) { return value_cell_room(c.cols.col_left(col), c.cols.col_right(col)); });
  for (int col = 0; col < c.cols.count(); ++col) {
    const ColumnPick& p = picks[static_cast<std::size_t>(col)];
    const int i = std::max(p.index, c.cols.first(col));
    const double v = p.value;
    const CellKind kind = p.kind;
    const ImVec2 p0(c.cols.col_left(col), y), p1(c.cols.col_right(col), y + h);
    value_cell(c.dl, pal, p0, p1, cell_fill(pal, kind, range.t(v)), numbers[static_cast<std::size_t>(col)].c_str(),
               column_marks(c, c.b.x, col), c.s);
    if (c.in.hits)
      c.in.hits->add_strip(HitKind::cell, c.b.x, c.row, c.cols.first(col), c.cols.end(col),
                           Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, true});
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
  std::vector<std::optional<double>> values;
  for (int i = 0; c.cols.per == 1 && i < c.cols.n; ++i) {
    bool def = false;
    values.emplace_back(value(c, c.b.x, i, &def) * c.rec.scale);
  }
  const std::vector<std::string> numbers = column_numbers(
      c, values, ImGui::GetFontSize(), [&](int i) { return c.cols.right(i) - c.cols.left(i) + 2 * c.s; });
  for (std::size_t i = 0; i < numbers.size(); ++i)
    if (!numbers[i].empty())
      text_centered(c.dl, ImVec2(c.cols.centre(static_cast<int>(i)), y + h * 0.5f), pal.text_dim, numbers[i].c_str());
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
                const ExpBars* rescale) {
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
  // No number under a bar in motion: between two steps it is no value the run held.
  std::vector<ColumnPick> picks;
  std::vector<std::optional<double>> values;
  for (int col = 0; col < c.cols.count(); ++col) {
    picks.push_back(column_pick(c, col, get, down));
    const bool moving = c.in.tween && c.cols.per == 1;
    values.push_back(picks.back().index >= 0 && !moving ? std::optional<double>(picks.back().value) : std::nullopt);
  }
  const std::vector<std::string> numbers = column_numbers(c, values, ImGui::GetFontSize(), [&](int col) {
    const float w = c.cols.col_right(col) - c.cols.col_left(col);
    return w > 8 ? w + 2 * c.s : 0.0f;
  });
  for (int col = 0; col < c.cols.count(); ++col) {
    const ColumnPick& p = picks[static_cast<std::size_t>(col)];
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
    if (const std::string& t = numbers[static_cast<std::size_t>(col)]; !t.empty())
      text_centered(c.dl, ImVec2(c.cols.col_centre(col), y + bar_h + label_h * 0.5f),
                    is_alarm(kind) ? pal.nonfinite : pal.text, t.c_str());
    mark_outline(c.dl, pal, o0, o1, marks & kMarkWrite, c.s);
    if (c.in.hits)  // the bar's slot, its number under it included
      c.in.hits->add_strip(HitKind::bar, buffer, c.row, c.cols.first(col), c.cols.end(col),
                           Rect{x0, y, x1 - x0, h, true});
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
  // The scale under the label, ending clear of the first column where it is the wider
  // ("0 … −4.1852" under "log y" ran into x₁'s bar).
  const float scale_w = ImGui::GetFont()->CalcTextSizeA(c.fs * 0.8f, 1e9f, 0.0f, scale.c_str()).x;
  const float sx = std::max(std::min(lx, c.cols.x0 - 6 * c.s - scale_w), ImGui::GetWindowPos().x + 2 * c.s);
  c.dl->AddText(ImGui::GetFont(), c.fs * 0.8f, ImVec2(sx, y + bar_h * 0.5f + c.fs * 0.6f), pal.text_dim,
                scale.c_str());
  if (rescale && rescale->rescale) {
    // The factor, under the row label: "old → × e^{m_old − m_new} → new".
    const float fy = y + bar_h * 0.5f + c.fs * 1.6f;
    const float small = c.fs * 0.8f;
    // In the highlight's colour, darkened towards the text on a light theme, where its reddish
    // purple is pale on white (2.7:1) for words this small.
    const ImU32 ink = pal.light ? mix(pal.current, pal.text, 0.45f) : pal.current;
    c.dl->AddText(ImGui::GetFont(), small, ImVec2(lx, fy), ink, "old | new:");
    const std::string f = "× " + num(rescale->factor);
    c.dl->AddText(ImGui::GetFont(), small, ImVec2(lx, fy + small * 1.1f), ink, f.c_str());
    const std::string e = "= e^{" + num(rescale->m_old) + " − " + num(rescale->m_new) + "}";
    draw_rich(c.dl, ImVec2(lx, fy + small * 2.3f), ink, e, small);
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

}  // namespace flashstep::ui::vector_view
