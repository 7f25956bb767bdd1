// Draws the matrix view's close-up (close_up.h): the step's S and P̃ tile and its rows of O,
// m and l as cells wide enough for their numbers, at kMinCellTextPx or larger, whatever the
// size of the matrices above.
#pragma once

#include "app/ui/views/close_up.h"
#include "app/ui/views/view.h"
#include "app/ui/views/view_logic.h"

#include <imgui.h>

#include <string>
#include <vector>

namespace flashstep::ui {

struct CloseUpDraw {
  const ViewInput& in;
  const State& state;
  const std::vector<ValueRange>& ranges;  // each buffer's colour range
  float s = 1;                            // UI scale
  float fs = 13;                          // label font size
  float max_h = 1e9f;                     // the height it may take: fewer query rows beyond it
  int page = 0;                           // the page of query rows asked for (MatrixViewOptions)
};

// What a drawn close-up showed: its numbers' size, and which of the step's query rows.
struct CloseUpShown {
  float number_px = 0;  // the size its numbers were drawn at; 0: none
  float heading_px = 0;  // the size its heading ("Q block i = 2: queries 17–32 · rows 1–6 of 16") was drawn at; 0: none
  int page = 0;         // the page drawn (the one asked for, within its pages)
  int pages = 0;        // pages of rows (query rows, or key rows where more): 1 when every row shows at once
  int r0 = 0, r1 = 0;   // the query rows drawn, [r0, r1)
  bool cut = false;     // a row drawn without its last columns ("…"): too wide even for narrow cells
  bool clicked = false;  // its "rows … of …" line was clicked: the caller turns the page
  ImVec2 rows_at, rows_size;  // where that line is (screen), empty when it is not drawn
  std::vector<std::string> numbers;  // each cell's number as written, row by row, item by item
};

// The height the close-up takes in width `w` (the same at every step of a recording, so the
// matrices above it never move), or draws it at `p`. Where the step has more query rows than
// the height holds, it draws page `c.page` of them and says "rows 3–4 of 16" in its heading.
float close_up_height(const CloseUpDraw& c, float w);
CloseUpShown draw_close_up(const CloseUpDraw& c, const CloseUp& cu, ImDrawList* dl, ImVec2 p, float w);

}  // namespace flashstep::ui
