// The timeline: transport buttons, speed, "pass 2/3 · step 7/12", and a scrubber with the pass
// boundaries marked; plus the keyboard shortcuts that drive the same Timeline.
#include "app/ui/panels/panels.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>

namespace flashstep::ui {

namespace {

enum class Icon { first, prev_pass, prev, play, pause, next, next_pass, last };

// Colours of the passes on the scrubber (Okabe–Ito, muted): pass 1, 2, 3, …
constexpr ImU32 kPassColours[] = {IM_COL32(0, 114, 178, 255), IM_COL32(0, 158, 115, 255),
                                  IM_COL32(204, 121, 167, 255), IM_COL32(230, 159, 0, 255),
                                  IM_COL32(86, 180, 233, 255)};
constexpr ImU32 kPlayhead = IM_COL32(240, 228, 66, 255);

void triangle(ImDrawList* dl, ImVec2 c, float h, bool right, ImU32 col) {
  const float w = h * 0.9f;
  if (right)
    dl->AddTriangleFilled(ImVec2(c.x - w * 0.5f, c.y - h * 0.5f), ImVec2(c.x + w * 0.5f, c.y),
                          ImVec2(c.x - w * 0.5f, c.y + h * 0.5f), col);
  else
    dl->AddTriangleFilled(ImVec2(c.x + w * 0.5f, c.y - h * 0.5f), ImVec2(c.x - w * 0.5f, c.y),
                          ImVec2(c.x + w * 0.5f, c.y + h * 0.5f), col);
}

bool icon_button(const char* id, Icon icon, const char* tip, float s, bool enabled = true) {
  const float h = ImGui::GetFrameHeight();
  if (!enabled) ImGui::BeginDisabled();
  const bool pressed = ImGui::Button(id, ImVec2(h * 1.5f, h));
  if (!enabled) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tip);
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const ImVec2 c((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 col = ImGui::GetColorU32(enabled ? ImGuiCol_Text : ImGuiCol_TextDisabled);
  const float t = h * 0.42f, bar = 2.0f * s;
  switch (icon) {
    case Icon::first:
      dl->AddRectFilled(ImVec2(c.x - t * 0.55f - bar, c.y - t * 0.5f), ImVec2(c.x - t * 0.55f, c.y + t * 0.5f), col);
      triangle(dl, ImVec2(c.x + t * 0.05f, c.y), t, false, col);
      break;
    case Icon::prev_pass:
      triangle(dl, ImVec2(c.x - t * 0.4f, c.y), t, false, col);
      triangle(dl, ImVec2(c.x + t * 0.4f, c.y), t, false, col);
      break;
    case Icon::prev: triangle(dl, c, t, false, col); break;
    case Icon::play: triangle(dl, c, t * 1.1f, true, col); break;
    case Icon::pause:
      dl->AddRectFilled(ImVec2(c.x - t * 0.45f, c.y - t * 0.5f), ImVec2(c.x - t * 0.12f, c.y + t * 0.5f), col);
      dl->AddRectFilled(ImVec2(c.x + t * 0.12f, c.y - t * 0.5f), ImVec2(c.x + t * 0.45f, c.y + t * 0.5f), col);
      break;
    case Icon::next: triangle(dl, c, t, true, col); break;
    case Icon::next_pass:
      triangle(dl, ImVec2(c.x - t * 0.4f, c.y), t, true, col);
      triangle(dl, ImVec2(c.x + t * 0.4f, c.y), t, true, col);
      break;
    case Icon::last:
      triangle(dl, ImVec2(c.x - t * 0.05f, c.y), t, true, col);
      dl->AddRectFilled(ImVec2(c.x + t * 0.55f, c.y - t * 0.5f), ImVec2(c.x + t * 0.55f + bar, c.y + t * 0.5f), col);
      break;
  }
  return pressed;
}

std::string speed_text(double v) {
  return (v < 1 ? strf("%.2g", v) : strf("%.0f", v)) + (v == 1 ? " step/s" : " steps/s");
}

// The scrubber: one coloured band per segment, the played part brighter, the playhead on top.
// Returns true when the user moved the playhead.
// `stops`: the tour's stops' steps, marked above the bar (−1: a stop that does not happen).
bool scrubber(Timeline& tl, const Recording* rec, float s, const std::vector<int>* stops = nullptr, ImU32 mark = 0) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = std::max(ImGui::GetContentRegionAvail().x, 10.0f);
  const float h = ImGui::GetFrameHeight() * 1.15f;
  ImGui::InvisibleButton("##scrubber", ImVec2(w, h));
  const int n = tl.count();
  if (n == 0) return false;
  auto X = [&](int k) { return p0.x + w * static_cast<float>(k) / static_cast<float>(n); };
  const auto& segs = tl.segments();
  const float fh = ImGui::GetFontSize();
  // The current step as a bright block under the labels, so the playhead reads even with
  // thousands of steps and the pass name stays readable on top of it.
  const float a = X(tl.playhead()), b = std::max(X(tl.playhead() + 1), a + 3 * s);
  for (int i = 0; i < static_cast<int>(segs.size()); ++i) {
    const float a0 = X(segs[static_cast<std::size_t>(i)].start), b0 = X(tl.segment_end(i));
    const ImU32 c = kPassColours[(segs[static_cast<std::size_t>(i)].pass - 1) % 5];
    const bool played = tl.playhead() >= segs[static_cast<std::size_t>(i)].start;
    dl->AddRectFilled(ImVec2(a0, p0.y), ImVec2(b0, p0.y + h), with_alpha(c, played ? 0.55f : 0.28f));
    if (i > 0) dl->AddLine(ImVec2(a0, p0.y - 2 * s), ImVec2(a0, p0.y + h + 2 * s), IM_COL32(235, 235, 240, 230), 2.0f * s);
  }
  dl->AddRectFilled(ImVec2(a, p0.y), ImVec2(b, p0.y + h), with_alpha(kPlayhead, 0.45f));
  dl->AddRect(ImVec2(a, p0.y), ImVec2(b, p0.y + h), kPlayhead, 0.0f, 0, 2.0f * s);
  // The tour's stops under the pass names, which are drawn over them with their halo (a stop's
  // tick cut "2 sum of | exponentials" in two).
  if (stops)
    for (int k : *stops)
      if (k >= 0 && k < n) {
        const float x = (X(k) + X(k + 1)) * 0.5f;
        dl->AddRectFilled(ImVec2(x - 1.5f * s, p0.y), ImVec2(x + 1.5f * s, p0.y + h), mark);
        dl->AddCircleFilled(ImVec2(x, p0.y + h), 4.0f * s, mark);
      }
  for (int i = 0; i < static_cast<int>(segs.size()); ++i) {
    const float a0 = X(segs[static_cast<std::size_t>(i)].start), b0 = X(tl.segment_end(i));
    // The pass name where it fits.
    if (rec && segs[static_cast<std::size_t>(i)].pass <= rec->pass_count()) {
      const std::string& name = rec->pass_names[static_cast<std::size_t>(segs[static_cast<std::size_t>(i)].pass - 1)];
      const std::string label = strf("%d %s", segs[static_cast<std::size_t>(i)].pass, name.c_str());
      // The whole name, else its first words and "…" ("4 backward: dV…"), else the number alone.
      auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x + 8 * s < b0 - a0; };
      std::string shown = fits(label) ? label : std::string();
      for (std::size_t cut = label.rfind(' '); shown.empty() && cut != std::string::npos && cut > 0;
           cut = label.rfind(' ', cut - 1)) {
        std::string t = label.substr(0, cut);
        while (!t.empty() && (t.back() == ':' || t.back() == ',' || t.back() == '=' || t.back() == ' ')) t.pop_back();
        if (t.find(' ') != std::string::npos && fits(t + "…")) shown = t + "…";
      }
      if (shown.empty() && ImGui::CalcTextSize("9").x + 6 * s < b0 - a0)
        shown = std::to_string(segs[static_cast<std::size_t>(i)].pass);
      const ImVec2 tp(a0 + 4 * s, p0.y + (h - fh) * 0.5f);
      // A dark halo keeps the label readable over the yellow playhead.
      dl->AddText(ImVec2(tp.x + 1, tp.y + 1), IM_COL32(0, 0, 0, 220), shown.c_str());
      dl->AddText(tp, IM_COL32(240, 240, 245, 255), shown.c_str());
    }
  }
  dl->AddTriangleFilled(ImVec2((a + b) * 0.5f - 6 * s, p0.y - 7 * s), ImVec2((a + b) * 0.5f + 6 * s, p0.y - 7 * s),
                        ImVec2((a + b) * 0.5f, p0.y), kPlayhead);
  dl->AddRect(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(120, 120, 135, 255));

