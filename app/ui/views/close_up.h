// The close-up of the matrix view: what the step is about, at a size where its numbers read.
// At "zoom: fit" a lesson's matrices are too small for numbers (N = 12 on a 1280×800 window
// gives cells of a few pixels); under them the view draws the step's query rows (the tile's
// Br rows, or the one row of attention online) with the keys it works on: S and P̃ of the tile,
// and the rows of O, m and l it updates. No ImGui: tests/app/test_views_logic.cpp checks it.
#pragma once

#include "core/recording.h"

#include <string>

namespace flashstep::ui {

struct CloseUp {
  bool shown = false;
  int r0 = 0, r1 = 0;  // the query rows [r0, r1)
  int k0 = 0, k1 = 0;  // the keys [k0, k1) of S and P; empty when the step has no key tile
  int tile_i = -1, tile_j = -1;  // the step's tile (0-based), −1: none
  std::string heading;  // "tile (i = 2, j = 1): queries 5–8 · keys 1–4", in the markup
};

// At most this many query rows: a step that writes more (a whole matrix) shows its first ones.
inline constexpr int kCloseUpMaxRows = 8;

// What the close-up of `step` shows: the tile (i, j) of a tiled recording; else the step's
// query row; else the query rows of the first region it writes in a buffer with a row per
// query. Not shown before the first step or for a recording without query rows.
CloseUp close_up(const Recording& rec, const Step* step);

}  // namespace flashstep::ui
