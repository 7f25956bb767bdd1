// The close-up of the matrix view: what the step is about, at a size where its numbers read.
// At "zoom: fit" a lesson's matrices are too small for numbers (N = 12 on a 1280×800 window
// gives cells of a few pixels); under them the view draws the step's query rows (the tile's
// Br rows, or the one row of attention online) with the keys it works on. What it draws follows
// the buffers' declarations (core/recording.h), not their names: the step's tile of every
// query × key matrix the recording writes (S and P̃, or dP and dS), the step's rows of the
// query-row matrices and statistics it writes on the right of the band (O, dQ; m, l, D), then
// the step's key rows of the key-row ones it writes (dKⱼ, dVⱼ). The inputs (Q, K, V, dO) are
// never written, or sit on the band's left: not in it. No ImGui: tests/app/test_views_logic.cpp
// and test_matrix_layout.cpp check it.
#pragma once

#include "core/recording.h"

#include <string>
#include <vector>

namespace flashstep::ui {

// One small matrix of the close-up: rows [r0, r1) × columns [c0, c1) of a buffer, titled in the
// markup as the papers name the step's block of it (S₃₂, P̃₃₂, O₃⁽ʲ⁾, m₃, dK₂).
struct CloseUpItem {
  int buffer = -1;
  std::string title;
  int r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  bool key_rows = false;  // its rows are keys [k0, k1), not the query rows
};

struct CloseUp {
  bool shown = false;
  int r0 = 0, r1 = 0;  // the query rows [r0, r1)
  int k0 = 0, k1 = 0;  // the keys [k0, k1) of S and P; empty when the step has no key tile
  int tile_i = -1, tile_j = -1;  // the step's tile (0-based), −1: none
  std::string heading;  // "tile (i = 2, j = 1): queries 5–8 · keys 1–4", in the markup
  std::vector<CloseUpItem> items;  // query-row items first, key-row ones last
};

// At most this many query rows: a step that writes more (a whole matrix) shows its first ones.
inline constexpr int kCloseUpMaxRows = 8;

// What the close-up of `step` shows: the tile (i, j) of a tiled recording, or the key rows of a
// K/V block's own step (j alone); else the step's query row; else the query rows of the first
// region it writes in a buffer with a row per query, or the key rows of the first it writes in
// a buffer with a row per key (a row of dV). Not shown before the first step or for a
// recording without query rows.
CloseUp close_up(const Recording& rec, const Step* step);

// The close-up every step of the recording would show at its largest: Br rows (one row
// without tiles, and one key row: outside tiles a step writes query rows or key rows, and a
// query row's close-up shows no key rows), every item, the last tile's subscripts. Its size is the view's, at every step.
CloseUp close_up_largest(const Recording& rec);

// The buffers a close-up shows, in the order it shows them: those the steps write, and an input
// beside them in the band right of the scores (dO beside O); not Q, K and V, which the view shows
// over and left of the tile.
std::vector<int> close_up_buffers(const Recording& rec);

}  // namespace flashstep::ui
