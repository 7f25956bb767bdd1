// The matrix view of the attention lessons: Q, Kᵀ, S, P, Vᵀ, O (and O_acc) as heatmaps with
// the per-row m, l (and LSE) columns, arranged so rows are queries and the columns of the top
// band are keys (see layout_matrices in view_logic.h):
//
//                 Kᵀ (d×N)      Vᵀ (d×N)
//     Q (N×d)     S (N×N)       P (N×N)      O_acc   O   m  l  LSE
//
// The tile grid (Br, Bc), the current tile and the cells read and written in this step are
// outlined; hovering a cell shows its name and exact value. Numbers are drawn in cells that are
// large enough; below 2 px per cell, neighbouring cells are averaged into 2 px blocks.
#pragma once

#include "app/ui/views/view.h"
#include "app/ui/views/view_logic.h"

#include <cstdint>
#include <vector>

namespace flashstep::ui {

struct MatrixViewOptions {
  bool show_q = true, show_kt = true, show_s = true, show_p = true, show_vt = true;
  bool show_o_acc = true, show_o = true;
  bool show_stats = true;   // m, l, LSE columns beside O
  bool show_values = true;  // numbers in cells when they fit
  bool show_tiles = true;   // the Br × Bc tile grid
  float zoom = 0;           // px per cell; 0 = fit the window
  bool follow = true;       // when zoomed in, scroll to the cells each new step writes
  bool show_toolbar = true;
  bool show_legend = true;

  int followed_step = -2;  // the step the view last scrolled to

  // Colour ranges of the recording last drawn (recomputed when the recording changes).
  struct RangeCache {
    const Recording* rec = nullptr;
    std::size_t deltas = 0, steps = 0, buffers = 0;
    std::uint64_t fingerprint = 0;
    std::vector<ValueRange> ranges;
  } cache;
};

void draw_matrix_view(const ViewInput& in, MatrixViewOptions& opt);

}  // namespace flashstep::ui
