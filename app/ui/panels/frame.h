// One frame of the app: the menu bar, the shortcuts, then every open panel in a flat list at
// the place the layout gives it. The window (app/gui.cpp) and the off-screen renderer
// (offscreen.cpp) both call draw_frame between ImGui::NewFrame() and ImGui::Render(), so a
// picture looks exactly like the window.
#pragma once

#include "app/ui/model/app_state.h"

#include <string>
#include <vector>

namespace flashstep::ui {

struct FrameOptions {
  // Empty: the whole window. Otherwise one panel (a name from panel_names()) fills the display.
  std::string panel;
  bool keyboard = true;  // handle the shortcuts
  // A picture for export (shot, gif, the export dialog): no status bar, whose messages belong
  // to the moment they were said, not to a slide.
  bool picture = false;
  // The window's own frame (app/gui.cpp): a move of the playhead is animated (transition.h)
  // and the pointer and pen follow the mouse (pen.h). Pictures draw exact steps.
  bool live = false;
};

// Between the platform backend's NewFrame and ImGui::NewFrame: the app's rules for this frame's
// input. In presentation mode there is no pointer, so nothing is hovered and no tooltip covers
// the projected view (the keys and a clicker drive it); the mouse is kept for the laser pointer
// and the pen (app.pen.mouse), which draw themselves.
void prepare_input(AppState& app);

void draw_frame(AppState& app, const FrameOptions& opt = {});

// The line at the bottom of presentation mode, before the keys: where the lesson's timeline is
// (row, pass, step, part, the pass's name, ▶ while playing; "Lesson 10: " before it on a lab the
// lesson does not open on), or on the Measure tab, which has no steps to walk, where its
// measurement is (running and how far, the points so far).
std::string presentation_status(AppState& app);

// "lessons", "inputs", "view", "explanation", "pseudocode", "memory", "timeline", "compare",
// "overflow-lab", "scale-lab", "steps", "measure-lab".
const std::vector<std::string>& panel_names();
bool is_panel_name(const std::string& name);

}  // namespace flashstep::ui
