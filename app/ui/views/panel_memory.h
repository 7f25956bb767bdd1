// The memory panel: HBM and SRAM as two boxes with what this step moves between them, the
// tiles on chip against the SRAM budget M, the IO counters so far, and what the other
// algorithms would move for the same shape (from the IO model, not from a run).
#pragma once

#include "app/ui/model/view_options.h"
#include "app/ui/views/view.h"

namespace flashstep::ui {

void draw_memory_panel(const ViewInput& in, MemoryPanelOptions& opt);

// The height draw_memory_panel takes in the current window at its font scale of the moment.
float memory_panel_height(const ViewInput& in, const MemoryPanelOptions& opt);

}  // namespace flashstep::ui
