// Ask me first's question box over the view, and the Go to… box (Ctrl+G). What they do is the
// model's (app/ui/model/ask.h); here they are drawn and read from the keyboard.
#include "app/ui/panels/panels.h"
#include "app/ui/views/hit_map.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <optional>
#include <cfloat>
#include <cmath>
#include <vector>

namespace flashstep::ui {

namespace {

constexpr ImGuiWindowFlags kBoxFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                       ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove |
                                       ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

// The box hangs from the top of `area` (the memory panel, under the view) or, with `below`
// false, stands on the bottom of the view: never over what the step points at (its cells and
// registers, which hold what the answer follows from and, once answered, the value itself; its
// memory tiles and the arrows of what it loads and writes; its pseudocode lines, as the frame's
// HitMap has them). Where its place would cover any of them, the nearest place clear of them
// in `area`, then on the screen.
// `lines`: its lines of text at `width`, beside one field where `field`.
bool begin_box(const AppState& app, const char* id, const PanelRect& area, bool below, float s, float width,
               int lines, bool field) {
  std::vector<Rect> avoid;
  const int at = app.timeline.playhead();
  if (app.played.rec && at >= 0 && at < app.played.rec->step_count())
    avoid = app.hits.step_rects(app.played.rec->steps[static_cast<std::size_t>(at)]);
  // Its size: its width and lines, or as drawn last frame where that is larger (a box that has
  // just appeared is measured a frame later).
  const ImVec2 pad(14 * s, 10 * s);
  ImVec2 size(width + 2 * pad.x, ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(lines) +
                                     (field ? ImGui::GetFrameHeightWithSpacing() : 0.0f) + 2 * pad.y);
  if (const ImGuiWindow* last = ImGui::FindWindowByName(id); last && last->WasActive)
    size = ImVec2(std::max(size.x, last->SizeFull.x), std::max(size.y, last->SizeFull.y));
  const float y = below ? area.pos.y + 6 * s : area.pos.y + area.size.y - 14 * s - size.y;
  std::vector<Rect> boxes = {Rect{area.pos.x + (area.size.x - size.x) * 0.5f, y, size.x, size.y, true}};
  const Rect own{area.pos.x, area.pos.y, area.size.x, area.size.y, true};
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const Rect screen{vp->Pos.x, vp->Pos.y, vp->Size.x, vp->Size.y, true};
  // Else the clear place nearest to that one, within `area`, then on the screen.
  for (const Rect& within : {own, screen}) {
    std::vector<Rect> grid = grid_boxes(within, size.x, size.y, 16 * s);
    const Rect& want = boxes.front();
    auto far = [&](const Rect& b) { return std::hypot(b.x - want.x, b.y - want.y); };
    std::stable_sort(grid.begin(), grid.end(), [&](const Rect& a, const Rect& b) { return far(a) < far(b); });
    boxes.insert(boxes.end(), grid.begin(), grid.end());
  }
  const int pick = first_clear(boxes, avoid);
  const Rect& box = boxes[static_cast<std::size_t>(std::max(pick, 0))];
  ImGui::SetNextWindowPos(ImVec2(box.x, box.y), ImGuiCond_Always);
  ImGui::SetNextWindowBgAlpha(0.96f);
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(std::max(area.size.x - 40 * s, 200.0f), FLT_MAX));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, pad);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * s);
  const bool open = ImGui::Begin(id, nullptr, kBoxFlags);
  ImGui::PopStyleVar(2);
  return open;
}

