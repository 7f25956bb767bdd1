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

namespace flashstep::ui {

namespace {

// The strip's text width: its panel's less the padding.
float strip_text_width(float width) { return std::max(width - 2 * ImGui::GetStyle().WindowPadding.x, 1.0f); }

// The label before the prompt, the question's as the answer's, so the prompt stays in place.
constexpr const char* kLabel = "Predict before you look:";
// The strip's font size: a panel's, at the window font scale 1, whatever window is current
// (the layout measures it between windows).
float strip_font_size() { return ImGui::GetIO().FontGlobalScale * ImGui::GetFont()->FontSize; }
float prompt_width(float text_width) {
  const float label = ImGui::GetFont()->CalcTextSizeA(strip_font_size(), FLT_MAX, 0.0f, kLabel).x;
  return std::max(text_width - label - ImGui::GetStyle().ItemSpacing.x, 80.0f);
}

// The label, then the prompt wrapped beside it (its later lines under its first).
void labelled_prompt(const std::string& prompt, float text_width) {
  ImGui::TextDisabled("%s", kLabel);
  ImGui::SameLine();
  ImGui::BeginGroup();
  text_rich(prompt, prompt_width(text_width));
  ImGui::EndGroup();
}

}  // namespace

bool quiz_strip_shown(const AppState& app) {
  return app.quiz.on && app.tab == Tab::lesson && !app.timeline.empty();
}

// The prompt's lines beside its label (the tallest prompt of the lesson), and one row under them
// for the field, the verdict or the score: as tall at every step.
float quiz_strip_height(const AppState& app, float width) {
  if (!quiz_strip_shown(app)) return 0.0f;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float size = strip_font_size(), w = prompt_width(strip_text_width(width));
  int prompt = 1;
  for (const Question& qu : app.quiz.questions)
    prompt = std::max(prompt, static_cast<int>(wrap_rich(qu.prompt, w, size).size()));
  const float line = size + st.ItemSpacing.y, field = size + 2 * st.FramePadding.y + st.ItemSpacing.y;
  return line * static_cast<float>(prompt) + std::max(field, line) + 2 * st.WindowPadding.y;
}

void draw_quiz(AppState& app, const PanelRect& strip) {
  Quiz& q = app.quiz;
  if (!quiz_strip_shown(app) || strip.size.y <= 0) return;
  const float s = app.ui_scale;
  const Palette& pal = palette_of(app.theme);
  const float width = strip_text_width(strip.size.x);
  const int at = app.timeline.playhead();
  const Question* qu = q.question();
  if (qu && at != qu->step - 1) qu = nullptr;
  const Verdict* v = qu ? nullptr : quiz_reveal(q, at);
  const std::string total = quiz_score(q);
  const std::string score = total.empty()                        ? std::string()
                            : at == app.timeline.count() - 1 ? "End of the lesson: " + total
                                                             : "so far " + total;
  const char* id = qu ? "##ask-question" : v ? "##ask-answer" : "##ask-between";
  ImGui::PushStyleColor(ImGuiCol_Border, ImGui::ColorConvertU32ToFloat4(qu ? pal.current : pal.grid));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, (qu ? 2.0f : 1.0f) * s);
  const bool open = begin_panel(id, strip, nullptr, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
  app.hits.add_panel("Ask me first", Rect{strip.pos.x, strip.pos.y, strip.size.x, strip.size.y, true});
  if (!open) return ImGui::End();
  // What is left of the last row after what it holds so far.
  auto room = [&] { return ImGui::GetWindowContentRegionMax().x - ImGui::GetCursorPosX(); };
  if (qu) {
    labelled_prompt(qu->prompt, width);
    ImGui::SetNextItemWidth(std::max(ImGui::CalcTextSize(qu->hint.c_str()).x + 24 * s, 180 * s));
    if (q.focus) {
      ImGui::SetKeyboardFocusHere();
      q.focus = false;
    }
    const std::string hint = qu->hint;
    const bool entered = ImGui::InputTextWithHint("##answer", hint.c_str(), &q.input,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
    const bool escaped = key_pressed(ImGuiKey_Escape);
    // Beside the field: why the last input was not taken, then the keys where they still fit.
    if (!q.error.empty()) {
      ImGui::SameLine();
      ImGui::PushStyleColor(ImGuiCol_Text, pal.nonfinite);
      ImGui::TextUnformatted(q.error.c_str());
      ImGui::PopStyleColor();
    }
    const char* keys = "Enter: answer   Esc: skip";
    ImGui::SameLine();
    if (ImGui::CalcTextSize(keys).x <= room()) ImGui::TextDisabled("%s", keys);
    else ImGui::NewLine();
    ImGui::End();
    if (entered) quiz_enter(app);
    else if (escaped) quiz_escape(app);
    return;
  }
  if (v) {
    // The question of this step with the answer given; the score beside the verdict.
    labelled_prompt(quiz_question_at(q, at)->prompt, width);
    ImGui::PushStyleColor(ImGuiCol_Text, v->right ? pal.sram : pal.nonfinite);
    ImGui::TextUnformatted(v->line().c_str());
    ImGui::PopStyleColor();
    if (!score.empty()) {
      ImGui::SameLine(0, 24 * s);
      ImGui::TextDisabled("%s", score.c_str());
    }
  } else {
    // Between questions: where the next one comes, and the score.
    const std::string ahead = "Ask me first · " + quiz_ahead(q, at);
    ImGui::TextDisabled("%s", ahead.c_str());
    if (!score.empty()) ImGui::TextUnformatted(score.c_str());
    else if (!app.presenting) ImGui::TextDisabled("View ▸ Ask me first turns the questions off");
  }
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
