// Where the matrix view puts each buffer a recording declares (BufferInfo's Place, order and
// host), without ImGui: rows are queries along the main band, left to right by place and order;
// a buffer placed `above` is drawn on its side over its host, so that its key rows run along the
// host's key columns (Kᵀ over S, Vᵀ over P):
//
//                 Kᵀ (d×N)      Vᵀ (d×N)
//     Q (N×d)     S (N×N)       P (N×N)      O_acc (N×d)   O (N×d)   m  l  LSE
//     left        centre        centre       right         right     stats
#pragma once

#include "app/ui/views/view_logic.h"
#include "core/recording.h"

#include <vector>

namespace flashstep::ui {

struct LayoutItem {
  Place place = Place::hidden;
  int order = 0;
  int host = -1;   // above: the index of the centre item it stacks on; -1 or not a centre item: the first
  int cells = 0;   // left, centre, right: its width in cells; above: its height in cells
};

struct ItemsLayoutIn {
  int N = 0;                  // rows of the main band (queries)
  std::vector<LayoutItem> items;
  float stat_min_w = 0;       // px a stats column needs for its numbers (0: one cell)
  float gap = 12;             // px between matrices
  float title_h = 18;         // px above every matrix for its name
  float margin_left = 0, margin_bottom = 0;
  float avail_w = 800, avail_h = 600;
  float cell = 0;             // px per cell; 0 = as large as fits in avail (up to max_cell)
  float max_cell = 48;
};

struct ItemsLayout {
  float cell = 0, stat_w = 0;
  std::vector<Rect> rects;    // one per item; not shown: an above item with no centre to stand on
  float width = 0, height = 0;
};

ItemsLayout layout_items(const ItemsLayoutIn& in);

// The items of a recording's placed buffers (those `shown` keeps), and the buffer of each item.
struct PlacedBuffers {
  std::vector<LayoutItem> items;
  std::vector<int> buffers;
};
template <class Shown>
PlacedBuffers placed_buffers(const Recording& rec, Shown shown) {
  PlacedBuffers out;
  for (int b = 0; b < static_cast<int>(rec.buffers.size()); ++b) {
    const BufferInfo& info = rec.buffers[static_cast<std::size_t>(b)];
    if (info.place == Place::hidden || !shown(b)) continue;
    LayoutItem it;
    it.place = info.place;
    it.order = info.order;
    it.cells = info.cols;
    out.items.push_back(it);
    out.buffers.push_back(b);
  }
  // Hosts by name, among the items shown.
  for (std::size_t k = 0; k < out.items.size(); ++k) {
    const BufferInfo& info = rec.buffers[static_cast<std::size_t>(out.buffers[k])];
    if (info.place != Place::above) continue;
    for (std::size_t h = 0; h < out.items.size(); ++h)
      if (rec.buffers[static_cast<std::size_t>(out.buffers[h])].name == info.host) out.items[k].host = static_cast<int>(h);
  }
  return out;
}

// The axis a displayed matrix's rows and columns run over: an above item is drawn transposed.
inline Axis display_row_axis(const BufferInfo& b) { return b.place == Place::above ? b.col_axis : b.row_axis; }
inline Axis display_col_axis(const BufferInfo& b) { return b.place == Place::above ? b.row_axis : b.col_axis; }

// The block a buffer cell (r, c) lies in, named by the role of the buffer's axes: "tile (i=2, j=1)"
// for a query × key matrix, "block K/V j=2" for key rows, "block i=2" for query rows; "" when
// the recording has no blocks or the rows have no block role.
std::string block_name(const Recording& rec, const BufferInfo& b, int r, int c);

}  // namespace flashstep::ui
