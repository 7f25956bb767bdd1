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

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
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
  // Each row as high as its explanation's lines at that column's width, worked out once for the
  // recording, width and font: the rows out of sight are left empty at that height, so that
  // the table scrolls to where each row really is.
  AppState::StepsTableLayout& L = app.steps_table;
  const ImGuiTable* table = ImGui::GetCurrentTable();
  const ImGuiTableColumn& ex = table->Columns[3];
  const float width = ex.WorkMaxX - ex.WorkMinX, font = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  const bool relaid = L.rec != &rec || L.width != width || L.font != font || static_cast<int>(L.top.size()) != count + 1;
  if (relaid) {
    L.rec = &rec, L.width = width, L.font = font;
    L.top.assign(static_cast<std::size_t>(count) + 1, 0.0f);
    const float line = ImGui::GetTextLineHeight();
    for (int i = 0; i < count; ++i) {
      const float lines = static_cast<float>(std::max(1, text_rich_lines(rec.steps[static_cast<std::size_t>(i)].text, width)));
      L.top[static_cast<std::size_t>(i) + 1] = L.top[static_cast<std::size_t>(i)] + lines * line +
                                              (lines - 1) * style.ItemSpacing.y + 2 * style.CellPadding.y;
    }
  }
  auto row_h = [&](int i) { return L.top[static_cast<std::size_t>(i) + 1] - L.top[static_cast<std::size_t>(i)]; };
  const bool follow = L.followed != playhead && playhead >= 0;
  L.off = 0;
  // The rows in sight, in the table's own coordinates. The frozen header row is laid out where
  // the table is scrolled to: the rows start under it as it stands unscrolled.
  const float header = ImGui::GetCursorPosY() - ImGui::GetScrollY();
  const float seen0 = ImGui::GetScrollY(), seen1 = seen0 + ImGui::GetWindowHeight();
  for (int i = 0; i < count; ++i) {
    const float y0 = header + L.top[static_cast<std::size_t>(i)], y1 = y0 + row_h(i);
    // The height asked is the whole row's, its padding in it (a row left empty gets just that).
    ImGui::TableNextRow(ImGuiTableRowFlags_None, row_h(i));
    if ((y1 < seen0 || y0 > seen1) && !(follow && i == playhead)) continue;
    const Step& st = rec.steps[static_cast<std::size_t>(i)];
    ImGui::TableNextColumn();
    L.off = std::max(L.off, std::abs(ImGui::GetCursorPosY() - style.CellPadding.y - y0));
    ImGui::PushID(i);
    if (ImGui::Selectable(std::to_string(i + 1).c_str(), i == playhead, ImGuiSelectableFlags_SpanAllColumns))
      app.seek(i);
    ImGui::PopID();
    if (i == playhead) {
      // The whole row in the middle of the rows in sight, under the header; a row taller than
      // they are, from its top.
      if (follow) {
        const float local = ImGui::GetItemRectMin().y - ImGui::GetWindowPos().y - style.CellPadding.y;
        const float rows_h = ImGui::GetWindowHeight() - header;
        const float want = header + std::max(0.0f, (rows_h - row_h(i)) * 0.5f);
        ImGui::SetScrollY(ImGui::GetScrollY() + local - want);
      }
      L.row_y0 = ImGui::GetItemRectMin().y;
      L.row_y1 = L.row_y0 + row_h(i);
    }
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
  // Laid out again (a scroll bar came and narrowed the explanations): the rows moved, so the
  // table follows the playhead again next frame; a few times at most, so that a scroll bar
  // that comes and goes cannot hold the table there against the user's scrolling.
  if (follow) L.refollowed = L.followed == -2 ? L.refollowed : 0;
  const bool again = relaid && L.refollowed < 3;
  L.refollowed += again ? 1 : 0;
  L.followed = again ? -2 : playhead;
  L.seen_y0 = ImGui::GetWindowPos().y + header, L.seen_y1 = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
  ImGui::EndTable();
}

}  // namespace flashstep::ui
