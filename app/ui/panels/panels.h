// The panels of the window, one draw function each, one file each (panel_*.cpp). The frame loop
// (frame.cpp) places them and calls the open ones in a flat list; each begins and ends its own
// ImGui window at the rectangle it is given.
#pragma once

#include "app/ui/model/app_state.h"
#include "app/ui/views/view.h"
#include "app/ui/views/view_registry.h"

#include <imgui.h>

#include <optional>

namespace flashstep::ui {

struct PanelRect {
  ImVec2 pos, size;
};

// Begins a fixed window at r (no move, no resize); `open` gets a close button when not null.
// Drawing one panel alone (a picture of it, FrameOptions::panel), that panel has no title bar,
// close button or border: it is a figure.
bool begin_panel(const char* title, const PanelRect& r, bool* open, ImGuiWindowFlags extra = 0);
bool panel_alone();

void draw_lessons_panel(AppState& app, const PanelRect& r);      // panel_lessons.cpp
void draw_inputs_panel(AppState& app, const PanelRect& r);       // panel_inputs.cpp
float inputs_panel_height();  // the height the Inputs panel's contents took in the last frame
// The Inputs panel's "scores × …" line: the multiplier of the recording on screen (the form's
// while the form is in use, never a refused d's or T's); empty when no scale is chosen or used.
std::string scale_line(const AppState& app);
void draw_view_panel(AppState& app, const PanelRect& r);         // panel_view.cpp
void draw_explanation_panel(AppState& app, const PanelRect& r);  // panel_code.cpp
void draw_pseudocode_panel(AppState& app, const PanelRect& r);   // panel_code.cpp
void draw_memory_window(AppState& app, const PanelRect& r);      // panel_view.cpp
// Presenting, the heights the explanation and the pseudocode take at `width` in the current
// window at its font scale of the moment (panel_code.cpp), and the memory panel's (panel_view.cpp).
float explanation_height(const AppState& app, float width);
float pseudocode_height(const AppState& app, float width);
// The line under a softmax's pseudocode run with a scale: its xᵢ are the scaled scores s·xᵢ, as
// the view and the explanation write them; empty without a scale and for attention (whose
// pseudocode writes the s).
std::string pseudocode_note(const Recording& rec);
float memory_window_height(AppState& app);
void draw_timeline_panel(AppState& app, const PanelRect& r);     // panel_timeline.cpp
void draw_status_bar(AppState& app, const PanelRect& r);         // panel_log.cpp
void draw_log_panel(AppState& app, const PanelRect& r);          // panel_log.cpp
void draw_shortcuts_window(AppState& app);                       // panel_log.cpp
// Ask me first's strip: while it is on, on a lesson's tab, the bottom of the view's column (under
// the memory panel, presenting too) is kept for its question, the answer given to it, the score
// and where the next question comes. It is as tall at every step of the lesson (its tallest
// prompt at `width`), so it covers nothing the step shows and nothing moves when a question comes;
// 0 high while it is not shown. The Go to… box while it is open (panel_ask.cpp).
// quiz_strip: its height at `width`, at most `most`, and the text scale at which it holds all.
struct QuizStrip {
  float height = 0;
  float text = 1;
};
bool quiz_strip_shown(const AppState& app);
QuizStrip quiz_strip(const AppState& app, float width, float most);
void draw_quiz(AppState& app, const PanelRect& strip, float text_scale);
void draw_go_to(AppState& app);
// After the lesson's view is drawn: a click on a cell, bar, register or merge-tree node that the
// view reported (app.hits) goes to the step that last wrote it, Shift+click to the first step
// that read it; hovering one says so under the view's tooltip. Not in presentation mode, whose
// clicker sends keys and whose mouse does nothing.
void click_to_jump(AppState& app);
// The tour's panel and its stop's outline, over the panels drawn this frame (panel_tour.cpp).
void draw_tour(AppState& app);
// Where the stop's target was drawn this frame (the frame's HitMap): every place that shows it
// (a matrix and its close-up; with the matrix's name where the target starts at its first row
// and column; a memory box with its label and size; a panel inside its edge), none when it was
// not drawn.
std::vector<Rect> tour_target_rects(const AppState& app, const TourStop& stop, int step);
// How the target is outlined, in window units (times the UI scale): a rounded line in the
// pointer colour over a halo of the background, both centred `pad` out from the target.
struct TourOutline {
  float pad = 3, halo = 6, line = 3.5f, radius = 5;
  // How far out from the target the outline covers what lies under it.
  float reach() const { return pad + halo * 0.5f; }
};
inline constexpr TourOutline kTourOutline{};

// The Compare tab's contents (panel_compare.cpp) and the lesson's own view (panel_view.cpp),
// drawn into the current window.
// Without `controls` (presenting, a picture of the panel alone): no presets, pickers or GPU box,
// the two sides and their totals only.
void draw_compare(AppState& app, bool controls = true);
void draw_steps_table(AppState& app);  // panel_steps.cpp: every recorded step, click to go there
// Every step's sentence of `rec` measured in the current font, once per recording and size.
const MeasuredTexts& step_sentences(AppState& app, const std::shared_ptr<const Recording>& rec);
void draw_lesson_view(AppState& app);
// One tab's contents without the tab bar (`shot --panel`, presentation mode); without the
// views' toolbars unless `toolbars`.
void draw_tab_content(AppState& app, Tab t, bool toolbars = true);
// Presentation mode: whether the shown tab is a slide of its own, with no memory panel,
// explanation or pseudocode beside it: Compare (each side has its own sentence and counters,
// and its own playhead) and a lab the lesson does not open on (the lesson's step, memory and
// code say nothing about it). A lab lesson's own lab keeps the lesson's worked example beside it.
bool presented_alone(const AppState& app);
// The slide's title: the lesson's heading, or what a slide of its own shows ("Compare: Safe
// softmax vs Online softmax", "Overflow lab"); `brief`, Compare's by the algorithms' ids
// ("Compare: safe vs online").
std::string presented_title(const AppState& app, bool brief = false);
// The laser pointer and the pen over the presented view (panel_pen.cpp).
void draw_pen_layer(AppState& app);
// The lesson's recording at its playhead, in the app's theme and scale, for a view.
ViewInput view_input(const AppState& app);  // panel_view.cpp
// The view that draws a recording's algorithm (its row's ViewKind, found in the view registry),
// with its options from `views`, into the current window.
void draw_recording_view(const ViewInput& vi, ViewStates& views, ViewPlace place);

// The keyboard: every shortcut in one table, used by the handler and the F1 window.
struct Shortcut {
  const char* keys;
  const char* action;
};
const std::vector<Shortcut>& shortcuts();
void handle_shortcuts(AppState& app);  // panel_timeline.cpp

}  // namespace flashstep::ui
