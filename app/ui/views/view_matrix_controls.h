// The matrix view's controls: its toolbar (which matrices, numbers, tiles, zoom), its colour
// legend, and the colour ranges it keeps for the recording being shown.
#pragma once

#include "app/ui/views/view_matrix.h"

#include <string>
#include <vector>

namespace flashstep::ui {

// The colour range of every buffer of `rec`, recomputed only when the recording changes.
const std::vector<ValueRange>& matrix_ranges(const Recording& rec, MatrixViewOptions& opt);

// `text` with ᵀ written ^T where the font lacks the glyph.
std::string with_transpose_mark(std::string text);

// The buffers a recording places in the matrix view, in their declared order.
std::vector<int> placed_in_order(const Recording& rec);

void draw_matrix_toolbar(const Recording& rec, MatrixViewOptions& opt, float scale);

// The colour bar, the ranges of the matrices shown (in a help marker) and the mark swatches.
void draw_matrix_legend(const Recording& rec, const Palette& pal, const std::vector<int>& buffers,
                        const std::vector<ValueRange>& ranges, float scale);

}  // namespace flashstep::ui
