// The lesson sidebar: the lessons in teaching order and the chosen one's summary.
#include "app/ui/panels/panels.h"
#include "app/ui/style.h"
#include "app/ui/widgets.h"

#include <string>

namespace flashstep::ui {

namespace {

// A title that does not fit loses its parenthesis ("4. Chunked online softmax (merge of …)"
// becomes "4. Chunked online softmax"); the tooltip has it all.
std::string fit_title(const std::string& title, float width) {
  if (ImGui::CalcTextSize(title.c_str()).x <= width) return title;
  const std::size_t paren = title.find(" (");
  return paren == std::string::npos ? title : title.substr(0, paren);
}

}  // namespace

void draw_lessons_panel(AppState& app, const PanelRect& r) {
  if (begin_panel("Lessons", r, &app.panels.lessons)) {
    ImGui::TextDisabled("Up/Down: previous/next lesson");
    const float width = ImGui::GetContentRegionAvail().x;
    for (int i = 0; i < static_cast<int>(lessons().size()); ++i) {
      const Lesson& l = lessons()[static_cast<std::size_t>(i)];
      const std::string label = fit_title(l.heading(), width) + "##" + l.id;
      if (ImGui::Selectable(label.c_str(), i == app.lesson) && i != app.lesson) app.open_lesson(i);
      if (ImGui::IsItemHovered()) tooltip(l.heading(), l.summary);
    }
    ImGui::Separator();
    text_wrapped_words(app.current_lesson().summary, width);
  }
  ImGui::End();
}

}  // namespace flashstep::ui
