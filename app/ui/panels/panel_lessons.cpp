// The lesson sidebar: the lessons in teaching order and the chosen one's summary.
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"
#include "core/markup.h"

#include <algorithm>
#include <string>

namespace flashstep::ui {

namespace {

// A title that does not fit loses its parenthesis ("4. Chunked online softmax (merge of …)"
// becomes "4. Chunked online softmax"), then its last words, then characters, ending in "…";
// the tooltip has it all.
std::string fit_title(const std::string& title, float width) {
  auto fits = [&](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x <= width; };
  if (fits(title)) return title;
  const std::size_t paren = title.find(" (");
  std::string t = paren == std::string::npos ? title : title.substr(0, paren);
  if (fits(t)) return t;
  // Whole words while more than the number is left ("10. FlashAttention-2 …").
  std::string words = t;
  while (!fits(words + " …")) {
    const std::size_t space = words.find_last_of(' ');
    if (space == std::string::npos) break;
    words.erase(space);
  }
  if (fits(words + " …") && words.find(' ') != std::string::npos) return words + " …";
  // Else characters (whole UTF-8 sequences) from the end.
  while (!t.empty() && !fits(t + "…")) {
    std::size_t last = t.size() - 1;  // the last character's first byte
    while (last > 0 && (static_cast<unsigned char>(t[last]) & 0xC0) == 0x80) --last;
    t.erase(last);
  }
  return t + "…";
}

}  // namespace

void draw_lessons_panel(AppState& app, const PanelRect& r) {
  if (begin_panel("Lessons", r, &app.panels.lessons, ImGuiWindowFlags_NoScrollbar)) {
    const float width = ImGui::GetContentRegionAvail().x;
    // The summary is read whole; the list above it scrolls when the panel is short, keeping the
    // open lesson in view.
    const std::string& summary = app.current_lesson().summary;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float summary_h =
        static_cast<float>(wrap_rich(summary, width - ImGui::GetStyle().ScrollbarSize, ImGui::GetFontSize()).size()) *
            line +
        ImGui::GetStyle().ItemSpacing.y * 2;
    float list_h = std::max(ImGui::GetContentRegionAvail().y - summary_h, line * 3);
    // A picture of the panel alone: the summary right under the list, not at the window's foot.
    if (panel_alone()) list_h = std::min(list_h, static_cast<float>(lessons().size()) * line);
    ImGui::BeginChild("lesson-list", ImVec2(0, list_h));
    const float list_w = ImGui::GetContentRegionAvail().x;
    static int scrolled_to = -1;  // the lesson the list last scrolled to
    for (int i = 0; i < static_cast<int>(lessons().size()); ++i) {
      const Lesson& l = lessons()[static_cast<std::size_t>(i)];
      const std::string label = fit_title(l.heading(), list_w) + "##" + l.id;
      if (ImGui::Selectable(label.c_str(), i == app.lesson) && i != app.lesson) app.open_lesson(i);
      if (ImGui::IsItemHovered()) tooltip(l.heading(), plain_text(l.summary) + "\n\nUp/Down: previous/next lesson");
      if (i == app.lesson && scrolled_to != i) {
        ImGui::SetScrollHereY(0.5f);
        scrolled_to = i;
      }
    }
    ImGui::EndChild();
    ImGui::Separator();
    // Where even three lines of the list leave it too little room, the summary scrolls, with its
    // scrollbar in sight (it was cut mid-sentence at 1280×800 with no sign that it went on).
    ImGui::BeginChild("lesson-summary", ImVec2(0, 0), false);
    text_rich(summary, width - ImGui::GetStyle().ScrollbarSize);
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace flashstep::ui