  const ImVec2 mouse = ImGui::GetIO().MousePos;
  // Clamped as a float: with no mouse ImGui puts it at -FLT_MAX, which no int holds.
  const float along = (mouse.x - p0.x) / w * static_cast<float>(n);
  const int at = along >= 0.0f ? static_cast<int>(std::min(along, static_cast<float>(n - 1))) : 0;
  if (ImGui::IsItemHovered() && rec && at < rec->step_count()) {
    const Step& st = rec->steps[static_cast<std::size_t>(at)];
    tooltip(strf("step %d · pass %d", at + 1, st.pass), st.label + "\n" + st.text);
  }
  if (ImGui::IsItemActive()) return tl.seek(at);
  return false;
}

}  // namespace

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> kShortcuts = {
      {"Space", "play / pause"},
      {"→  /  ←", "next / previous step"},
      {".  /  ,", "next / previous part of a step (a tile's S, P̃ and merge, one pseudocode line each)"},
      {"]  /  [", "the close-up's next / previous query rows, when the step has more than it shows at once"},
      {"Shift+→  /  Shift+←", "next pass / start of this (or the previous) pass"},
      {"Home  /  End", "first / last step"},
      {"+  /  −", "play faster / slower"},
      {"↓  /  ↑", "next / previous lesson"},
      {"PgDn  /  PgUp", "next / previous step (presentation clickers)"},
      {"P  or  F5", "presentation mode: full screen, large, no controls"},
      {"M", "presentation mode: show or hide the memory panel (HBM and SRAM)"},
      {"L", "presentation mode: the pen on / off (drag to draw; the strokes clear on the next step)"},
      {"R", "Measure it yourself: run the measurement, or cancel it (presentation mode too)"},
      {"Ctrl+O  /  Ctrl+S", "open / save a scenario file (Ctrl+Shift+S: save as)"},
      {"Ctrl+E", "export a picture, an animation or the recording"},
      {"Ctrl+G", "go to a step, a pass, a row or a tile: 12, pass 2, row 3, tile (1, 2)"},
      {"Click  /  Shift+click", "a cell, bar or tile of the view: go to the step that wrote it / first read it"},
      {"Enter  /  Esc", "Ask me first (View menu): answer the question / skip it"},
      {"Ctrl+Z  /  Ctrl+Shift+Z", "undo / redo an input change (Ctrl+Y redoes too)"},
      {"Ctrl+=  /  Ctrl+−  /  Ctrl+0", "larger / smaller / normal font"},
      {"F1", "show or hide this list"},
      {"Ctrl+Q", "quit"},
      {"N  /  B", "guided tour: next / previous stop (N starts the lesson's tour; View ▸ Tour)"},
      {"Esc", "close this list, leave the tour, leave presentation mode, put back the inputs in use after a refused value"},
  };
  return kShortcuts;
}

