// The contract between the app shell and the views.
//
// A view is a pure function of (Recording, playhead): it reads the Recording and the Cursor
// every frame and keeps no copy of them. The only state a view may keep is its own options
// (zoom, which matrix is shown), in a small struct the shell owns.
#pragma once

#include "app/ui/model/transition.h"
#include "core/recording.h"

#include <algorithm>

#include <imgui.h>

namespace flashstep::ui {

class HitMap;  // hit_map.h

// Colours of one theme. The heatmap map is colour-blind safe (viridis-like); highlights and
// non-finite values use hues that stay distinct on a projector.
struct Palette {
  ImU32 text = IM_COL32(230, 230, 235, 255);
  ImU32 text_dim = IM_COL32(150, 150, 160, 255);
  ImU32 background = IM_COL32(20, 20, 26, 255);
  ImU32 cell = IM_COL32(45, 45, 55, 255);         // an undefined cell
  ImU32 grid = IM_COL32(90, 90, 105, 255);        // tile grid lines
  ImU32 read = IM_COL32(86, 180, 233, 255);       // cells read in this step (sky blue)
  ImU32 write = IM_COL32(230, 159, 0, 255);       // cells written in this step (orange)
  ImU32 current = IM_COL32(240, 228, 66, 255);    // the current tile / element (yellow)
  ImU32 nonfinite = IM_COL32(213, 94, 0, 255);    // inf / nan cells (vermillion)
  ImU32 hbm = IM_COL32(0, 114, 178, 255);         // slow memory box
  ImU32 sram = IM_COL32(0, 158, 115, 255);        // on-chip memory box
  ImU32 bar_exp = IM_COL32(204, 121, 167, 255);   // bars of exp(x - m)
  ImU32 bar_y = IM_COL32(0, 158, 115, 255);       // bars of y
  ImU32 pointer = IM_COL32(255, 64, 200, 255);    // the tour's outline (magenta: no other mark's hue)
  bool light = false;
};

// Maps t in [0, 1] to the heatmap colour map (viridis).
ImU32 heat(float t);
// Maps t in [0, 1] to the diverging map for signed values, 0.5 (zero) in the middle: blue for
// negative, orange for positive, both colour-blind safe (after ColorBrewer's PuOr).
ImU32 heat_signed(float t);

struct ViewInput {
  const Recording& rec;
  const Cursor& cursor;   // already positioned at `playhead`
  int playhead;           // step index; -1 = before the first step
  const Step* step;       // rec.steps[playhead], or nullptr when playhead < 0
  const Palette& palette;
  float ui_scale = 1.0f;  // multiply sizes by this (presentation mode, high DPI)
  // The UI scale at font 1× (the screen's and presentation mode's, without Ctrl+=): where a
  // larger font leaves no room, the smallest sizes (numbers, labels) give way down to their
  // floors at this scale. 0: ui_scale.
  float floor_scale = 0.0f;
  float floor_s() const { return floor_scale > 0 ? floor_scale : ui_scale; }
  // The size at floor_s() as a fraction of the size at ui_scale, at most 1: how far text may
  // give way.
  float floor_fraction() const { return std::min(1.0f, floor_s() / ui_scale); }
  // Where the view reports what it drew (cells, bars, registers, nodes) when set: the shell's
  // map of this frame (hit_map.h), which outlines and clicks ask.
  HitMap* hits = nullptr;
  // While the playhead moves here from the step before or after: the state left and how far the
  // move has gone (app/ui/model/transition.h), drawn from recorded values only. Null: the step.
  const Tween* tween = nullptr;
  // Drawn beside a view of another recording (the Compare tab): sizes that depend on what the
  // recording holds are taken for the most any recording holds, so that the two stay level.
  bool side_by_side = false;
  // Drawn where the shell draws the view smaller, down to floor_scale, when it does not fit
  // (Compare, a slide): sizes that could give way (the bars) keep their own while ui_scale is
  // above floor_scale, and what does not fit makes the shell draw the view smaller.
  bool shrinks = false;
};

}  // namespace flashstep::ui
