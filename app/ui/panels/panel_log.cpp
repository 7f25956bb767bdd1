// The status bar (last message, background recording progress with a cancel button), the log
// of every message, and the F1 shortcuts window. Errors never open a modal: they land here.
#include "app/ui/panels/panels.h"
#include "app/ui/widgets.h"
#include "core/text.h"

#include <algorithm>

namespace flashstep::ui {

namespace {

ImVec4 severity_colour(Severity s) {
  switch (s) {
    case Severity::info: return ImGui::GetStyleColorVec4(ImGuiCol_Text);
    case Severity::warning: return ImVec4(0.90f, 0.62f, 0.0f, 1.0f);
    case Severity::error: return ImVec4(0.95f, 0.45f, 0.25f, 1.0f);
  }
  return ImVec4(1, 1, 1, 1);
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "note";
    case Severity::error: return "error";
  }
  return "";
}

}  // namespace

void draw_status_bar(AppState& app, const PanelRect& r) {
  if (!begin_panel("##status", r, nullptr,
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar |
                       ImGuiWindowFlags_NoScrollWithMouse)) {
    ImGui::End();
    return;
  }
  const float s = app.ui_scale;
  if (app.opening.active()) {
    const std::string name = app.opening.path().substr(app.opening.path().find_last_of('/') + 1);
    ImGui::TextUnformatted(("Opening " + name).c_str());
    ImGui::SameLine();
    const std::string label = strf("%s  %.1f s", app.opening.activity().c_str(), app.opening.seconds());
    ImGui::ProgressBar(app.opening.progress(), ImVec2(260 * s, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##open")) {
      app.opening.cancel();
      app.note(Severity::warning, "Opening " + app.opening.path() + " was cancelled: the current work stays open.");
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Stop reading the file and keep what is open");
    ImGui::SameLine(0, 16 * s);
  }
  if (app.job.active()) {
    ImGui::TextUnformatted("Recording");
    ImGui::SameLine();
    const std::string label = strf("%.0f%%  %.1f s", app.job.progress() * 100.0f, app.job.seconds());
    ImGui::ProgressBar(app.job.progress(), ImVec2(220 * s, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel")) app.cancel_recording();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Stop recording and keep the previous recording");
    ImGui::SameLine(0, 16 * s);
  }
  const std::string logs = strf("Log (%zu)", app.log.size());
  const float right = ImGui::CalcTextSize(logs.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 + 8 * s;
  ImGui::PushTextWrapPos(0);
  if (const AppState::StatusLine line = app.status_line(); !line.text.empty()) {
    const float avail = ImGui::GetContentRegionAvail().x - right;
    // One line: the full text is in the log and the tooltip; where it takes more, its first
    // words and " …" within the room.
    const bool whole = wrap_words(line.text, avail).size() <= 1;
    const std::string text = whole ? line.text : wrap_words(line.text, avail - ImGui::CalcTextSize(" …").x).front() + " …";
    ImGui::TextColored(severity_colour(line.severity), "%s", text.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", line.text.c_str());
  } else {
    ImGui::TextDisabled("Ready. F1 lists the keyboard shortcuts.");
  }
  ImGui::PopTextWrapPos();
  ImGui::SameLine();
  ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - right + 8 * s));
  if (ImGui::SmallButton(logs.c_str())) app.panels.log = !app.panels.log;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show every message (errors, notes, recordings)");
  ImGui::End();
}

void draw_log_panel(AppState& app, const PanelRect& r) {
  ImGui::SetNextWindowPos(r.pos, ImGuiCond_Appearing);
  ImGui::SetNextWindowSize(r.size, ImGuiCond_Appearing);
  ImGui::SetNextWindowBgAlpha(1.0f);
  if (!ImGui::Begin("Log", &app.panels.log, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  if (ImGui::SmallButton("Clear")) {
    app.log.clear();
    app.status.clear();
  }
  ImGui::Separator();
  ImGui::BeginChild("entries");
  for (const LogEntry& e : app.log) {
    ImGui::TextDisabled("%7.1f s  %-5s", e.time, severity_name(e.severity));
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, severity_colour(e.severity));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(e.text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 4) ImGui::SetScrollHereY(1.0f);
  ImGui::EndChild();
  ImGui::End();
}

void draw_shortcuts_window(AppState& app) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.4f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(1.0f);
  if (!ImGui::Begin("Keyboard shortcuts", &app.panels.shortcuts,
                    ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                        ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove)) {
    ImGui::End();
    return;
  }
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const Shortcut& k : shortcuts()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.action);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("The arrows and Space do nothing while you type in a field.");
  ImGui::End();
}

}  // namespace flashstep::ui
