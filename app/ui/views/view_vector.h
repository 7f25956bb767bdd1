// The vector view of the softmax lessons (naive, safe, online, chunked rows, logsumexp): the
// current row's x as cells, bars of exp(x − m) and y, and the registers m, l (and LSE) with
// their old → new values and the rescale factor exp(m_old − m_new).
#pragma once

#include "app/ui/model/view_options.h"
#include "app/ui/views/view.h"

namespace flashstep::ui {

// Draws into the current window; uses the whole content region's width.
void draw_vector_view(const ViewInput& in, VectorViewOptions& opt);
// A row x to draw, with its contents.
bool vector_view_draws(const Recording& rec);

}  // namespace flashstep::ui