namespace {

// The keys the shortcuts read (GLFW's codes, which are ImGui's key indices here).
constexpr int kShortcutKeys[] = {
    GLFW_KEY_F1,    GLFW_KEY_ESCAPE,   GLFW_KEY_F5,     GLFW_KEY_Q,          GLFW_KEY_O,         GLFW_KEY_S,
    GLFW_KEY_E,     GLFW_KEY_EQUAL,    GLFW_KEY_KP_ADD, GLFW_KEY_MINUS,      GLFW_KEY_KP_SUBTRACT, GLFW_KEY_0,
    GLFW_KEY_KP_0,  GLFW_KEY_P,        GLFW_KEY_M,      GLFW_KEY_SPACE,      GLFW_KEY_RIGHT,     GLFW_KEY_LEFT,
    GLFW_KEY_PAGE_DOWN, GLFW_KEY_PAGE_UP, GLFW_KEY_HOME, GLFW_KEY_END,       GLFW_KEY_DOWN,      GLFW_KEY_UP,
    GLFW_KEY_Z,     GLFW_KEY_Y,        GLFW_KEY_R,      GLFW_KEY_N,          GLFW_KEY_B,
    GLFW_KEY_G,
    GLFW_KEY_L,
};

// This frame's presses, in order. From the window they are every press GLFW reported, so a
// press and release within one frame (a presentation clicker's) still counts; without a window
// (tests, exports) they are what ImGui saw pressed.
std::vector<KeyPress> presses_this_frame(AppState& app) {
  if (app.key_presses_from_window) return std::exchange(app.key_presses, {});
  std::vector<KeyPress> out;
  const ImGuiIO& io = ImGui::GetIO();
  for (int k : kShortcutKeys)
    if (ImGui::IsKeyPressed(k, true)) out.push_back({k, io.KeyShift, io.KeyCtrl, !ImGui::IsKeyPressed(k, false)});
  return out;
}

}  // namespace

