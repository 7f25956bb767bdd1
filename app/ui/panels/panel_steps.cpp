// The Steps tab: every recorded step of the lesson in a table (pass, label, the sentence with
// its numbers, m and l of the step's row as they stand after it). Clicking a row moves the
// playhead there; the table follows the playhead.
#include "app/ui/panels/panels.h"
#include "core/text.h"

namespace flashstep::ui {

namespace {

// m or l of `row` after step k, read from the cursor at the playhead for steps up to it (later
// steps have not happened yet at the playhead, so their cells stay empty).
std::string register_text(const Recording& rec, const Cursor& cur, int buffer, int row) {
  if (buffer < 0 || row < 0 || row >= rec.buffers[buffer].rows) return "";
  if (!cur.defined(buffer, row, 0)) return "—";
  return num(cur.value(buffer, row, 0));
}

}  // namespace

void draw_steps_table(AppState& app) {
  const Recording& rec = *app.played.rec;
  const int count = rec.step_count();
  if (count == 0) {
    ImGui::TextDisabled("Nothing recorded yet.");
    return;
  }
  const int playhead = app.timeline.playhead();
  const int bm = rec.find_buffer("m"), bl = rec.find_buffer("l");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("steps", 6, flags)) return;
  const float s = app.ui_scale;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, 48 * s);
  ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthFixed, 40 * s);
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, 150 * s);
  ImGui::TableSetupColumn("explanation", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("m", ImGuiTableColumnFlags_WidthFixed, 70 * s);
  ImGui::TableSetupColumn("l", ImGuiTableColumnFlags_WidthFixed, 70 * s);
  ImGui::TableHeadersRow();
  static int followed = -2;  // the playhead the table last scrolled to
  const bool follow = followed != playhead;
  ImGuiListClipper clipper;
  clipper.Begin(count);
  if (follow && playhead >= 0) clipper.ForceDisplayRangeByIndices(playhead, playhead + 1);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const Step& st = rec.steps[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      if (ImGui::Selectable(std::to_string(i + 1).c_str(), i == playhead, ImGuiSelectableFlags_SpanAllColumns))
        app.seek(i);
      ImGui::PopID();
      if (i == playhead && follow) ImGui::SetScrollHereY(0.5f);
      ImGui::TableNextColumn();
      ImGui::Text("%d", st.pass);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.label.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.text.c_str());
      const int row = st.row >= 0 ? st.row : (st.tile_i >= 0 ? st.tile_i * rec.Br : 0);
      if (i <= playhead) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(register_text(rec, *app.played.cursor, bm, row).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(register_text(rec, *app.played.cursor, bl, row).c_str());
      }
    }
  }
  followed = playhead;
  ImGui::EndTable();
}

}  // namespace flashstep::ui
