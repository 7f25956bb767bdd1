// Draws the matrix view's close-up (close_up.h): the step's S and P̃ tile and its rows of O,
// m and l as cells wide enough for their numbers, at kMinCellTextPx or larger, whatever the
// size of the matrices above.
#pragma once

#include "app/ui/views/close_up.h"
#include "app/ui/views/view.h"
#include "app/ui/views/view_logic.h"

#include <imgui.h>

#include <vector>

namespace flashstep::ui {

struct CloseUpDraw {
  const ViewInput& in;
  const State& state;
  const std::vector<ValueRange>& ranges;  // each buffer's colour range
  float s = 1;                            // UI scale
  float fs = 13;                          // label font size
  float max_h = 1e9f;                     // the height it may take: fewer query rows beyond it
};

// The height the close-up takes in width `w` (the same at every step of a recording, so the
// matrices above it never move), or draws it at `p` when dl is given. `number_px` gets the
// size its numbers were drawn at.
float close_up_height(const CloseUpDraw& c, float w);
void draw_close_up(const CloseUpDraw& c, const CloseUp& cu, ImDrawList* dl, ImVec2 p, float w, float& number_px);

}  // namespace flashstep::ui