void handle_shortcuts(AppState& app) {
  ImGuiIO& io = ImGui::GetIO();
  bool moved = false;
  for (const KeyPress& p : presses_this_frame(app)) {
    Timeline& tl = app.active_timeline();  // a lesson switch by an earlier press loads another
    const bool first = !p.repeat;  // toggles and commands only on the first press, not on repeats
    if (p.key == GLFW_KEY_F1 && first) app.panels.shortcuts = !app.panels.shortcuts;
    if (p.key == GLFW_KEY_ESCAPE && first) {
      // One thing at a time: the shortcut list, the tour, presentation mode, then a refused input.
      if (!app.panels.shortcuts && !io.WantTextInput) {
        if (app.tour.on) set_tour(app, false);
        else if (app.presenting) app.presenting = false;
        else app.revert_inputs();
      }
      app.panels.shortcuts = false;
    }
    if (p.key == GLFW_KEY_F5 && first) app.presenting = !app.presenting;
    if (p.ctrl) {  // Ctrl+key is never a playback key
      if (!first) continue;
      if (p.key == GLFW_KEY_Q) app.quit_requested = true;
      if (p.key == GLFW_KEY_O) app.requests.open = true;
      if (p.key == GLFW_KEY_S) (p.shift ? app.requests.save_as : app.requests.save) = true;
      if (p.key == GLFW_KEY_E) app.requests.export_dialog = true;
      if (p.key == GLFW_KEY_G) app.go_to.open = true;
      if (p.key == GLFW_KEY_EQUAL || p.key == GLFW_KEY_KP_ADD) app.bigger_font();
      if (p.key == GLFW_KEY_MINUS || p.key == GLFW_KEY_KP_SUBTRACT) app.smaller_font();
      if (p.key == GLFW_KEY_0 || p.key == GLFW_KEY_KP_0) app.set_font_scale(1.0f);
      // In a text field Ctrl+Z is the field's own undo.
      if (!io.WantTextInput && p.key == GLFW_KEY_Z) p.shift ? app.redo_inputs() : app.undo_inputs();
      if (!io.WantTextInput && p.key == GLFW_KEY_Y) app.redo_inputs();
      continue;
    }
    // Typing into a field must not move the playhead.
    if (io.WantTextInput) continue;
    if (p.key == GLFW_KEY_P && first) app.presenting = !app.presenting;
    if (p.key == GLFW_KEY_M && first && app.presenting) app.presentation_memory = !app.presentation_memory;
    if (p.key == GLFW_KEY_L && first && app.presenting) app.pen.toggle();
    // The Measure tab's Run and Cancel, which the mouse cannot reach in presentation mode.
    if (p.key == GLFW_KEY_R && first && app.tab == Tab::measure_lab) {
      if (app.measure_lab.running)
        app.measure_lab.cancel = true;
      else
        start_measure(app.measure_lab);
    }
    // The tour's stops (N starts it), on the lesson's recording.
    const bool tour_here = app.tab != Tab::compare || app.current_lesson().tab == "compare";
    if (p.key == GLFW_KEY_N && tour_here) {
      if (app.tour.on) tour_step(app, +1);
      else if (first) set_tour(app, true);
    }
    if (p.key == GLFW_KEY_B && app.tour.on && tour_here) tour_step(app, -1);
    if (p.key == GLFW_KEY_SPACE && first) {
      tl.toggle_play();
      moved = true;
    }
    if (p.key == GLFW_KEY_RIGHT) moved |= p.shift ? tl.next_pass() : tl.step(1);
    if (p.key == GLFW_KEY_LEFT) moved |= p.shift ? tl.prev_pass() : tl.step(-1);
    if (p.key == GLFW_KEY_PAGE_DOWN) moved |= tl.step(1);
    if (p.key == GLFW_KEY_PAGE_UP) moved |= tl.step(-1);
    if (p.key == GLFW_KEY_HOME) moved |= tl.first();
    if (p.key == GLFW_KEY_END) moved |= tl.last();
    if (p.key == GLFW_KEY_KP_ADD) tl.faster();
    if (p.key == GLFW_KEY_KP_SUBTRACT) tl.slower();
    if (p.key == GLFW_KEY_DOWN && app.lesson + 1 < static_cast<int>(lessons().size())) app.open_lesson(app.lesson + 1);
    if (p.key == GLFW_KEY_UP && app.lesson > 0) app.open_lesson(app.lesson - 1);
  }
  if (!io.KeyCtrl && !io.WantTextInput) {
    Timeline& t = app.active_timeline();
    for (ImWchar c : io.InputQueueCharacters) {
      if (c == '+' || c == '=') t.faster();
      if (c == '-' || c == 0x2212) t.slower();
      // By characters, wherever . and , sit on the keyboard. Compare's two recordings share a
      // playhead but not their parts, so it moves by whole steps only.
      if (c == '.' && app.tab != Tab::compare) moved |= t.step_part(1);
      if (c == ',' && app.tab != Tab::compare) moved |= t.step_part(-1);
      // The close-up's other query rows (a tile with more rows than it shows at a time).
      if (c == ']' || c == '[') {
        const int delta = c == ']' ? 1 : -1;
        if (app.tab == Tab::compare)
          for (ViewStates& v : app.compare.views) page_close_up(v.get<MatrixViewOptions>(), delta);
        else
          page_close_up(app.views.get<MatrixViewOptions>(), delta);
      }
    }
  }
  if (moved) app.timeline_used();
}

