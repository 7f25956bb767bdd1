// The fields section of widgets.h: form fields applied when committed, their "not applied" lines
// and what each did in its last frame.
#include "app/ui/widgets.h"

#include "core/text.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <utility>

namespace flashstep::ui {

namespace {
// Fields being edited: their text while it differs from the form's value. What each field did in
// the frame it was last drawn, by "window/id", for field_state().
std::unordered_map<ImGuiID, std::string>& edits() {
  static std::unordered_map<ImGuiID, std::string> e;
  return e;
}
std::unordered_map<std::string, FieldState>& field_states() {
  static std::unordered_map<std::string, FieldState> r;
  return r;
}
constexpr ImU32 kRefused = IM_COL32(213, 94, 0, 255);
}  // namespace

FieldEdit edit_field(const char* id, const std::string& value, float width, const std::string* running) {
  const ImGuiID gid = ImGui::GetID(id);
  auto it = edits().find(gid);
  FieldEdit e;
  e.key = std::string(ImGui::GetCurrentWindow()->Name) + "/" + id;
  const std::string name(id);
  e.label = name.find_first_not_of('#') == std::string::npos ? name : name.substr(name.find_first_not_of('#'));
  // Escape in the field: ImGui gives back the text the field had when it was clicked, which in
  // a refused field is the refused value; the value in use is what Escape promises.
  const bool escaped = ImGui::GetActiveID() == gid && key_pressed(ImGuiKey_Escape);
  e.refused = running && *running != value;
  e.in_use = e.refused ? *running : value;
  if (figure_mode()) {
    // A figure shows what the recording was made from; the window's typing stays where it is
    // (the figure's frames run in a context of their own, where no field is ever active).
    e.text = e.in_use;
    e.refused = false;
    std::string shown = e.text;
    ImGui::SetNextItemWidth(width);
    ImGui::InputText(id, &shown, ImGuiInputTextFlags_ReadOnly);
    FieldState& st = field_states()[e.key];
    st = FieldState{};
    st.rect = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    st.in_use = e.in_use;
    st.shown = shown;
    return e;
  }
  e.text = it != edits().end() ? it->second : value;
  if (e.refused) {
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(120, 35, 20, 255));
    ImGui::PushStyleColor(ImGuiCol_Border, kRefused);
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, std::max(1.5f, ImGui::GetFontSize() / 10.0f));
  }
  ImGui::SetNextItemWidth(width);
  ImGui::InputText(id, &e.text);
  if (e.refused) {
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(2);
  }
  if (escaped && e.refused && !ImGui::IsItemActive()) {
    edits().erase(gid);
    e.text = *running;
    e.committed = true;
  } else if (ImGui::IsItemDeactivatedAfterEdit()) {
    edits().erase(gid);
    e.committed = e.text != value;
  } else if (ImGui::IsItemActive()) {
    edits()[gid] = e.text;
    e.pending = e.text != value;
  } else {
    edits().erase(gid);
  }
  if (e.refused && ImGui::IsItemHovered() && !e.pending)
    ImGui::SetTooltip("Not in use: %s stays in use until the form is fixed.", e.in_use.c_str());
  FieldState& st = field_states()[e.key];
  st = FieldState{};
  st.rect = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  st.pending = e.pending;
  st.refused = e.refused;
  st.in_use = e.in_use;
  st.shown = e.text;
  return e;
}

namespace {
bool g_gathering_marks = false;
std::vector<FieldEdit>& gathered_marks() {
  static std::vector<FieldEdit> m;
  return m;
}
}  // namespace

void begin_field_marks() {
  gathered_marks().clear();
  g_gathering_marks = true;
}

std::vector<FieldEdit> end_field_marks() {
  g_gathering_marks = false;
  return std::exchange(gathered_marks(), {});
}

void not_applied_line(const FieldEdit& e) {
  if (!e.pending && !e.refused) return;
  if (g_gathering_marks) {
    gathered_marks().push_back(e);
    field_states()[e.key].marked = true;
    return;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, e.pending ? ImVec4(0.95f, 0.62f, 0.0f, 1.0f) : ImGui::ColorConvertU32ToFloat4(kRefused));
  ImGui::TextUnformatted(e.pending ? "not applied" : "not in use");
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::TextDisabled("in use: %s", e.in_use.empty() ? "(empty)" : e.in_use.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(e.pending ? "Enter, Tab or a click elsewhere applies it; Esc puts it back."
                                : "The form was refused (its message says why): the recording on screen "
                                  "was made with the value in use.");
  field_states()[e.key].marked = true;
}

bool parse_int(const std::string& text, int* v) {
  const char* b = text.data();
  const char* e = b + text.size();
  while (b < e && *b == ' ') ++b;
  while (e > b && e[-1] == ' ') --e;
  if (b < e && *b == '+') ++b;
  int x = 0;
  const auto [end, ec] = std::from_chars(b, e, x);
  if (ec != std::errc() || end != e || b == e) return false;
  *v = x;
  return true;
}

bool commit_int(const char* id, const char* label, const char* help, int* v, float width, std::string* error,
                const int* running, bool steppers) {
  const std::string running_text = running ? std::to_string(*running) : std::string();
  const FieldEdit e = edit_field(id, std::to_string(*v), width, running ? &running_text : nullptr);
  bool changed = false;
  if (e.committed) {
    if (parse_int(e.text, v)) changed = true;
    else *error = std::string(label) + ": '" + e.text + "' is not a whole number";
  }
  // − and + apply at once: a click is a commitment.
  if (steppers) {
    ImGui::PushID(id);
    const float w = ImGui::GetFrameHeight();
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("−", ImVec2(w, 0))) --*v, changed = true;
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    if (ImGui::Button("+", ImVec2(w, 0))) ++*v, changed = true;
    ImGui::PopID();
  }
  // The label (and its "(?)") on the next line where the panel is too narrow for them.
  const ImGuiStyle& st = ImGui::GetStyle();
  ImGui::SameLine(0, st.ItemInnerSpacing.x);
  if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(label).x +
          (help ? st.ItemSpacing.x + ImGui::CalcTextSize("(?)").x : 0.0f) >
      ImGui::GetWindowContentRegionMax().x)
    ImGui::NewLine();
  ImGui::TextUnformatted(label);
  if (help) help_marker(help);
  not_applied_line(e);
  return changed;
}

bool commit_double(const char* id, const char* label, double* v, float width, std::string* error,
                   const double* running) {
  const std::string running_text = running ? num(*running) : std::string();
  const FieldEdit e = edit_field(id, num(*v), width, running ? &running_text : nullptr);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted(label);
  not_applied_line(e);
  if (!e.committed) return false;
  char* end = nullptr;
  const double x = std::strtod(e.text.c_str(), &end);
  while (end && *end == ' ') ++end;
  if (end == e.text.c_str() || (end && *end != '\0') || !std::isfinite(x)) {
    *error = std::string(label) + ": '" + e.text + "' is not a finite number";
    return false;
  }
  *v = x;
  return true;
}

FieldState field_state(const std::string& window, const char* id) {
  const auto it = field_states().find(window + "/" + id);
  return it == field_states().end() ? FieldState{} : it->second;
}

ImRect field_rect(const std::string& window, const char* id) { return field_state(window, id).rect; }

}  // namespace flashstep::ui
