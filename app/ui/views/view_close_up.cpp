#include "app/ui/views/view_close_up.h"

#include "app/ui/views/hit_map.h"
#include "app/ui/views/tile_states.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <algorithm>
#include <string>

namespace flashstep::ui {

namespace {

// One item of the close-up (close_up.h) as laid out.
struct Item : CloseUpItem {
  int cols_shown = 0;  // fewer than c1 − c0 when the width does not hold them all ("…" after)
  float cell_w = 0;    // its cells' width: the close-up's, or narrower so that every column shows
  float x = 0, y = 0;  // top left of its cells, relative to the close-up
};

struct Sizes {
  float text = 11, cell_w = 40, cell_h = 18, title_h = 16, label_w = 20, gap = 12, heading_h = 16;
  // The heading's text ("Q block i = 2: queries 17–32 · rows 1–6 of 16"): the numbers' size, or
  // the row labels' largest where the numbers are smaller (many columns), so that it stays a
  // caption a room can read.
  float heading_text = 11;
  float narrowest = 30;  // a cell that still holds "−0.3" (its number drawn with fewer digits)
  float sp = 1;          // the spaces' scale: pad(), going down with the numbers
  int max_rows = 1 << 30;  // query rows shown at most
  bool inline_titles = false;  // each title left of its cells instead of on a line above them
};

// The padding around a number: the UI scale's, or less with numbers made smaller than their
// size at this scale (a large font that leaves no room), so cells shrink with their numbers.
float pad(const CloseUpDraw& c, float text) { return std::min(c.s, text / kMinCellTextPx); }

Sizes sizes(const CloseUpDraw& c, float text) {
  Sizes z;
  z.text = text;
  ImFont* f = ImGui::GetFont();
  const float p = pad(c, text);
  z.sp = p;
  z.cell_w = f->CalcTextSizeA(z.text, 1e9f, 0, "−0.00").x + 7 * p;
  z.narrowest = f->CalcTextSizeA(z.text, 1e9f, 0, "−0.3").x + 6 * p;
  z.cell_h = z.text + 5 * p;
  z.title_h = c.fs + 4 * p;
  z.label_w = f->CalcTextSizeA(z.text * 0.9f, 1e9f, 0, "100").x + 6 * p;
  z.gap = std::max(8.0f * p, c.fs * 0.5f);
  z.heading_h = 0;  // the heading shares the titles' line
  z.heading_text = std::max(text, std::min(c.fs * 0.8f, 13.0f * c.s));
  return z;
}

// The items of a close-up (close_up.h), their query rows those of `cu` (a page of the step's),
// their key rows from the `key_skip`-th on (the same page of the key rows).
void collect(const Recording& rec, const CloseUp& cu, std::vector<Item>& items, int key_skip = 0) {
  for (const CloseUpItem& it : cu.items) {
    Item x;
    static_cast<CloseUpItem&>(x) = it;
    if (!x.key_rows) x.r0 = cu.r0, x.r1 = std::min(cu.r1, rec.buffers[static_cast<std::size_t>(x.buffer)].rows);
    else x.r0 += key_skip;
    if (x.r1 > x.r0) items.push_back(std::move(x));
  }
}

// The items laid out left to right, a new line when the width is used up and before the first
// one with key rows. Returns the height. `big`: the recording's largest close-up.
float lay_out(const CloseUpDraw& c, const CloseUp& cu, const CloseUp& big, float w, const Sizes& z,
              std::vector<Item>& items, int key_skip = 0) {
  collect(c.in.rec, cu, items, key_skip);
  for (Item& it : items) it.r1 = std::min(it.r1, it.r0 + z.max_rows);
  // Flow: each item takes label + cells; the row labels are drawn once per line, as high as the
  // line's items.
  auto rows_of = [&](const Item& it) { return static_cast<float>(it.r1 - it.r0) * z.cell_h; };
  float rows_h = items.empty() ? 0.0f : rows_of(items.front());
  // Inline titles: the heading takes a line of its own, and no line has a title line above it.
  const float title_h = z.inline_titles ? 0.0f : z.title_h;
  float x = z.label_w, y = z.inline_titles ? z.heading_text + 4 * z.sp : z.heading_h + z.title_h;
  // Inline titles take the room of the widest any step has (the last tile's subscripts), so the
  // cells of the lines start in one column, at the same place at every step.
  float tw = 0;
  if (z.inline_titles) {
    std::vector<Item> widest;
    collect(c.in.rec, big, widest);
    for (const Item& it : widest) tw = std::max(tw, draw_rich(nullptr, ImVec2(0, 0), 0, it.title, c.fs, true) + 8 * z.sp);
  }
  for (Item& it : items) {
    const int cols = it.c1 - it.c0;
    const float room = w - z.label_w - tw;
    int shown = std::max(1, std::min(cols, static_cast<int>((room - z.cell_w * 0.6f) / z.cell_w)));
    if (shown >= cols) shown = cols;
    it.cell_w = z.cell_w;
    // A row wider than the line: narrower cells (fewer digits) while "−0.3" still fits, so that
    // every number of the row shows; beyond that, its first columns and "…".
    if (shown < cols && room / static_cast<float>(cols) >= z.narrowest) {
      it.cell_w = room / static_cast<float>(cols);
      shown = cols;
    }
    const float iw = tw + static_cast<float>(shown) * it.cell_w + (shown < cols ? it.cell_w * 0.6f : 0.0f);
    const bool keys_start = it.key_rows && &it != &items.front() && !(&it - 1)->key_rows;
    if (x > z.label_w && (x + iw > w || keys_start)) {
      x = z.label_w;
      y += rows_h + title_h + 4 * z.sp;
      rows_h = rows_of(it);
    }
    rows_h = std::max(rows_h, rows_of(it));
    it.cols_shown = shown;
    it.x = x + tw, it.y = y;
    x += iw + z.gap;
  }
  return items.empty() ? 0.0f : y + rows_h + 2 * z.sp;
}

// The sizes at text size t for the largest close-up of the recording in width w: its cells on
// one line where that leaves each room for "−0.00" (as wide as that leaves, up to room for
// "−0.000"), else as wide as "−0.00" on several lines. `one_line` says which.
Sizes at_text(const CloseUpDraw& c, const CloseUp& big, float w, float t, bool& one_line) {
  ImFont* f = ImGui::GetFont();
  auto text_w = [&](const char* sample) { return f->CalcTextSizeA(t, 1e9f, 0, sample).x; };
  std::vector<Item> items;
  collect(c.in.rec, big, items);
  int cells = 0;
  for (const Item& it : items) cells += it.c1 - it.c0;
  Sizes z = sizes(c, t);
  const float p = pad(c, t);
  const float cw = (w - z.label_w - z.gap * static_cast<float>(std::max<std::size_t>(items.size(), 1) - 1)) /
                   static_cast<float>(std::max(cells, 1));
  one_line = cw >= text_w("−0.00") + 6 * p;
  z.cell_w = one_line ? std::min(cw, text_w("−0.000") + 8 * p) : cw >= text_w("0.00") + 4 * p ? cw : text_w("−0.00") + 6 * p;
  return z;
}

// The sizes for the largest close-up of the recording in width w, the same at every step: the
// numbers as large as one line of cells takes, from the label size down to kMinCellTextPx;
// several lines only where one line would leave a cell too narrow for "−0.0". Then as many of
// the step's query rows as the height allows, each title on a line of its own above its cells
// or, where that leaves room for more rows (a 16 × 16 tile beside O's 16 columns wraps onto a
// line per matrix), left of them; where not even one row fits (a font made larger with
// Ctrl+=), the numbers get smaller, down to kMinCellTextPx at font 1× (ViewInput::floor_scale).
Sizes fitted(const CloseUpDraw& c, const CloseUp& big, float w) {
  const float lo = kMinCellTextPx * c.s, hi = std::max(lo, std::min(c.fs * 0.8f, 13.0f * c.s));
  const float floor = std::min(lo, kMinCellTextPx * c.in.floor_s());
  bool one_line = false;
  float t = hi;
  for (;;) {
    at_text(c, big, w, t, one_line);
    if (one_line || t <= lo) break;
    t = std::max(lo, t - 0.5f * c.s);
  }
  const CloseUp& cu = big;
  // The most rows an item has: the query rows, or a K/V block's key rows.
  int most = cu.r1 - cu.r0;
  for (const CloseUpItem& it : cu.items) most = std::max(most, it.r1 - it.r0);
  Sizes z;
  for (; t >= floor; t -= 0.5f * c.in.floor_s()) {
    z = at_text(c, big, w, t, one_line);
    for (int rows = most; rows >= 1; --rows) {
      z.max_rows = rows;
      for (bool inline_titles : {false, true}) {
        z.inline_titles = inline_titles;
        // Fewer rows than the step has: the heading, which says which rows, takes a line of its
        // own so that it is always there (inline titles give it one anyway).
        z.heading_h = rows < cu.r1 - cu.r0 && !inline_titles ? z.heading_text + 4 * z.sp : 0.0f;
        std::vector<Item> items;
        if (lay_out(c, cu, big, w, z, items) <= c.max_h) return z;
      }
    }
  }
  z.max_rows = 1;
  return z;
}

}  // namespace

float close_up_height(const CloseUpDraw& c, float w) {
  std::vector<Item> items;
  const CloseUp big = close_up_largest(c.in.rec);
  return lay_out(c, big, big, w, fitted(c, big, w), items);
}

CloseUpShown draw_close_up(const CloseUpDraw& c, const CloseUp& cu, ImDrawList* dl, ImVec2 p, float w) {
  const CloseUp big = close_up_largest(c.in.rec);
  Sizes z = fitted(c, big, w);
  // The page of rows asked for: the step's query rows z.max_rows at a time, and as many of its
  // key rows (dKⱼ, dVⱼ), where it has more of those.
  CloseUpShown out;
  int key_rows = 0;
  for (const CloseUpItem& it : cu.items)
    if (it.key_rows) key_rows = std::max(key_rows, it.r1 - it.r0);
  const int query_rows = cu.r1 - cu.r0, rows = std::max(query_rows, key_rows);
  // The close-up is as high at every step as the largest needs, its numbers as large. A step
  // with fewer items (fewer lines) holds more of its rows in that height: as many as fit, all
  // where they do, rather than paging through them with the room left empty below (the
  // FlashAttention-2 backward's D step: two rows of four, the largest step's share).
  if (z.max_rows < rows) {
    std::vector<Item> scratch;
    const float height = lay_out(c, big, big, w, z, scratch);
    for (int r = rows; r > z.max_rows; --r) {
      Sizes more = z;
      more.max_rows = r;
      more.heading_h = r < rows && !z.inline_titles ? z.heading_text + 4 * z.sp : 0.0f;
      scratch.clear();
      if (lay_out(c, cu, big, w, more, scratch) <= height) {
        z = more;
        break;
      }
    }
  }
  out.pages = std::max(1, (rows + z.max_rows - 1) / z.max_rows);
  out.page = std::clamp(c.page, 0, out.pages - 1);
  CloseUp shown = cu;
  shown.r0 = std::min(cu.r1, cu.r0 + out.page * z.max_rows);
  shown.r1 = std::min(cu.r1, shown.r0 + z.max_rows);
  out.r0 = shown.r0, out.r1 = shown.r1;
  std::vector<Item> items;
  lay_out(c, shown, big, w, z, items, out.page * z.max_rows);
  const Palette& pal = c.in.palette;
  const Recording& rec = c.in.rec;
  ImFont* f = ImGui::GetFont();
  // The heading, dim, at the right end of the titles' line where it fits after the last title;
  // with several pages, which rows of the step these are ("rows 3–4 of 16"), alone where the
  // whole heading does not fit: a student must see that there are more.
  const int a = out.page * z.max_rows + 1, b = std::min(rows, (out.page + 1) * z.max_rows);
  const std::string which = out.pages <= 1 ? std::string()
                            : a == b       ? strf("row %d of %d", a, rows)
                                           : strf("rows %d–%d of %d", a, b, rows);
  std::vector<std::string> headings = {cu.heading};
  if (!which.empty()) headings = {cu.heading + " · " + which, which};
  ImVec2 at(0, 0);
  std::string heading;
  float hw = 0;
  if (!items.empty() && (z.inline_titles || z.heading_h > 0)) {  // a line of its own
    for (const std::string& h : headings) {
      heading = h;
      hw = draw_rich(nullptr, ImVec2(0, 0), 0, h, z.heading_text, true);
      if (z.label_w + hw <= w) break;
    }
    at = ImVec2(p.x + z.label_w, p.y);
  } else if (!items.empty()) {
    float used = 0;
    for (const Item& it : items)
      if (it.y == items.front().y) used = it.x + draw_rich(nullptr, ImVec2(0, 0), 0, it.title, c.fs, true);
    for (const std::string& h : headings) {
      hw = draw_rich(nullptr, ImVec2(0, 0), 0, h, z.heading_text, true);
      if (used + hw + z.gap <= w) {
        heading = h;
        break;
      }
    }
    at = ImVec2(p.x + w - hw, p.y + items.front().y - z.title_h + 2 * z.sp);
  }
  if (!heading.empty()) {
    draw_rich(dl, at, out.pages > 1 ? pal.text : pal.text_dim, heading, z.heading_text);
    out.heading_px = z.heading_text;
    // In the window: a tooltip names the keys, and a click turns the page.
    if (out.pages > 1 && !picture_mode()) {
      const ImVec2 keep = ImGui::GetCursorScreenPos();
      ImGui::SetCursorScreenPos(at);
      out.rows_at = at;
      out.rows_size = ImVec2(std::max(hw, 1.0f), z.heading_text + 2 * z.sp);
      ImGui::InvisibleButton("##close-up-rows", out.rows_size);
      if (ImGui::IsItemHovered())
        tooltip(strf("The step's %d %s rows, %d at a time", rows, key_rows > query_rows ? "key" : "query", z.max_rows),
                "] or a click: the next rows · [: the previous rows.\nThe page is kept from step to step.");
      out.clicked = ImGui::IsItemClicked();
      ImGui::SetCursorScreenPos(keep);
    }
  }
  // Every shown cell's number first, so that all are written one way (cell_numbers). From a
  // cell's width, as at_text sized it (room for "−0.00" and 6 paddings), not from its corners:
  // their difference carries the rounding of where the cell is, and a number exactly as wide as
  // "−0.00" fitted in one place and lost a digit in the next (Compare's CPU and GPU sides: −1.43
  // and −1.4). A hundredth of a pixel for the rounding of the sizes themselves.
  std::vector<double> values;
  std::vector<float> rooms;
  for (const Item& it : items) {
    const std::size_t cols = static_cast<std::size_t>(rec.buffers[static_cast<std::size_t>(it.buffer)].cols);
    for (int r = it.r0; r < it.r1; ++r)
      for (int k = 0; k < it.cols_shown; ++k) {
        const std::size_t idx = static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(it.c0 + k);
        if (c.state.defined[static_cast<std::size_t>(it.buffer)][idx] == 0) continue;
        values.push_back(c.state.values[static_cast<std::size_t>(it.buffer)][idx]);
        rooms.push_back(it.cell_w - 6 * pad(c, z.text) + 0.01f);
      }
  }
  const std::vector<std::string> numbers = cell_numbers(values, [&](std::size_t i, const std::string& t) {
    return f->CalcTextSizeA(z.text, 1e9f, 0, t.c_str()).x <= rooms[i];
  });
  std::size_t next_number = 0;
  float line_y = -1;
  for (const Item& it : items) {
    const BufferInfo& b = rec.buffers[static_cast<std::size_t>(it.buffer)];
    const ValueRange& range = c.ranges[static_cast<std::size_t>(it.buffer)];
    // A matrix the step does not work on (a backward tile's view of the forward's P̃, O⁽ʲ⁾, m
    // and l; S beside O = PV): faded, its numbers dim, as what is left over, not what the step
    // holds.
    const bool idle = c.in.step && !step_touches(*c.in.step, it.buffer);
    const ImVec2 o(p.x + it.x, p.y + it.y);
    const float tw = draw_rich(nullptr, ImVec2(0, 0), 0, it.title, c.fs, true);
    ImVec2 title_at(o.x, o.y - z.title_h + 1 * z.sp);
    if (z.inline_titles) {
      const float rows_h = static_cast<float>(it.r1 - it.r0) * z.cell_h;
      title_at = ImVec2(o.x - tw - 6 * z.sp, o.y + (rows_h - c.fs) * 0.5f - 1 * z.sp);
    }
    draw_rich(dl, title_at, idle ? pal.text_dim : pal.text, it.title, c.fs);
    // The query numbers at the left of each line.
    if (it.y != line_y) {
      line_y = it.y;
      for (int r = it.r0; r < it.r1; ++r) {
        const std::string t = std::to_string(r + 1);
        const float tw = f->CalcTextSizeA(z.text * 0.9f, 1e9f, 0, t.c_str()).x;
        dl->AddText(f, z.text * 0.9f,
                    ImVec2(p.x + z.label_w - tw - 5 * z.sp,
                           o.y + (static_cast<float>(r - it.r0) + 0.5f) * z.cell_h - z.text * 0.45f),
                    pal.text_dim, t.c_str());
      }
    }
    if (c.in.hits)  // its cells on a pitch of cell_w × cell_h (each drawn 2 px smaller)
      c.in.hits->add_heatmap(it.buffer, false, it.r1 - it.r0, it.cols_shown,
                             Rect{o.x, o.y, static_cast<float>(it.cols_shown) * it.cell_w,
                                  static_cast<float>(it.r1 - it.r0) * z.cell_h, true},
                             it.r0, it.c0, Rect{title_at.x, title_at.y, tw, c.fs, tw > 0});
    const std::uint8_t first_marks = cell_marks(c.in.step, it.buffer, it.r0, it.c0);
    bool uniform = true;
    for (int r = it.r0; r < it.r1; ++r)
      for (int k = 0; k < it.cols_shown; ++k) uniform &= cell_marks(c.in.step, it.buffer, r, it.c0 + k) == first_marks;
    for (int r = it.r0; r < it.r1; ++r)
      for (int k = 0; k < it.cols_shown; ++k) {
        const int col = it.c0 + k;
        const ImVec2 a(o.x + static_cast<float>(k) * it.cell_w, o.y + static_cast<float>(r - it.r0) * z.cell_h);
        const ImVec2 e(a.x + it.cell_w - 2 * z.sp, a.y + z.cell_h - 2 * z.sp);
        const std::size_t idx = static_cast<std::size_t>(r) * static_cast<std::size_t>(b.cols) +
                                static_cast<std::size_t>(col);
        const bool defined = c.state.defined[static_cast<std::size_t>(it.buffer)][idx] != 0;
        const double v = c.state.values[static_cast<std::size_t>(it.buffer)][idx];
        const ImU32 heat = value_fill(pal, cell_kind(defined, v), range, v);
        const ImU32 fill = idle && defined ? mix(pal.background, heat, 0.3f) : heat;
        dl->AddRectFilled(a, e, fill, 2.0f * c.s);
        if (heat == pal.nonfinite) hatch(dl, a, e, IM_COL32(0, 0, 0, 70), 6.0f * c.s);
        if (defined) {
          const std::string& t = numbers[next_number++];
          text_centered(dl, ImVec2((a.x + e.x) * 0.5f, (a.y + e.y) * 0.5f), idle ? pal.text_dim : text_over(fill),
                        t.c_str(), z.text);
          out.numbers.push_back(t);
          out.number_px = out.number_px > 0 ? std::min(out.number_px, z.text) : z.text;
        }
        const std::uint8_t marks = cell_marks(c.in.step, it.buffer, r, col);
        if (marks && !uniform) mark_outline(dl, pal, a, e, marks, z.sp);
      }
    // Every cell read or written alike (a whole tile): one outline around the item.
    if (uniform && first_marks)
      mark_outline(dl, pal, o,
                   ImVec2(o.x + static_cast<float>(it.cols_shown) * it.cell_w - 2 * z.sp,
                          o.y + static_cast<float>(it.r1 - it.r0) * z.cell_h - 2 * z.sp),
                   first_marks, z.sp);
    if (it.cols_shown < it.c1 - it.c0) {
      out.cut = true;
      dl->AddText(f, z.text * 0.9f,
                  ImVec2(o.x + static_cast<float>(it.cols_shown) * it.cell_w + 2 * z.sp,
                         o.y + z.cell_h * 0.5f - z.text * 0.45f),
                  pal.text_dim, "…");
    }
  }
  return out;
}

}  // namespace flashstep::ui
