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

void text_wrapped_at(const std::string& text, float width) {
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

// The strip's text width: its panel's less the padding.
float strip_text_width(float width) { return std::max(width - 2 * ImGui::GetStyle().WindowPadding.x, 1.0f); }

float label_width(const char* label) { return ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemSpacing.x; }

// The label before the prompt, the question's as the answer's, so the prompt stays in place: in
// full where it leaves the prompt most of the strip, else short (a larger font, a narrow window).
const char* label_at(float text_width) {
  constexpr const char* kLong = "Predict before you look:";
  return label_width(kLong) <= 0.45f * text_width ? kLong : "Predict:";
}
float prompt_width(float text_width) { return std::max(text_width - label_width(label_at(text_width)), 80.0f); }

// The label, then the prompt wrapped beside it (its later lines under its first).
void labelled_prompt(const std::string& prompt, float text_width) {
  ImGui::TextDisabled("%s", label_at(text_width));
  ImGui::SameLine();
  ImGui::BeginGroup();
  text_rich(prompt, prompt_width(text_width));
  ImGui::EndGroup();
}

}  // namespace

bool quiz_strip_shown(const AppState& app) {
  return app.quiz.on && app.tab == Tab::lesson && !app.timeline.empty();
}

// The prompt's lines beside its label (the tallest prompt of the lesson, laid out as the strip
// lays it out, in a window off the screen), and one row under them for the field, the verdict or
// the score: as tall at every step. Where that is more than `most`, its text gives way, as the
// presenting panels' does (down to half its size at font 1×).
QuizStrip quiz_strip(const AppState& app, float width, float most) {
  if (!quiz_strip_shown(app)) return {};
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SetNextWindowPos(ImVec2(-100000.0f, -100000.0f));
  ImGui::SetNextWindowSize(ImVec2(width, 10000.0f));
  ImGui::Begin("##measure-ask", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoBackground |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  const float w = strip_text_width(width);
  const float chrome = 2 * st.WindowPadding.y + 2 * st.WindowBorderSize + 2.0f;
  float measured = 0;  // at the scale last tried, which is the one shrink_to_fit returns
  auto content = [&] {
    float tallest = ImGui::GetTextLineHeightWithSpacing();
    for (const Question& qu : app.quiz.questions) {
      const float y0 = ImGui::GetCursorPosY();
      labelled_prompt(qu.prompt, w);
      tallest = std::max(tallest, ImGui::GetCursorPosY() - y0);
    }
    measured = tallest + std::max(ImGui::GetFrameHeight(), ImGui::GetTextLineHeight());
    return measured;
  };
  QuizStrip out;
  {
    TextScale text;
    out.text = shrink_to_fit(text, most - chrome, content, lowest_text_scale(app.font_scale));
    out.height = std::min(measured + chrome, most);
  }
  ImGui::End();
  return out;
}

void draw_quiz(AppState& app, const PanelRect& strip, float text_scale) {
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
  const std::string score = total.empty()                    ? std::string()
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
  bool entered = false, escaped = false;
  {
    TextScale text;
    text.set(text_scale);
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    if (qu) {
      // Why the last input was not taken goes beside the field where it fits there, else in the
      // prompt's place (it says what to type); the field keeps the strip's last row either way.
      const float least = ImGui::CalcTextSize(qu->hint.c_str()).x + 24 * s;
      const float error_w = q.error.empty() ? 0.0f : ImGui::CalcTextSize(q.error.c_str()).x;
      const bool beside = q.error.empty() || error_w <= width - least - spacing;
      if (beside) {
        labelled_prompt(qu->prompt, width);
      } else {
        ImGui::PushStyleColor(ImGuiCol_Text, pal.nonfinite);
        text_wrapped_at(q.error, width);
        ImGui::PopStyleColor();
      }
      ImGui::SetCursorPosY(
          std::max(ImGui::GetCursorPosY(), ImGui::GetWindowContentRegionMax().y - ImGui::GetFrameHeight()));
      // The field as wide as its hint and some, narrower where the refusal must fit beside it.
      float field = std::max(least, 180 * s);
      if (beside && !q.error.empty()) field = std::max(least, std::min(field, width - error_w - spacing));
      ImGui::SetNextItemWidth(field);
      if (q.focus) {
        ImGui::SetKeyboardFocusHere();
        q.focus = false;
      }
      const std::string hint = qu->hint;
      entered = ImGui::InputTextWithHint("##answer", hint.c_str(), &q.input, ImGuiInputTextFlags_EnterReturnsTrue);
      escaped = key_pressed(ImGuiKey_Escape);
      if (beside && !q.error.empty()) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, pal.nonfinite);
        ImGui::TextUnformatted(q.error.c_str());
        ImGui::PopStyleColor();
      }
      // The keys where they still fit, measured from the last item's end (a SameLine with nothing
      // after it would still widen what the strip holds).
      const char* keys = "Enter: answer   Esc: skip";
      const float left = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x - ImGui::GetItemRectMax().x;
      if (ImGui::CalcTextSize(keys).x + spacing <= left) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", keys);
      }
    } else if (v) {
      // The question of this step with the answer given; the score beside the verdict.
      labelled_prompt(quiz_question_at(q, at)->prompt, width);
      const std::string line = v->line();
      ImGui::PushStyleColor(ImGuiCol_Text, v->right ? pal.sram : pal.nonfinite);
      ImGui::TextUnformatted(line.c_str());
      ImGui::PopStyleColor();
      if (!score.empty() &&
          ImGui::CalcTextSize(line.c_str()).x + 24 * s + ImGui::CalcTextSize(score.c_str()).x <= width) {
        ImGui::SameLine(0, 24 * s);
        ImGui::TextDisabled("%s", score.c_str());
      }
    } else {
      // Between questions: where the next one comes, then the score or how to turn them off.
      const std::string ahead = "Ask me first · " + quiz_ahead(q, at);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      text_wrapped_at(ahead, width);
      ImGui::PopStyleColor();
      const char* off = "View ▸ Ask me first turns the questions off";
      if (ImGui::GetCursorPosY() + ImGui::GetTextLineHeight() <= ImGui::GetWindowContentRegionMax().y) {
        if (!score.empty()) text_wrapped_at(score, width);
        else if (!app.presenting && ImGui::CalcTextSize(off).x <= width) ImGui::TextDisabled("%s", off);
      }
    }
  }  // the text back to its size before the window ends
  ImGui::End();
  if (entered) quiz_enter(app);
  else if (escaped) quiz_escape(app);
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
