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
#include <utility>
#include <vector>

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

const MeasuredTexts& step_sentences(AppState& app, const std::shared_ptr<const Recording>& rec) {
  std::vector<AppState::StepSentences>& cache = app.step_sentences;
  // A freed recording's go: a long one's words are megabytes.
  cache.erase(std::remove_if(cache.begin(), cache.end(), [](const AppState::StepSentences& s) { return s.rec.expired(); }),
              cache.end());
  const float size = ImGui::GetFontSize();
  const void* font = ImGui::GetFont();
  auto it = std::find_if(cache.begin(), cache.end(), [&](const AppState::StepSentences& s) {
    return s.rec.is(rec) && s.font == font && s.texts.font_size() == size;
  });
  if (it == cache.end()) {
    // Four: the Steps tab's and Compare's two sides, and a second size for Compare's text as it
    // shrinks to fit.
    if (cache.size() == 4) cache.pop_back();
    AppState::StepSentences made{RecordingKey(rec), font, measured_texts(size)};
    for (const Step& st : rec->steps) measure_rich(made.texts, st.text);
    cache.insert(cache.begin(), std::move(made));
  } else if (it != cache.begin()) {
    std::rotate(cache.begin(), it, it + 1);
  }
  return cache.front().texts;
}

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
  const float s = app.ui_scale;
  const ImGuiStyle& style = ImGui::GetStyle();
  // As wide as the last step's number (200000 steps: six digits).
  const float number_w = ImGui::CalcTextSize(std::to_string(count).c_str()).x + style.ItemSpacing.x;
  const float step_w = std::max(48 * s, number_w);
  // Where the columns beside it would leave the explanation narrower than nine ems (a larger
  // font, or a narrow window: at font 1.5× in 1280 × 800 it had some 20 pixels, a character a
  // line), each step is stacked instead: a line with its number, registers, row, pass and
  // label, and its explanation under it across the whole width.
  const int fixed_columns = 4 + (rows ? 1 : 0) + static_cast<int>(columns.size()) - 1;
  const float fixed_w = step_w + 40 * s + 150 * s + (rows ? 36 * s : 0.0f) + static_cast<float>(columns.size()) * 70 * s +
                        static_cast<float>(fixed_columns + 1) * (2 * style.CellPadding.x + 1);
  const bool stacked = ImGui::GetContentRegionAvail().x - style.ScrollbarSize - fixed_w < 9 * ImGui::GetFontSize();
  // Each layout its own table (its columns' widths and scroll kept apart).
  // A picture of the tab alone: the table as tall as its rows (as laid out last frame), not as
  // the window, so that the figure ends with the last step.
  AppState::StepsTableLayout& L = app.steps_table;
  ImVec2 outer(0, 0);
  if (panel_alone() && L.rec.is(app.played.rec) && L.stacked == stacked && L.top.size() > 1)
    outer.y = std::min(ImGui::GetContentRegionAvail().y,
                       static_cast<float>(L.top.back()) + ImGui::GetTextLineHeight() + 4 * style.CellPadding.y + 2);
  if (!ImGui::BeginTable(stacked ? "steps-stacked" : "steps", stacked ? 1 : fixed_columns + 1, flags, outer)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (stacked) {
    ImGui::TableSetupColumn("each step above its explanation", ImGuiTableColumnFlags_WidthStretch);
  } else {
    ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed, step_w);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthFixed, 40 * s);
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, 150 * s);
    ImGui::TableSetupColumn("explanation", ImGuiTableColumnFlags_WidthStretch);
    if (rows) ImGui::TableSetupColumn("row", ImGuiTableColumnFlags_WidthFixed, 36 * s);
    for (const StepColumn& col : columns)
      ImGui::TableSetupColumn(col.name.c_str(), ImGuiTableColumnFlags_WidthFixed, 70 * s);
  }
  ImGui::TableHeadersRow();
  // Each row as high as its explanation's lines at that column's width, worked out once for the
  // recording, width and font from the sentences' words measured once (in double: 200000 rows
  // of 87 px pass 2^24). The rows out of sight are left out, runs of them standing in as a row
  // or two of their height, so that the table scrolls to where each row really is: a row a step
  // would add its height to ImGui's float cursor, and 200000 such additions drifted by hundreds
  // of pixels.
  const ImGuiTable* table = ImGui::GetCurrentTable();
  const ImGuiTableColumn& ex = table->Columns[stacked ? 0 : 3];
  const float width = ex.WorkMaxX - ex.WorkMinX, font = ImGui::GetFontSize();
  const bool relaid = !L.rec.is(app.played.rec) || L.width != width || L.font != font || L.stacked != stacked;
  if (relaid) {
    L.rec = RecordingKey(app.played.rec), L.width = width, L.font = font, L.stacked = stacked;
    L.top.assign(static_cast<std::size_t>(count) + 1, 0.0);
    const double line = ImGui::GetTextLineHeight();
    const MeasuredTexts& sentences = step_sentences(app, app.played.rec);
    for (int i = 0; i < count; ++i) {
      // Stacked: the step's line, then its explanation's lines.
      const double lines = sentences.lines(static_cast<std::size_t>(i), width) + (stacked ? 1 : 0);
      L.top[static_cast<std::size_t>(i) + 1] =
          L.top[static_cast<std::size_t>(i)] + lines * line + (lines - 1) * style.ItemSpacing.y + 2 * style.CellPadding.y;
    }
  }
  auto top = [&](int i) { return L.top[static_cast<std::size_t>(i)]; };
  auto row_h = [&](int i) { return static_cast<float>(top(i + 1) - top(i)); };
  const bool follow = L.followed != playhead && playhead >= 0;
  L.off = 0;
  // The rows in sight, in the table's own coordinates. The frozen header row is laid out where
  // the table is scrolled to: the rows start under it as it stands unscrolled.
  const double header = ImGui::GetCursorPosY() - ImGui::GetScrollY();
  const double seen0 = ImGui::GetScrollY() - header, seen1 = seen0 + ImGui::GetWindowHeight();
  auto first_below = [&](double y) {  // the first row whose top is below y
    return static_cast<int>(std::upper_bound(L.top.begin(), L.top.end() - 1, y) - L.top.begin());
  };
  const int a = std::max(0, first_below(seen0) - 1), b = std::min(count, first_below(seen1));
  // The rows drawn: those in sight, and the playhead's while the table goes to it.
  std::vector<std::pair<int, int>> drawn = {{a, b}};
  if (follow && (playhead < a || playhead >= b)) {
    drawn.emplace_back(playhead, playhead + 1);
    if (playhead < a) std::swap(drawn[0], drawn[1]);
  }
  // Rows [from, to) left out: one row of their height, or two where that keeps the rows after
  // them striped as their numbers say (the first alone, then the rest).
  auto leave_out = [&](int from, int to) {
    if (to <= from) return;
    if ((to - from) % 2 == 0) {
      ImGui::TableNextRow(ImGuiTableRowFlags_None, row_h(from));
      ++from;
    }
    ImGui::TableNextRow(ImGuiTableRowFlags_None, static_cast<float>(top(to) - top(from)));
  };
  int next = 0;
  for (const auto& [from, to] : drawn) {
    leave_out(next, from);
    for (int i = from; i < to; ++i) {
      // The height asked is the whole row's, its padding in it.
      ImGui::TableNextRow(ImGuiTableRowFlags_None, row_h(i));
      const Step& st = rec.steps[static_cast<std::size_t>(i)];
      ImGui::TableNextColumn();
      L.off = std::max(L.off, static_cast<float>(std::abs(ImGui::GetCursorPosY() - style.CellPadding.y - header - top(i))));
      const StepRow row = step_row(regs, i, playhead);
      std::string head = std::to_string(i + 1);
      if (stacked) {  // the step's line: its registers first (the label may be cut at the edge)
        auto add = [&](const std::string& part) { head += "   " + part; };
        if (row.shown) {
          if (has_m) add("m = " + register_text(row.m, true));
          if (has_l) add("l = " + register_text(row.l, true));
          for (std::size_t k = 0; k < row.more.size() && k + 2 < columns.size(); ++k)
            add(columns[k + 2].name + " = " + register_text(row.more[k], true));
          if (rows) add("row " + (row.row >= 0 ? std::to_string(row.row + 1) : std::string("—")));
        }
        add("pass " + std::to_string(st.pass));
        add(st.label);
      }
      ImGui::PushID(i);
      if (ImGui::Selectable(head.c_str(), i == playhead, ImGuiSelectableFlags_SpanAllColumns))
        app.seek(i);
      ImGui::PopID();
      if (i == playhead) {
        // The whole row in the middle of the rows in sight, under the header; a row taller than
        // they are, from its top.
        if (follow) {
          const float local = ImGui::GetItemRectMin().y - ImGui::GetWindowPos().y - style.CellPadding.y;
          const float rows_h = ImGui::GetWindowHeight() - static_cast<float>(header);
          const float want = static_cast<float>(header) + std::max(0.0f, (rows_h - row_h(i)) * 0.5f);
          ImGui::SetScrollY(ImGui::GetScrollY() + local - want);
        }
        L.row_y0 = ImGui::GetItemRectMin().y;
        L.row_y1 = L.row_y0 + row_h(i);
      }
      if (stacked) {
        text_rich(st.text, ImGui::GetContentRegionAvail().x);
        continue;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d", st.pass);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.label.c_str());
      ImGui::TableNextColumn();
      text_rich(st.text, ImGui::GetContentRegionAvail().x);
      if (row.shown) {
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
    next = to;
  }
  leave_out(next, count);
  // Laid out again (a scroll bar came and narrowed the explanations): the rows moved, so the
  // table follows the playhead again next frame; a few times at most, so that a scroll bar
  // that comes and goes cannot hold the table there against the user's scrolling.
  if (follow) L.refollowed = L.followed == -2 ? L.refollowed : 0;
  const bool again = relaid && L.refollowed < 3;
  L.refollowed += again ? 1 : 0;
  L.followed = again ? -2 : playhead;
  L.seen_y0 = ImGui::GetWindowPos().y + static_cast<float>(header), L.seen_y1 = ImGui::GetWindowPos().y + ImGui::GetWindowHeight();
  ImGui::EndTable();
}

}  // namespace flashstep::ui
