// The chunked view (lesson 4): the row split among n_w workers, each worker's running (m, l),
// then the merge tree node by node — children joined to their parent, the active merge
// highlighted — down to the global (m, l) every worker normalizes with.
#pragma once

#include "app/ui/model/view_options.h"
#include "app/ui/views/view.h"

namespace flashstep::ui {

void draw_chunked_view(const ViewInput& in, ChunkedViewOptions& opt);
// The row x, the workers and their merge tree (m_tree, l_tree).
bool chunked_view_draws(const Recording& rec);

}  // namespace flashstep::ui
