// One line per view: its options type and draw function (which give its kind), whether Compare
// shows its toolbar, and how it says it can draw a recording.
#include "app/ui/views/view_registry.h"

#include "app/ui/views/view_chunked.h"
#include "app/ui/views/view_matrix.h"
#include "app/ui/views/view_vector.h"

namespace flashstep::ui {

namespace {

template <class Options, void (*Draw)(const ViewInput&, Options&), bool toolbar_in_compare = true>
ViewEntry entry(bool (*draws)(const Recording&)) {
  return ViewEntry{Options::kKind, &draw_view<Options, Draw, toolbar_in_compare>, draws};
}

}  // namespace

const std::vector<ViewEntry>& view_registry() {
  static const std::vector<ViewEntry> views = {
      entry<VectorViewOptions, draw_vector_view>(vector_view_draws),
      entry<ChunkedViewOptions, draw_chunked_view>(chunked_view_draws),
      // Two matrix views side by side leave no room for its toolbar in each.
      entry<MatrixViewOptions, draw_matrix_view, false>(matrix_view_draws),
  };
  return views;
}

const ViewEntry* find_view(ViewKind kind) {
  for (const ViewEntry& v : view_registry())
    if (v.kind == kind) return &v;
  return nullptr;
}

}  // namespace flashstep::ui