void draw_timeline_panel(AppState& app, const PanelRect& r) {
  if (!begin_panel("Timeline", r, &app.panels.timeline,
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar |
                       ImGuiWindowFlags_NoScrollWithMouse)) {
    ImGui::End();
    return;
  }
  const float s = app.ui_scale;
  Timeline& tl = app.active_timeline();
  const Recording* rec = app.tab == Tab::compare
                             ? (app.compare.left.rec->step_count() >= app.compare.right.rec->step_count()
                                    ? app.compare.left.rec.get()
                                    : app.compare.right.rec.get())
                             : app.played.rec.get();
  const bool any = !tl.empty();
  bool moved = false;
  moved |= icon_button("##first", Icon::first, "first step (Home)", s, any) && tl.first();
  ImGui::SameLine(0, 3 * s);
  moved |= icon_button("##prevpass", Icon::prev_pass, "previous pass (Shift+←)", s, any) && tl.prev_pass();
  ImGui::SameLine(0, 3 * s);
  moved |= icon_button("##prev", Icon::prev, "previous step (←)", s, any) && tl.step(-1);
  ImGui::SameLine(0, 3 * s);
  if (icon_button("##play", tl.playing() ? Icon::pause : Icon::play,
                  tl.playing() ? "pause (Space)" : "play (Space)", s, any)) {
    tl.toggle_play();
    moved = true;
  }
  ImGui::SameLine(0, 3 * s);
  moved |= icon_button("##next", Icon::next, "next step (→)", s, any) && tl.step(1);
  ImGui::SameLine(0, 3 * s);
  moved |= icon_button("##nextpass", Icon::next_pass, "next pass (Shift+→)", s, any) && tl.next_pass();
  ImGui::SameLine(0, 3 * s);
  moved |= icon_button("##last", Icon::last, "last step (End)", s, any) && tl.last();

  ImGui::SameLine(0, 18 * s);
  if (ImGui::Button("−", ImVec2(ImGui::GetFrameHeight(), 0))) tl.slower();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("slower (−)");
  ImGui::SameLine(0, 3 * s);
  const std::string sp = speed_text(tl.speed());
  ImGui::Button(sp.c_str(), ImVec2(ImGui::CalcTextSize("0000 steps/s").x, 0));
  ImGui::SameLine(0, 3 * s);
  if (ImGui::Button("+", ImVec2(ImGui::GetFrameHeight(), 0))) tl.faster();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("faster (+)");
  help_marker("Playback speed in steps per second while playing (Space).");

  ImGui::SameLine(0, 18 * s);
  // On the Compare tab only where the lesson opens there: its stops are the lesson's steps.
  const bool tour_here = app.tab != Tab::compare || app.current_lesson().tab == "compare";
  const bool has_tour = !shown_tour(app).empty() && tour_here;
  if (!has_tour) ImGui::BeginDisabled();
  if (ImGui::Button(app.tour.on ? "Tour ■" : "Tour")) set_tour(app, !app.tour.on);
  if (!has_tour) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", has_tour ? "The lesson's guided tour: what to notice, stop by stop (N next, B back, "
                                       "Esc leaves). Its stops are marked on the timeline."
                                     : "No tour here: the lesson's tour walks the lesson's own recording.");

  ImGui::SameLine(0, 18 * s);
  // Where the playhead is, its pass's name and the F1 hint at the right edge, as the room
  // allows: a larger font drops the hint first, then the pass's name, then says the position
  // in brief ("step 5/12"); the tooltip has it all.
  const std::string pos = tl.position_text();
  const std::string name = rec && any && tl.pass() >= 1 && tl.pass() <= rec->pass_count()
                               ? "(" + rec->pass_names[static_cast<std::size_t>(tl.pass() - 1)] + ")"
                               : "";
  const char* f1 = "F1: all shortcuts";
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float room = ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX();
  const float pos_w = ImGui::CalcTextSize(pos.c_str()).x;
  const float name_w = name.empty() ? 0.0f : gap + ImGui::CalcTextSize(name.c_str()).x;
  const bool with_name = pos_w + name_w <= room;
  const bool with_f1 = with_name && pos_w + name_w + gap + ImGui::CalcTextSize(f1).x <= room;
  ImGui::TextUnformatted(with_name || pos_w <= room ? pos.c_str() : tl.brief_position_text().c_str());
  if (ImGui::IsItemHovered() && !with_f1)
    ImGui::SetTooltip("%s %s\n%s", pos.c_str(), name.c_str(), f1);
  if (with_name && !name.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", name.c_str());
  }
  if (with_f1) {
    ImGui::SameLine();
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(f1).x));
    ImGui::TextDisabled("%s", f1);
  }

  ImGui::Dummy(ImVec2(0, 4 * s));
  const bool marks = app.tour.on && tour_here;
  moved |= scrubber(tl, rec, s, marks ? &tour_steps(app) : nullptr, palette_of(app.theme).pointer);
  if (moved) app.timeline_used();
  ImGui::End();
}

}  // namespace flashstep::ui
