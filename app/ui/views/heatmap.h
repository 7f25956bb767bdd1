// One heatmap of the matrix view: a buffer of the recording drawn as coloured cells (transposed
// or not), with its numbers where they fit, the tiles on and off chip, the tile grid, the step's
// reads and writes, its title and colour scale, and the tooltip of the cell under the mouse.
// Which buffers, and where, is the matrix view's (view_matrix.cpp, matrix_layout.h).
#pragma once

#include "app/ui/views/heat_image.h"
#include "app/ui/views/tile_states.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/widgets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flashstep::ui {

// One heatmap on screen: which buffer, drawn transposed or not, where.
struct Heatmap {
  int buffer = -1;
  bool transposed = false;
  Rect rect;
  bool query_rows = false;          // display rows are queries: Br grid lines and tile_i apply
  bool key_cols = false;            // display columns are keys: Bc grid lines and tile_j apply
  std::vector<std::string> titles;  // longest first; the first that fits is drawn
  float cw = 0, ch = 0;             // cell size on screen
  int rows = 0, cols = 0;           // display shape
  bool below_free = false;          // room under it for its colour scale
  float below_offset = 0;           // where that room starts under its bottom edge
};

struct HeatmapCtx {
  const ViewInput& in;
  const Recording& rec;
  const State& st;
  const Palette& pal;
  ImDrawList* dl;
  float s, fs;
  const MatrixViewOptions& opt;
  std::uint64_t content;  // what the heat textures show: recording, step, palette
  MatrixViewOptions::Drawn& report;  // what this frame drew (numbers' size, hidden numbers)
  const std::vector<ValueRange>& ranges;  // each buffer's colour range
  const std::vector<TileStates>& tiles;    // each buffer's tiles and row blocks on chip (tile_states)
  const ValueRange& range_of(int buffer) const { return ranges[static_cast<std::size_t>(buffer)]; }
};


// Display cell (r, c) of m → buffer cell.
inline void to_buffer(const Heatmap& m, int r, int c, int& br, int& bc) {
  if (m.transposed) {
    br = c;
    bc = r;
  } else {
    br = r;
    bc = c;
  }
}

// A region of the buffer in display coordinates [r0, r1) × [c0, c1).
inline void region_display(const Heatmap& m, const Region& g, int& r0, int& r1, int& c0, int& c1) {
  if (m.transposed) {
    r0 = g.c0, r1 = g.c1, c0 = g.r0, c1 = g.r1;
  } else {
    r0 = g.r0, r1 = g.r1, c0 = g.c0, c1 = g.c1;
  }
}

inline ImVec2 cell_pos(const Heatmap& m, float r, float c) {
  return ImVec2(m.rect.x + c * m.cw, m.rect.y + r * m.ch);
}

void draw_cells(const HeatmapCtx& c, const Heatmap& m, const ValueRange& range);
// Ghosts of what has left the chip (tiles, row blocks, registers) and the mask's hatching.
void draw_tile_states(const HeatmapCtx& c, const Heatmap& m, const TileStates& tiles);
void draw_grid(const HeatmapCtx& c, const Heatmap& m);
// The current tile and the regions the step reads and writes.
void draw_marks(const HeatmapCtx& c, const Heatmap& m);
// The tooltip of the cell under the mouse, if it is in m.
void hover(const HeatmapCtx& c, const Heatmap& m);
// The first of m's titles that fits in max_w, its help marker and its colour scale; the box
// of the title's text (not shown where none fits).
Rect draw_title(const HeatmapCtx& c, const Heatmap& m, float max_w);

}  // namespace flashstep::ui
