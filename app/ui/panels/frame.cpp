#include "app/ui/panels/frame.h"

#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <mutex>

namespace flashstep::ui {

namespace {

struct Layout {
  PanelRect lessons, inputs, view, explanation, pseudocode, memory, timeline, status, log, ask;
  QuizStrip ask_strip;  // Ask me first's: its height and text scale
};

// Fixed tiling: lessons over inputs on the left; the view over the memory panel in the
// centre (both want width: matrices side by side, HBM beside SRAM); the explanation over the
// pseudocode on the right; timeline and status bar across the bottom. A closed panel gives its
// space to its neighbour.
Layout layout(const AppState& app, PanelFlags f, ImVec2 origin, ImVec2 size) {
  // Compare mode has its own sentences and HBM counters: it takes the whole centre and right.
  if (app.tab == Tab::compare && f.view) f.explanation = f.pseudocode = f.memory = false;
  const float s = app.ui_scale;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float fh = ImGui::GetFrameHeight();
  const float title = ImGui::GetFontSize() + st.FramePadding.y * 2;
  Layout L;
  float bottom = origin.y + size.y;
  if (f.status) {
    const float h = fh + st.WindowPadding.y * 2;
    bottom -= h;
    L.status = {ImVec2(origin.x, bottom), ImVec2(size.x, h)};
  }
  if (f.timeline) {
    const float h = fh + st.ItemSpacing.y + 10 * s + fh * 1.15f + st.WindowPadding.y * 2 + 4 * s;
    bottom -= h;
    L.timeline = {ImVec2(origin.x, bottom), ImVec2(size.x, h)};
  }
  L.log = {ImVec2(origin.x + size.x * 0.45f, bottom - size.y * 0.3f), ImVec2(size.x * 0.55f, size.y * 0.3f)};
  const float top = origin.y, avail_h = bottom - top;

  float left = f.lessons || f.inputs ? std::clamp(size.x * 0.22f, 250 * s, 340 * s) : 0.0f;
  float right = f.explanation || f.pseudocode ? std::clamp(size.x * 0.27f, 280 * s, 480 * s) : 0.0f;
  // A font made larger widens the side panels with it, but together they never take more than
  // 60% of the width: at font 2× on 1280 pixels they had left the view 220 (a lab's plots 46
  // pixels wide, the memory panel's HBM and SRAM on top of each other).
  if (left + right > size.x * 0.6f) {
    const float k = size.x * 0.6f / (left + right);
    left *= k, right *= k;
  }
  if (f.lessons || f.inputs) {
    const float line = ImGui::GetTextLineHeightWithSpacing();
    // Room for every lesson and the longest summary (at most six lines), so the border does not
    // move from lesson to lesson; past what the window gives it, the list scrolls.
    std::size_t summary = 0;
    const float text_w = left - st.WindowPadding.x * 2 - st.ScrollbarSize;
    for (const Lesson& l : lessons()) summary = std::max(summary, wrap_words(l.summary, text_w).size());
    float lh = title + st.WindowPadding.y * 2 + st.ItemSpacing.y * 2 +
               line * static_cast<float>(lessons().size() + std::min<std::size_t>(summary, 6));
    if (!f.inputs) lh = avail_h;
    if (!f.lessons) lh = 0;
    // The Inputs panel gets what its contents took (all of it, without scrolling, as far as the
    // lessons keep a third); the lesson list scrolls before the inputs do.
    if (f.inputs && f.lessons && inputs_panel_height() > 0)
      lh = std::min(lh, std::max(avail_h - inputs_panel_height(), avail_h * 0.34f));
    lh = std::min(lh, avail_h * 0.64f);
    if (f.lessons) L.lessons = {ImVec2(origin.x, top), ImVec2(left, lh)};
    if (f.inputs) L.inputs = {ImVec2(origin.x, top + lh), ImVec2(left, avail_h - lh)};
  }
  if (f.explanation || f.pseudocode) {
    const float rx = origin.x + size.x - right;
    float eh = f.pseudocode ? avail_h * 0.4f : avail_h;
    if (!f.explanation) eh = 0;
    if (f.explanation) L.explanation = {ImVec2(rx, top), ImVec2(right, eh)};
    if (f.pseudocode) L.pseudocode = {ImVec2(rx, top + eh), ImVec2(right, avail_h - eh)};
  }
  const float cx = origin.x + left, cw = size.x - left - right;
  // Ask me first's strip at the bottom of the centre column, under the view and the memory panel.
  L.ask_strip = f.view ? quiz_strip(app, cw, avail_h * 0.3f) : QuizStrip{};
  const float ah = L.ask_strip.height;
  const float column_h = avail_h - ah;
  if (ah > 0) L.ask = {ImVec2(cx, top + column_h), ImVec2(cw, ah)};
  // Likewise the memory panel: at most 40% of the height, whatever the font.
  const float mh = f.memory ? std::min(std::clamp(column_h * 0.36f, 160 * s, 340 * s), column_h * 0.4f) : 0;
  L.view = {ImVec2(cx, top), ImVec2(cw, column_h - mh)};
  if (f.memory) L.memory = {ImVec2(cx, top + column_h - mh), ImVec2(cw, mh)};
  return L;
}

// The dialogs (file, export) are modal: the playback keys wait until they close.
bool any_popup_open() { return ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel); }

// Ask me first holds back the moves the student makes. An export stepping the playhead frame by
// frame (its dialog open, or its own picture frames) is not one: it is let through, not asked.
void check_quiz(AppState& app, const FrameOptions& opt) {
  if (opt.picture || any_popup_open()) app.quiz.seen = app.timeline.playhead();
  else quiz_check(app);
}

void draw_file_menu(AppState& app, bool* quit) {
  if (!ImGui::BeginMenu("File")) return;
  AppState::Requests& q = app.requests;
  if (ImGui::MenuItem("Open scenario…", "Ctrl+O")) q.open = true;
  if (ImGui::BeginMenu("Open recent", !app.recent_files.empty())) {
    for (const std::string& f : app.recent_files)
      if (ImGui::MenuItem(f.c_str())) q.open_path = f;
    ImGui::EndMenu();
  }
  if (ImGui::MenuItem("Save scenario", "Ctrl+S")) q.save = true;
  if (ImGui::MenuItem("Save scenario as…", "Ctrl+Shift+S")) q.save_as = true;
  ImGui::Separator();
  if (ImGui::MenuItem("Open tour…")) q.open_tour = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A tour file (README, \"Self-study and lectures\") replaces its lesson's tour "
                      "until View ▸ Lesson's own tour.");
  ImGui::Separator();
  if (ImGui::MenuItem("Export picture, animation or recording…", "Ctrl+E")) q.export_dialog = true;
  ImGui::Separator();
  if (ImGui::MenuItem("Quit", "Ctrl+Q")) *quit = true;
  ImGui::EndMenu();
}

void draw_menu_bar(AppState& app, bool* quit) {
  if (!ImGui::BeginMainMenuBar()) return;
  draw_file_menu(app, quit);
  if (ImGui::BeginMenu("Edit")) {
    if (ImGui::MenuItem("Undo input change", "Ctrl+Z", false, app.can_undo())) app.undo_inputs();
    if (ImGui::MenuItem("Redo input change", "Ctrl+Shift+Z", false, app.can_redo())) app.redo_inputs();
    ImGui::Separator();
    if (ImGui::MenuItem("Back to the lesson's example")) app.reset_inputs();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Lessons")) {
    for (int i = 0; i < static_cast<int>(lessons().size()); ++i)
      if (ImGui::MenuItem(lessons()[static_cast<std::size_t>(i)].heading().c_str(), nullptr, i == app.lesson))
        app.open_lesson(i);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    PanelFlags& f = app.panels;
    ImGui::MenuItem("Lessons", nullptr, &f.lessons);
    ImGui::MenuItem("Inputs", nullptr, &f.inputs);
    ImGui::MenuItem("View", nullptr, &f.view);
    ImGui::MenuItem("Explanation", nullptr, &f.explanation);
    ImGui::MenuItem("Pseudocode", nullptr, &f.pseudocode);
    ImGui::MenuItem("Memory", nullptr, &f.memory);
    ImGui::MenuItem("Timeline", nullptr, &f.timeline);
    ImGui::MenuItem("Status bar", nullptr, &f.status);
    ImGui::MenuItem("Log", nullptr, &f.log);
    ImGui::Separator();
    if (ImGui::BeginMenu("Theme")) {
      for (Theme t : {Theme::dark, Theme::light, Theme::projector})
        if (ImGui::MenuItem(theme_name(t), nullptr, app.theme == t)) app.set_theme(t);
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Font size")) {
      for (float fs : {1.0f, 1.25f, 1.5f, 2.0f, 2.5f, 3.0f}) {
        const std::string label = strf("%g×", fs);
        if (ImGui::MenuItem(label.c_str(), nullptr, std::abs(app.font_scale - fs) < 1e-3f)) app.set_font_scale(fs);
      }
      ImGui::Separator();
      if (ImGui::MenuItem("Larger", "Ctrl+=")) app.bigger_font();
      if (ImGui::MenuItem("Smaller", "Ctrl+−")) app.smaller_font();
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Presentation mode", "P / F5", app.presenting)) app.presenting = !app.presenting;
    // A move between steps drawn for a moment (transition.h); off, each step simply appears.
    ImGui::MenuItem("Animate steps", nullptr, &app.motion.enabled);
    ImGui::Separator();
    ImGui::MenuItem("Ask me first", nullptr, &app.quiz.on);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Before some steps, type what you expect (m, l, the rescale factor, the next tile, an HBM\n"
                        "count); the step then shows the right value beside yours, and the last step your score.");
    if (ImGui::MenuItem("Go to…", "Ctrl+G")) app.go_to.open = true;
    if (ImGui::MenuItem("Tour", "N / B / Esc", app.tour.on, !shown_tour(app).empty())) set_tour(app, !app.tour.on);
    if (ImGui::MenuItem("Lesson's own tour", nullptr, false, app.tour.file.has_value())) drop_tour_file(app);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Labs")) {
    auto go = [&](const char* name, Tab t) {
      if (ImGui::MenuItem(name, nullptr, app.tab == t)) {
        app.tab = t;
        app.tab_changed = true;
        app.panels.view = true;
      }
    };
    go("Lesson view", Tab::lesson);
    go("All steps as a table", Tab::steps);
    go("Compare two algorithms", Tab::compare);
    go("Overflow lab", Tab::overflow_lab);
    go("1/√d lab", Tab::scale_lab);
    go("Measure it yourself", Tab::measure_lab);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::MenuItem("Keyboard shortcuts", "F1", &app.panels.shortcuts);
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// Presentation mode: the view large on the left, the explanation over the pseudocode on the
// right, and one line at the bottom with the step counter and the keys. No menu, no controls.
void draw_presentation(AppState& app, const PanelRect& all) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line = ImGui::GetFrameHeight() + st.WindowPadding.y * 2;
  const float h = all.size.y - line;
  // A larger font widens the explanation and the pseudocode (up to 0.4 of the width), so that
  // their lines wrap less and the whole algorithm keeps fitting.
  // A slide of its own (Compare, a lab the lesson does not open on) takes the whole width.
  const bool alone = presented_alone(app);
  const float right = alone ? 0.0f
                            : std::clamp(all.size.x * 0.3f * std::max(1.0f, app.ui_scale / 1.5f),
                                         260 * app.ui_scale, all.size.x * 0.4f);
  const float left = all.size.x - right;
  const ImVec2 o = all.pos;
  // The memory panel (M) under the view, where the HBM ↔ SRAM story of the tiled lessons is
  // told; Compare has its own counters.
  const bool memory = app.presentation_memory && !alone;
  // Each panel has a title bar and padding around what it holds.
  const float chrome = ImGui::GetFontSize() + st.FramePadding.y * 2 + st.WindowPadding.y * 2;
  // The heights the panels' contents take, measured in a window of the panels' width that
  // draws nothing: the memory panel takes what it needs from 0.32 to 0.36 of the height (it
  // gets smaller, then drops its counters, within that); the explanation and the pseudocode
  // share the right column at the largest size at which both fit.
  // Ask me first's strip under the view and the memory panel, the left column's bottom.
  const QuizStrip ask = quiz_strip(app, left, h * 0.3f);
  const float ask_h = ask.height, column_h = h - ask_h;
  float memory_h = memory ? column_h * 0.32f : 0.0f, explanation_h = h * 0.45f;
  const ImGuiWindowFlags measure = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                                   ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  if (memory && app.played.rec->step_count() > 0) {
    ImGui::SetNextWindowPos(o);
    ImGui::SetNextWindowSize(ImVec2(left, column_h * 0.36f - chrome + st.WindowPadding.y * 2));
    ImGui::Begin("##measure-memory", nullptr, measure);
    memory_h = std::clamp(memory_window_height(app) + chrome, column_h * 0.32f, column_h * 0.36f);
    ImGui::SetWindowFontScale(1.0f);
    ImGui::End();
  }
  if (!alone && app.played.rec->step_count() > 0) {
    ImGui::SetNextWindowPos(o);
    ImGui::SetNextWindowSize(ImVec2(right, h));
    ImGui::Begin("##measure-text", nullptr, measure);
    const float w = right - st.WindowPadding.x * 2;
    TextScale text;
    const float lowest = lowest_text_scale(app.font_scale);
    for (int k = 0; k <= 20; ++k) {
      const float f = std::max(1.0f - 0.05f * static_cast<float>(k), lowest);
      text.set(f);
      const float e = explanation_height(app, w), c = pseudocode_height(app, w);
      if (e + c + 2 * chrome <= h) {
        // What is left over goes to the explanation, whose sentence changes from step to step.
        explanation_h = std::clamp(h - c - chrome, e + chrome, h * 0.6f);
        break;
      }
      if (f <= lowest) break;
    }
    text.set(1.0f);
    ImGui::End();
  }
  const float view_h = column_h - memory_h;
  draw_view_panel(app, {o, ImVec2(left, view_h)});
  if (memory) draw_memory_window(app, {ImVec2(o.x, o.y + view_h), ImVec2(left, memory_h)});
  if (!alone) {
    draw_explanation_panel(app, {ImVec2(o.x + left, o.y), ImVec2(right, explanation_h)});
    draw_pseudocode_panel(app, {ImVec2(o.x + left, o.y + explanation_h), ImVec2(right, h - explanation_h)});
  }
  draw_quiz(app, {ImVec2(o.x, o.y + h - ask_h), ImVec2(left, ask_h)}, ask.text);
  begin_panel("##presentation-counter", {ImVec2(o.x, o.y + h), ImVec2(all.size.x, line)}, nullptr,
              ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoInputs);
  const std::string counter = presentation_status(app);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(counter.c_str());
  // The key hints, the longest that fits beside the counter (none when even the shortest
  // does not: the counter is what the room reads).
  const float gap = 20 * app.ui_scale;
  const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX() -
                     ImGui::CalcTextSize(counter.c_str()).x - gap;
  // The Measure tab's own key first: the mouse does nothing here, and R is how it runs.
  static const std::vector<const char*> kStepHints = {
      "→ / PgDn next   ← / PgUp back   Space play   N tour   M memory   L pen   Esc leave",
      "→ / PgDn next   ← / PgUp back   Space play   M memory   L pen   Esc leave",
      "→ / PgDn next   ← / PgUp back   Space play   M memory   Esc leave", "→ next   ← back   Space play   Esc leave",
      "→ next   ← back"};
  static const std::vector<const char*> kMeasureHints = {"R run / cancel   M memory   Esc leave",
                                                         "R run / cancel   Esc leave", "R run / cancel"};
  for (const char* hint : app.tab == Tab::measure_lab ? kMeasureHints : kStepHints) {
    // A slide of its own has no memory panel for M to show.
    std::string keys = hint;
    if (const std::size_t at = keys.find("   M memory"); alone && at != std::string::npos)
      keys.erase(at, std::strlen("   M memory"));
    const float w = ImGui::CalcTextSize(keys.c_str()).x;
    if (w > room) continue;
    ImGui::SameLine();
    ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - w);
    ImGui::TextDisabled("%s", keys.c_str());
    break;
  }
  ImGui::End();
  draw_tour(app);
}

}  // namespace

std::string presentation_status(AppState& app) {
  if (app.tab == Tab::measure_lab) {
    MeasureLab& lab = app.measure_lab;
    std::size_t points = 0;
    {
      std::lock_guard<std::mutex> lock(lab.mutex);
      points = lab.points.size();
    }
    const std::string measured = points == 1 ? "1 point" : strf("%zu points", points);
    if (lab.running)
      return strf("Measuring: %d %%  ·  ", static_cast<int>(std::lround(lab.progress.load() * 100))) + measured;
    return points == 0 ? std::string("Nothing measured yet") : measured + " measured";
  }
  const Timeline& tl = app.active_timeline();
  const Recording& rec = *app.played.rec;
  std::string counter = tl.empty() ? "no steps" : tl.position_text();
  // A lab of its own (not the lesson's): the steps are the lesson's, which → goes back to.
  if (app.tab != Tab::compare && presented_alone(app))
    counter = "Lesson " + std::to_string(app.current_lesson().number) + ": " + counter;
  if (!tl.empty() && tl.pass() >= 1 && tl.pass() <= rec.pass_count() && app.tab != Tab::compare)
    counter += "  ·  " + rec.pass_names[static_cast<std::size_t>(tl.pass() - 1)];
  if (tl.playing()) counter += "  ▶";
  return counter;
}

namespace {
// Drawing one panel alone (a picture of it, FrameOptions::panel): it is a figure, without the
// title bar, close button and border that frame it in the window.
bool g_panel_alone = false;
}  // namespace

bool panel_alone() { return g_panel_alone; }

bool begin_panel(const char* title, const PanelRect& r, bool* open, ImGuiWindowFlags extra) {
  ImGui::SetNextWindowPos(r.pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(r.size, ImGuiCond_Always);
  if (g_panel_alone) {
    extra |= ImGuiWindowFlags_NoTitleBar;
    open = nullptr;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  }
  const bool shown = ImGui::Begin(title, open,
                                  ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                      ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus | extra);
  if (g_panel_alone) ImGui::PopStyleVar();
  return shown;
}

const std::vector<std::string>& panel_names() {
  static const std::vector<std::string> kNames = {"lessons",    "inputs", "view",     "explanation",
                                                  "pseudocode", "memory", "timeline", "compare",
                                                  "overflow-lab", "scale-lab", "steps", "measure-lab"};
  return kNames;
}

bool is_panel_name(const std::string& name) {
  const auto& n = panel_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

void prepare_input(AppState& app) {
  app.pen.mouse = {};
  if (!app.presenting) return;
  ImGuiIO& io = ImGui::GetIO();
  app.pen.mouse = {io.MousePos.x, io.MousePos.y, io.MousePos.x > -FLT_MAX / 2 && io.MousePos.y > -FLT_MAX / 2,
                   io.MouseDown[0]};
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  for (bool& down : io.MouseDown) down = false;
  io.MouseWheel = io.MouseWheelH = 0.0f;
}

// A move of the lesson's playhead, by the keys or the clock, starts its animation; the pen's
// strokes go with the step they were drawn on.
void observe_moves(AppState& app, const FrameOptions& opt) {
  app.pen.live = opt.live;
  if (!opt.live || !app.played.rec) return;
  app.motion.observe(app.played.rec, app.played.cursor->position(), app.played.cursor->part(), app.clock(),
                     app.timeline.playing(), app.timeline.speed());
  app.pen.observe(app.played.cursor->position(), app.played.cursor->part(), app.presenting);
}

void draw_frame(AppState& app, const FrameOptions& opt) {
  app.hits.clear();  // what this frame's views draw where, as far as their windows show it
  app.hits.set_clip_source([] {
    // Read only: asking the fallback window (no window begun) for its draw list would show it.
    const ImGuiWindow* w = ImGui::GetCurrentWindowRead();
    if (!w || w->IsFallbackWindow) return Rect{};
    const ImVec2 a = w->DrawList->GetClipRectMin(), b = w->DrawList->GetClipRectMax();
    return Rect{a.x, a.y, b.x - a.x, b.y - a.y, true};
  });
  set_picture_mode(opt.picture || app.presenting);
  set_figure_mode(opt.picture);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  if (!opt.panel.empty()) {
    const PanelRect all{vp->Pos, vp->Size};
    const std::string& p = opt.panel;
    // A tab's panel is named as the tab; the lesson's own tab is the panel "view".
    const std::optional<Tab> tab_panel = parse_tab(p);
    if (p == "view" || tab_panel) {
      // The tab's contents alone, without the tab bar: a picture of one view.
      const Tab want = tab_panel.value_or(Tab::lesson);
      app.tab = want;
      ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
      begin_panel("##panel-alone", all, nullptr, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
      ImGui::PopStyleVar();
      app.hits.add_panel("View", Rect{all.pos.x, all.pos.y, all.size.x, all.size.y, true});
      g_panel_alone = true;
      draw_tab_content(app, want, !opt.picture);
      g_panel_alone = false;
      // The pen's strokes over the view, as presentation mode draws them over it (an export of
      // the view panel while presenting, or `shot --panel view --pen`).
      if (want == Tab::lesson) draw_pen_layer(app);
      ImGui::End();
      draw_tour(app);
    }
    g_panel_alone = true;
    if (p == "lessons") draw_lessons_panel(app, all);
    if (p == "inputs") draw_inputs_panel(app, all);
    if (p == "explanation") draw_explanation_panel(app, all);
    if (p == "pseudocode") draw_pseudocode_panel(app, all);
    if (p == "memory") draw_memory_window(app, all);
    if (p == "timeline") draw_timeline_panel(app, all);
    g_panel_alone = false;
    return;
  }

  check_quiz(app, opt);  // moves since the last frame (playback, the scrubber)
  observe_moves(app, opt);
  if (app.presenting) {
    if (opt.keyboard && !any_popup_open()) handle_shortcuts(app);
    check_quiz(app, opt);
    observe_moves(app, opt);
    draw_presentation(app, PanelRect{vp->Pos, vp->Size});
    draw_go_to(app);
    return;
  }
  bool quit = false;
  draw_menu_bar(app, &quit);
  if (quit) app.quit_requested = true;
  if (opt.keyboard && !any_popup_open()) handle_shortcuts(app);
  check_quiz(app, opt);
  observe_moves(app, opt);
  const float menu_h = ImGui::GetFrameHeight();
  PanelFlags f = app.panels;
  if (opt.picture) f.status = false;
  const Layout L = layout(app, f, ImVec2(vp->Pos.x, vp->Pos.y + menu_h), ImVec2(vp->Size.x, vp->Size.y - menu_h));
  if (app.tab == Tab::compare && f.view) f.explanation = f.pseudocode = f.memory = false;
  if (f.lessons) draw_lessons_panel(app, L.lessons);
  if (f.inputs) draw_inputs_panel(app, L.inputs);
  if (f.view) draw_view_panel(app, L.view);
  if (f.explanation) draw_explanation_panel(app, L.explanation);
  if (f.pseudocode) draw_pseudocode_panel(app, L.pseudocode);
  if (f.memory) draw_memory_window(app, L.memory);
  if (f.timeline) draw_timeline_panel(app, L.timeline);
  if (f.status) draw_status_bar(app, L.status);
  if (f.log) draw_log_panel(app, L.log);
  if (f.shortcuts) draw_shortcuts_window(app);
  if (f.view) draw_quiz(app, L.ask, L.ask_strip.text);
  draw_go_to(app);
  draw_tour(app);
}

}  // namespace flashstep::ui
