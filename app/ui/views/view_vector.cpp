#include "app/ui/views/view_vector.h"

#include "app/ui/views/hit_map.h"
#include "app/ui/views/vector_bars.h"
#include "app/ui/views/view_vector_rows.h"
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

using namespace vector_view;

// m, l, LSE and the rescale factor, left to right from the columns' start between `left` and
// `right`, wrapping onto another line rather than past the view's edge. Returns the height used.
// With `draw` false nothing is drawn: the height of the most this view shows at any step (the
// rescale factor as in online softmax's first pass; beside another view, m, l, the LSE where there
// is one and the rescale factor, whatever the algorithm), the room the bars above leave for them, so
// that the bars keep their size from step to step and two views side by side keep theirs level.
// `drawn`: where to put what the boxes say, when drawn.
float draw_registers(const Ctx& c, float y0, float left, float right, bool draw = true,
                     VectorViewOptions::Drawn* drawn = nullptr) {
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
  auto box = [&](int buffer, const char* name, const char* role, const char* role_short = "") -> CellChange {
    place(box_w);
    ImVec2 sz(box_w, register_box_height(c.s));
    CellChange change;
    if (draw) {
      RegisterBox r;
      r.name = name;
      r.role = role;
      r.role_short = role_short;
      r.change = cell_change(rec, c.st, c.in.playhead, buffer, c.row, 0);
      r.marks = cell_marks(c.in.step, buffer, c.row, 0);
      r.reason = nonfinite_reason(rec, c.st, buffer, c.row, 0);
      if (c.in.tween) r.fade = c.in.tween->t;
      sz = register_box(c.dl, pal, ImVec2(x, y), box_w, r, c.s, drawn ? &drawn->registers.emplace_back() : nullptr);
      if (c.in.hits) c.in.hits->add_register(buffer, c.row, name, Rect{x, y, sz.x, sz.y, true});
      change = r.change;
    }
    x += sz.x + gap;
    h = std::max(h, sz.y);
    return change;
  };
  CellChange m;
  const AlgorithmInfo& algo = info(rec.algorithm);
  const bool most = !draw && c.in.side_by_side;  // the room for every register any algorithm shows
  if (c.b.m >= 0 || most) m = box(c.b.m, "m", algo.global_max ? "global max" : "running max");
  CellChange l;
  if (c.b.l >= 0 || most)
    // With a scale (the 1/√d lab), the sum is of exp(s·x − m), as the row and the sentences say.
    l = box(c.b.l, "l",
            rec.scale != 1.0 ? (algo.has_max ? "sum of exp(s·x − m)" : "sum of exp(s·x)")
            : algo.has_max   ? "sum of exp(x − m)"
                             : "sum of exp(x)",
            rec.scale != 1.0 ? (algo.has_max ? "∑ exp(s·x − m)" : "∑ exp(s·x)")
            : algo.has_max   ? "∑ exp(x − m)"
                             : "∑ exp(x)");
  if (c.b.lse >= 0) box(c.b.lse, "LSE", "m + log l");

  // The rescale factor: only the online update multiplies the old sum when the max grows.
  const bool online = algo.rescales && !algo.global_max;
  const bool in_sweep = c.in.step && c.in.step->pass == 1 && c.b.m >= 0 &&
                        (cell_marks(c.in.step, c.b.m, c.row, 0) & kMarkWrite);
  if ((online && (in_sweep || !draw)) || most) {
    const float fs = c.fs, pad = 6 * c.s;
    const float w = std::min(box_w * 1.35f, right - left);
    place(w);
    const ImVec2 p0(x, y), p1(x + w, y + register_box_height(c.s));
    if (!draw) return y - y0 + std::max(h, p1.y - p0.y);
    const bool rescaled =
        m.changed() && m.old_defined && std::isfinite(m.old_value) && l.old_defined && l.old_value != 0;
    c.dl->AddRectFilled(
        p0, p1, rescaled ? mix(pal.background, pal.current, 0.22f) : mix(pal.background, pal.cell, 0.5f),
        5.0f * c.s);
    c.dl->AddRect(p0, p1, rescaled ? pal.current : pal.grid, 5.0f * c.s, 0, rescaled ? 2.0f * c.s : 1.0f);
    if (c.in.hits) c.in.hits->add_register(-1, c.row, "rescale", Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y, true});
    c.dl->AddText(ImVec2(p0.x + pad, p0.y + pad), pal.text, "rescale of the old l");
    help_marker_at(ImVec2(p0.x + pad + ImGui::CalcTextSize("rescale of the old l").x + 6 * c.s, p0.y + pad),
                   "The old sum l was computed against the old max m. When the max grows to m′, every "
                   "term e^{xᵢ − m} must become e^{xᵢ − m′}: multiplying the whole sum by "
                   "e^{m − m′} does that in one step, without re-reading x.");
    // The longest way of saying it that fits the box (at 1280 × 800 "old l = 0: nothing to
    // rescale" did not, and the box stood empty at the first step).
    std::vector<std::string> says;
    if (rescaled) {
      const std::string factor = num(std::exp(m.old_value - m.new_value));
      says = {"× e^{" + num(m.old_value) + " − " + num(m.new_value) + "} = " + factor, "× " + factor};
    } else if (m.changed()) {
      says = {"old l = 0: nothing to rescale", "old l = 0: none", "none"};
    } else {
      says = {"m unchanged: × e^{0} = 1", "× e^{0} = 1", "× 1"};
    }
    const ImVec2 tp(p0.x + pad, p0.y + pad * 2 + fs);
    for (const std::string& t : says)
      if (draw_rich(c.dl, tp, 0, t, fs, true) <= p1.x - p0.x - 2 * pad) {
        draw_rich(c.dl, tp, rescaled ? pal.text : pal.text_dim, t, fs);
        if (drawn) drawn->rescale = t;
        break;
      }
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

bool vector_view_draws(const Recording& rec) {
  return rec.find_buffer("x") >= 0 && rec.n > 0 && !rec.initial.values.empty();
}

static void draw_vector_view_body(const ViewInput& in, VectorViewOptions& opt) {
  const Recording& rec = in.rec;
  const Buffers b(rec);
  if (!vector_view_draws(rec)) {
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
  opt.drawn.numbers.clear();
  c.numbers = &opt.drawn.numbers;
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
  const float registers_h = draw_registers(c, 0, origin.x, origin.x + avail.x, false);
  const float reserve = registers_h + 16 * s + fs * 1.6f + (rec.rows > 1 && opt.show_rows ? 60 * s : 0) +
                        (cols.per > 1 ? ImGui::GetTextLineHeightWithSpacing() : 0);
  // Down to 24 px a bar at font 1×: in the Compare tab's columns the bars give way before the
  // registers and the sentences do. While the shell can still draw the view smaller (Compare, a
  // slide, a font made larger: ViewInput::shrinks), they keep 46 px and what does not fit makes
  // it do so: bars 24 px high at a scale of 2 read as flat lines under registers twice their size.
  const bool can_shrink = in.shrinks && in.ui_scale > in.floor_s() + 1e-3f;
  const float bar_h =
      std::clamp((avail.y - (y - origin.y) - reserve) / 2.0f - 8 * s, (can_shrink ? 46.0f : 24.0f) * s, 130.0f * s);
  opt.drawn.bar_px = bar_h;
  const bool naive = !info(rec.algorithm).has_max;
  const bool log_y = b.lse >= 0;
  // Bars move between steps where each stands for one element: with many per column a move
  // would cost a frame's time for changes too small to see (the registers still move).
  const Tween* bar_tween = cols.per == 1 ? in.tween : nullptr;
  if (b.e >= 0) {
    const bool scaled = rec.scale != 1.0;
    // Moving between steps: each bar from its value at the step left to its value now.
    const ExpBars bars = bar_tween ? tween_exp_bars(rec, *bar_tween->from, bar_tween->from_step, c.st, in.playhead,
                                                    row, bar_tween->t)
                                   : exp_bars(rec, c.st, in.playhead, row);
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
               double v = value(c, b.y, i, &def);
               if (bar_tween) {  // a y written by this step grows from nothing (or from its old value)
                 const int nc = rec.buffers[b.y].cols;
                 const bool was = bar_tween->from->is_defined(b.y, row, i, nc);
                 const double old = was ? bar_tween->from->at(b.y, row, i, nc) : 0.0;
                 v = tween_value(true, old, true, def ? v : 0.0, bar_tween->t);
                 def = def || was;
               }
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
  opt.drawn.rescale.clear();
  opt.drawn.registers.clear();
  y += draw_registers(c, y, origin.x, origin.x + avail.x, true, &opt.drawn) + 10 * s;
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
  ImGui::Dummy(ImVec2(avail.x, 0));  // the view's width; no height past the legend
}

// One ID scope per options struct, so two copies of the view (compare mode) never share
// widgets, child windows or textures.
void draw_vector_view(const ViewInput& in, VectorViewOptions& opt) {
  ImGui::PushID(&opt);
  draw_vector_view_body(in, opt);
  ImGui::PopID();
}

}  // namespace flashstep::ui
