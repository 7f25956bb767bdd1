// The matrix view: every buffer a recording places (core/recording.h's Place, order and axis
// roles) drawn as a heatmap (heatmap.h), arranged by matrix_layout.h so rows are queries and the
// columns of the top band are keys. For attention:
//
//                 Kᵀ (d×N)      Vᵀ (d×N)
//     Q (N×d)     S (N×N)       P (N×N)      O_acc   O   m  l  LSE
//
// The tile grid (Br, Bc), the current tile and the cells read and written in this step are
// outlined; hovering a cell shows its name and exact value. Numbers are drawn in cells that are
// large enough; below 2 px per cell, neighbouring cells are averaged into 2 px blocks.
#pragma once

#include "app/ui/model/view_options.h"
#include "app/ui/views/view.h"
#include "app/ui/views/view_logic.h"

namespace flashstep::ui {

// Cell numbers are drawn at this size or larger (times the UI scale), or not at all.
inline constexpr float kMinCellTextPx = 11.0f;
// The cells a matrix keeps beside the close-up, as near the first as there is room for and down
// to the second, before it gives way to 2 px ones: where the tile grid and its outlines still
// read (times the UI scale at font 1×).
inline constexpr float kMinGridCellPx = 6.0f, kMinGridFloorPx = 4.0f;

void draw_matrix_view(const ViewInput& in, MatrixViewOptions& opt);
// Q and the sizes N and d, with contents.
bool matrix_view_draws(const Recording& rec);

}  // namespace flashstep::ui