void text_wrapped_at(const std::string& text, float width) {
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_quiz(AppState& app, const PanelRect& area, bool below) {
  Quiz& q = app.quiz;
  if (!q.on || app.tab != Tab::lesson || app.timeline.empty()) return;
  const float s = app.ui_scale;
  const Palette& pal = palette_of(app.theme);
  const float width = std::clamp(area.size.x * 0.6f, 260 * s, 620 * s);
  const int at = app.timeline.playhead();
  if (const Question* qu = q.question(); qu && at == qu->step - 1) {
    const int lines = 1 + static_cast<int>(wrap_rich(qu->prompt, width, ImGui::GetFontSize()).size()) +
                      (q.error.empty() ? 0 : 2);
    if (!begin_box(app, "##ask-question", area, below, s, width, lines, true)) return ImGui::End();
    ImGui::TextDisabled("Predict before you look");
    text_rich(qu->prompt, width);
    ImGui::SetNextItemWidth(std::max(width * 0.55f, ImGui::CalcTextSize(qu->hint.c_str()).x + 24 * s));
    if (q.focus) {
      ImGui::SetKeyboardFocusHere();
      q.focus = false;
    }
    const std::string hint = qu->hint;
    const bool entered = ImGui::InputTextWithHint("##answer", hint.c_str(), &q.input,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
    const bool escaped = key_pressed(ImGuiKey_Escape);
    ImGui::SameLine();
    ImGui::TextDisabled("Enter: answer   Esc: skip");
    if (!q.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.nonfinite);
      text_wrapped_at(q.error, width);
      ImGui::PopStyleColor();
    }
    ImGui::End();
    if (entered) quiz_enter(app);
    else if (escaped) quiz_escape(app);
    return;
  }
  const Verdict* v = quiz_reveal(q, at);
  const bool last = at == app.timeline.count() - 1;
  const std::string total = last ? quiz_score(q) : std::string();
  if (!v && total.empty()) return;
  const int lines = (v ? 1 + static_cast<int>(wrap_rich(quiz_question_at(q, at)->prompt, width, ImGui::GetFontSize()).size()) : 0) +
                    (total.empty() ? 0 : 1);
  if (!begin_box(app, "##ask-answer", area, below, s, width, lines, false)) return ImGui::End();
  if (v) {
    text_rich(quiz_question_at(q, at)->prompt, width);
    ImGui::PushStyleColor(ImGuiCol_Text, v->right ? pal.sram : pal.nonfinite);
    ImGui::TextUnformatted(v->line().c_str());
    ImGui::PopStyleColor();
  }
  if (!total.empty()) ImGui::Text("End of the lesson: %s", total.c_str());
  ImGui::End();
}

void click_to_jump(AppState& app) {
  if (app.presenting || !ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows)) return;
  const ImGuiIO& io = ImGui::GetIO();
  auto jumpable = [&](ImVec2 p) -> std::optional<Hit> {
    auto h = app.hits.at(p.x, p.y);
    if (!h || h->buffer < 0 || h->row < 0 || h->col < 0) return std::nullopt;
    if (h->kind != HitKind::cell && h->kind != HitKind::bar && h->kind != HitKind::reg && h->kind != HitKind::node)
      return std::nullopt;
    return h;
  };
  const auto hit = jumpable(io.MousePos);
  if (!hit) return;
  // Beside the view's own tooltip for the element (the same window: it appends).
  ImGui::BeginTooltip();
  ImGui::TextDisabled("click: go to the step that wrote it · Shift+click: the first step that read it");
  ImGui::EndTooltip();
  // A click, not a drag (the matrix view scrolls by dragging), pressed and released on one cell.
  if (!ImGui::IsMouseReleased(0) || io.MouseDragMaxDistanceSqr[0] > io.MouseDragThreshold * io.MouseDragThreshold)
    return;
  const auto pressed = jumpable(io.MouseClickedPos[0]);
  if (!pressed || pressed->buffer != hit->buffer || pressed->row != hit->row || pressed->col != hit->col) return;
  jump_to_cell(app, hit->buffer, hit->row, hit->col, io.KeyShift);
}

void draw_go_to(AppState& app) {
  GoToBox& g = app.go_to;
  if (g.open) {
    ImGui::OpenPopup("Go to…");
    g.open = false;
    g.error.clear();
    g.text.clear();
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.3f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("Go to…", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  const float s = app.ui_scale;
  ImGui::TextUnformatted("A step, a pass, a row or a tile:");
  ImGui::TextDisabled("12   pass 2   normalize   row 3   tile (1, 2)");
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::SetNextItemWidth(380 * s);
  const bool entered = ImGui::InputText("##go-to", &g.text, ImGuiInputTextFlags_EnterReturnsTrue);
  if (!g.error.empty()) {
    const Palette& pal = palette_of(app.theme);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.nonfinite);
    ImGui::TextUnformatted(g.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::TextDisabled("Enter: go   Esc: cancel");
  if (entered) {
    if (go_to_apply(app)) ImGui::CloseCurrentPopup();
    else ImGui::SetKeyboardFocusHere(-1);  // keep typing in the field
  } else if (key_pressed(ImGuiKey_Escape)) {
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace flashstep::ui
