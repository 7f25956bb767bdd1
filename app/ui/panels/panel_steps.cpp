// The Steps tab: every recorded step of the lesson in a table (pass, label, the sentence with
// its numbers, m and l of the step's row as they stand right after that step (with the row
// where there are several: a tile's first), and any other per-row register the recording
// declares a step column). Clicking a row
// moves the playhead there; the table follows the playhead. Steps after the playhead have not
// happened yet: their m and l stay empty.
#include "app/ui/model/step_registers.h"
#include "app/ui/panels/panels.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <memory>

namespace flashstep::ui {

namespace {

std::string register_text(const std::optional<double>& v, bool has_buffer) {
  if (!has_buffer) return "";
  return v ? num(*v) : "—";
}

// The registers of the recording last shown, computed once per recording.
const StepRegisters& registers_of(const std::shared_ptr<const Recording>& rec) {
  static std::shared_ptr<const Recording> cached;
  static StepRegisters regs;
  if (cached != rec) {
    regs = step_registers(*rec);
    cached = rec;
  }
  return regs;
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
  // The step columns (core's step_columns): m and l, then any other the recording declares.
  const std::vector<StepColumn> columns = step_columns(rec);
  const bool has_m = columns[0].buffer >= 0, has_l = columns[1].buffer >= 0;
  const StepRegisters& regs = registers_of(app.played.rec);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable;
  // Where m and l have several rows (attention), the row they are of: a tile's first.
  const bool rows = several_register_rows(rec);
  if (!ImGui::BeginTable("steps", 4 + (rows ? 1 : 0) + static_cast<int>(columns.size()), flags)) return;
  const float s = app.ui_scale;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, 48 * s);
  ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthFixed, 40 * s);
  ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, 150 * s);
  ImGui::TableSetupColumn("explanation", ImGuiTableColumnFlags_WidthStretch);
  if (rows) ImGui::TableSetupColumn("row", ImGuiTableColumnFlags_WidthFixed, 36 * s);
  for (const StepColumn& col : columns)
    ImGui::TableSetupColumn(col.name.c_str(), ImGuiTableColumnFlags_WidthFixed, 70 * s);
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
      text_rich(st.text, ImGui::GetContentRegionAvail().x);
      if (const StepRow row = step_row(regs, i, playhead); row.shown) {
        if (rows) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(row.row >= 0 ? std::to_string(row.row + 1).c_str() : "—");
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(register_text(row.m, has_m).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(register_text(row.l, has_l).c_str());
        for (const std::optional<double>& v : row.more) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(register_text(v, true).c_str());
        }
      }
    }
  }
  followed = playhead;
  ImGui::EndTable();
}

}  // namespace flashstep::ui
