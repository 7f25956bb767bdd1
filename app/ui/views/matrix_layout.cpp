#include "app/ui/views/matrix_layout.h"

#include "core/text.h"

#include <algorithm>
#include <numeric>

namespace flashstep::ui {

ItemsLayout layout_items(const ItemsLayoutIn& in) {
  ItemsLayout L;
  const std::size_t n = in.items.size();
  L.rects.assign(n, Rect{});
  // The main band in its order: left, centre, right, then the stats columns.
  std::vector<std::size_t> band;
  for (std::size_t k = 0; k < n; ++k)
    if (in.items[k].place != Place::above && in.items[k].place != Place::hidden) band.push_back(k);
  std::stable_sort(band.begin(), band.end(), [&](std::size_t a, std::size_t b) {
    const LayoutItem &x = in.items[a], &y = in.items[b];
    return x.place != y.place ? x.place < y.place : x.order < y.order;
  });
  std::size_t first_centre = n;
  for (std::size_t k : band)
    if (in.items[k].place == Place::centre) {
      first_centre = k;
      break;
    }
  // Each above item's host (its own if that is a centre item, else the first centre item), and
  // each host's stack, top to bottom in order.
  std::vector<std::vector<std::size_t>> stacks(n);
  if (first_centre < n) {
    std::vector<std::size_t> above;
    for (std::size_t k = 0; k < n; ++k)
      if (in.items[k].place == Place::above) above.push_back(k);
    std::stable_sort(above.begin(), above.end(),
                     [&](std::size_t a, std::size_t b) { return in.items[a].order < in.items[b].order; });
    for (std::size_t k : above) {
      const int h = in.items[k].host;
      const bool own = h >= 0 && static_cast<std::size_t>(h) < n && in.items[static_cast<std::size_t>(h)].place == Place::centre;
      stacks[own ? static_cast<std::size_t>(h) : first_centre].push_back(k);
    }
  }
  int stack = 0, stack_cells = 0;  // the tallest stack: its pieces and its cells
  for (const auto& s : stacks) {
    stack = std::max(stack, static_cast<int>(s.size()));
    int cells = 0;
    for (std::size_t k : s) cells += in.items[k].cells;
    stack_cells = std::max(stack_cells, cells);
  }
  const float N = static_cast<float>(in.N);
  const float half_gap = in.gap * 0.5f;
  int main_count = 0, stat_cols = 0;
  float col_cells = 0;
  for (std::size_t k : band) {
    if (in.items[k].place == Place::stats) {
      ++stat_cols;
      continue;
    }
    col_cells += static_cast<float>(in.items[k].cells);
    ++main_count;
  }
  float gaps = static_cast<float>(std::max(main_count - 1, 0)) * in.gap;
  if (stat_cols > 0) gaps += in.gap * 0.5f + static_cast<float>(stat_cols - 1) * 2.0f;
  const float stats = static_cast<float>(stat_cols);
  const float fixed_w = in.margin_left + gaps;
  const float fixed_h =
      in.title_h + in.margin_bottom +
      (stack > 0 ? static_cast<float>(stack) * in.title_h + static_cast<float>(stack - 1) * half_gap + in.gap : 0.0f);
  const float rows_cells = N + static_cast<float>(stack_cells);

  float c = in.cell;
  if (!(c > 0)) {
    float cw = 1e9f;
    if (col_cells + stats > 0) {
      cw = (in.avail_w - fixed_w - stats * in.stat_min_w) / std::max(col_cells, 1.0f);
      if (cw > in.stat_min_w) cw = (in.avail_w - fixed_w) / (col_cells + stats);
    }
    const float ch = rows_cells > 0 ? (in.avail_h - fixed_h) / rows_cells : 1e9f;
    c = std::clamp(std::min(cw, ch), 0.05f, in.max_cell);
  }
  L.cell = c;
  L.stat_w = std::max(c, in.stat_min_w);

  // The band above: as tall as the tallest stack.
  float top_h = 0;
  for (const auto& s : stacks) {
    if (s.empty()) continue;
    float h = 0;
    for (std::size_t k : s) h += in.title_h + static_cast<float>(in.items[k].cells) * c;
    top_h = std::max(top_h, h + static_cast<float>(s.size() - 1) * half_gap + in.gap);
  }
  const float y_main = top_h + in.title_h;
  float x = in.margin_left;
  int stat_k = 0;
  for (std::size_t k : band) {
    if (in.items[k].place == Place::stats) {
      x += stat_k++ == 0 ? (x > in.margin_left ? in.gap * 0.5f : 0.0f) : 2.0f;
      L.rects[k] = {x, y_main, L.stat_w, N * c, true};
      x += L.stat_w;
      continue;
    }
    if (x > in.margin_left) x += in.gap;
    const float w = static_cast<float>(in.items[k].cells) * c;
    L.rects[k] = {x, y_main, w, N * c, true};
    x += w;
  }
  // Stacks are bottom-aligned, so the last piece touches the matrix it belongs to.
  for (std::size_t h = 0; h < n; ++h) {
    float bottom = y_main - in.title_h - in.gap;
    for (auto it = stacks[h].rbegin(); it != stacks[h].rend(); ++it) {
      const float hgt = static_cast<float>(in.items[*it].cells) * c;
      L.rects[*it] = {L.rects[h].x, bottom - hgt, L.rects[h].w, hgt, true};
      bottom = bottom - hgt - in.title_h - half_gap;
    }
  }
  L.width = x;
  L.height = y_main + N * c + in.margin_bottom;
  return L;
}

std::string block_name(const Recording& rec, const BufferInfo& b, int r, int c) {
  if (rec.Br <= 0 || rec.Bc <= 0) return "";
  auto index = [&](Axis a, int k) { return a == Axis::key ? k / rec.Bc + 1 : k / rec.Br + 1; };
  if (b.row_axis == Axis::query && b.col_axis == Axis::key)
    return strf("tile (i=%d, j=%d)", index(Axis::query, r), index(Axis::key, c));
  if (b.row_axis == Axis::key) return strf("block K/V j=%d", index(Axis::key, r));
  return strf("block i=%d", index(Axis::query, r));
}

}  // namespace flashstep::ui
