#include "app/ui/dialogs/export_dialog.h"

#include "app/export/gif.h"
#include "app/ui/dialogs/file_dialog.h"
#include "app/ui/panels/frame.h"
#include "app/ui/widgets.h"
#include "core/engine.h"
#include "core/text.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <filesystem>
#include <utility>

namespace flashstep::ui {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTitle = "Export###flashstep-export";

std::string panel_label(const std::string& name) {
  static const std::pair<const char*, const char*> kLabels[] = {
      {"lessons", "Lessons"},         {"inputs", "Inputs"},       {"view", "View (the lesson's)"},
      {"explanation", "Explanation"}, {"pseudocode", "Pseudocode"}, {"memory", "Memory"},
      {"timeline", "Timeline"},       {"compare", "Compare"},     {"overflow-lab", "Overflow lab"},
      {"steps", "Steps table"},       {"measure-lab", "Measure it yourself"}};
  if (name == "scale-lab") return pick("1/√d lab", 0x221A, "1/sqrt(d) lab");
  for (const auto& [n, l] : kLabels)
    if (name == n) return l;
  return name;
}

// Relative names go where the proposals go: the last export's folder, else the working folder.
std::string base_folder(const ExportDialog& d) {
  std::error_code ec;
  if (!d.last_folder.empty() && fs::is_directory(d.last_folder, ec)) return normal_folder(d.last_folder);
  return normal_folder(".");
}

std::string resolved_path(const ExportDialog& d) {
  return resolve_choice(base_folder(d), d.path, export_extension(d.kind));
}

// The screen's size in pixels times `multiple`, as export_job.h's picture_size works it out.
PictureSize size_for(const AppState& app, int multiple) {
  const ImGuiIO& io = ImGui::GetIO();
  return picture_size(app, io.DisplaySize.x, io.DisplaySize.y, io.DisplayFramebufferScale.x,
                      static_cast<float>(multiple));
}

void whole_range(const AppState& app, ExportDialog& d) {
  d.from = 1;
  d.to = std::max(1, stepped_timeline(app, d.panel).count());
}

void this_pass(const AppState& app, ExportDialog& d) {
  const Timeline& tl = stepped_timeline(app, d.panel);
  const int s = tl.segment();
  if (s < 0) return whole_range(app, d);
  d.from = tl.segments()[static_cast<std::size_t>(s)].start + 1;
  d.to = tl.segment_end(s);
}

// A choice changed: the last message and the "replace?" question were about the old one.
void changed(ExportDialog& d) {
  d.error.clear();
  d.notice.clear();
  d.replace.clear();
}

void open_dialog(const AppState& app, ExportDialog& d) {
  d.open = d.want_popup = true;
  d.close_requested = false;
  d.path_typed = false;  // propose a fresh name in the last folder
  changed(d);
  if (!d.panel.empty() && !is_panel_name(d.panel)) d.panel.clear();
  whole_range(app, d);
}

void close_dialog(ExportDialog& d) {
  d.open = false;
  ImGui::CloseCurrentPopup();
}

std::string lower_first(std::string s) {
  if (s.size() > 1 && std::isupper(static_cast<unsigned char>(s[0])) &&
      !std::isupper(static_cast<unsigned char>(s[1])))
    s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// The job has finished, failed or been cancelled: tell the status bar, the log and the dialog.
void finished(AppState& app, ExportDialog& d) {
  const std::string& message = d.job.message();
  switch (d.job.outcome()) {
    case ExportJob::Outcome::done:
      app.note(Severity::info, message);
      d.last_folder = fs::path(d.job.request().path).parent_path().string();
      d.close_requested = true;
      break;
    case ExportJob::Outcome::failed:
      d.error = message;
      app.note(Severity::error, "Export failed: " + lower_first(message));
      break;
    case ExportJob::Outcome::cancelled:
      d.notice = message;
      app.note(Severity::info, message);
      break;
    case ExportJob::Outcome::none: break;
  }
}

ExportRequest request_of(const AppState& app, const ExportDialog& d, const std::string& path) {
  ExportRequest r;
  r.kind = d.kind;
  r.path = path;
  r.panel = d.panel;
  const PictureSize p = size_for(app, d.multiple);
  r.width = p.width;
  r.height = p.height;
  r.scale = p.scale;
  r.transparent = d.transparent;
  r.from = d.from - 1;
  r.to = d.to - 1;
  r.fps = static_cast<double>(d.fps);
  r.parts = d.parts;
  r.tween = d.parts ? 0 : d.tween;
  r.steps = d.json_steps;
  r.output = d.json_output;
  return r;
}

// Export (or Enter): check now, so a mistake shows at once; ask before replacing a file; then
// leave the work to export_dialog_tick(), between frames.
void try_export(AppState& app, ExportDialog& d) {
  d.error.clear();
  d.notice.clear();
  const std::string path = resolved_path(d);
  const ExportRequest r = request_of(app, d, path);
  if (std::string why = check_export(app, r); !why.empty()) {
    d.error = why;
    d.replace.clear();
    app.note(Severity::error, "Export failed: " + lower_first(why));
    return;
  }
  std::error_code ec;
  if (fs::exists(path, ec) && d.replace != path) {
    d.replace = path;  // asked in the bottom row; confirming again replaces it
    return;
  }
  d.replace.clear();
  d.pending = r;
  d.start_requested = true;
}

// Moves the cursor to the controls' column after a row's label.
void row_label(const char* label, float column) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(column);
}

void draw_picture_choices(const AppState& app, ExportDialog& d, float column) {
  const float fs = ImGui::GetFontSize();
  row_label("Show", column);
  ImGui::SetNextItemWidth(fs * 13.0f);
  const std::string shown = d.panel.empty() ? "Whole window" : panel_label(d.panel);
  if (ImGui::BeginCombo("##show", shown.c_str())) {
    if (ImGui::Selectable("Whole window", d.panel.empty())) {
      d.panel.clear();
      changed(d);
    }
    for (const std::string& name : panel_names())
      if (ImGui::Selectable(panel_label(name).c_str(), d.panel == name)) {
        d.panel = name;
        changed(d);
      }
    ImGui::EndCombo();
  }
  help_marker("The whole window as it is now, or one panel alone, drawn at the size of the window (as "
              "`flashstep shot --panel` does). The export dialog itself is never in the picture.");

  row_label("Size", column);
  // A multiple the renderer cannot draw (over 8 pixels per window unit) is not offered.
  if (size_for(app, d.multiple).scale > 8.0f) d.multiple = 1;
  for (int m : {1, 2, 4}) {
    const bool possible = size_for(app, m).scale <= 8.0f;
    ImGui::BeginDisabled(!possible);
    const std::string label = strf("%d×", m);
    if (ImGui::RadioButton(label.c_str(), &d.multiple, m)) changed(d);
    ImGui::EndDisabled();
    ImGui::SameLine();
  }
  const PictureSize p = size_for(app, d.multiple);
  ImGui::TextDisabled("%d × %d pixels", p.pixels_w, p.pixels_h);
  help_marker("1× has the pixels of your screen. 2× and 4× are drawn again at that resolution, fonts "
              "included, not enlarged: sharp on a projector, a slide or paper.");
}

void draw_gif_choices(const AppState& app, ExportDialog& d, float column) {
  const float fs = ImGui::GetFontSize();
  const int n = std::max(1, stepped_timeline(app, d.panel).count());
  // The lesson can change under an open dialog; keep the range inside it.
  d.to = std::clamp(d.to, 1, n);
  d.from = std::clamp(d.from, 1, d.to);
  row_label("Steps", column);
  ImGui::SetNextItemWidth(fs * 6.0f);
  if (ImGui::InputInt("##from", &d.from)) changed(d);
  ImGui::SameLine();
  ImGui::TextUnformatted("to");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(fs * 6.0f);
  if (ImGui::InputInt("##to", &d.to)) changed(d);
  d.to = std::clamp(d.to, 1, n);
  d.from = std::clamp(d.from, 1, d.to);
  ImGui::SameLine();
  if (ImGui::Button("All")) {
    whole_range(app, d);
    changed(d);
  }
  ImGui::SameLine();
  if (ImGui::Button("This pass")) {
    this_pass(app, d);
    changed(d);
  }
  help_marker("Numbered as the timeline numbers them, both ends included: one frame per step. While it is "
              "written the window shows each step; the playhead goes back where it was at the end.");

  row_label("Speed", column);
  ImGui::SetNextItemWidth(fs * 6.0f);
  if (ImGui::InputFloat("##fps", &d.fps, 1.0f, 4.0f, "%.3g")) changed(d);
  ImGui::SameLine();
  int frames = d.to - d.from + 1;
  if (d.parts)  // each part of a tiled step is a frame
    for (int k = d.from - 1; k < d.to; ++k)
      frames += std::max(stepped_timeline(app, d.panel).part_count_at(k) - 1, 0);
  else
    frames += (d.to - d.from) * std::max(d.tween, 0);
  // The duration the file will hold: its frame delay is whole hundredths of a second.
  if (d.fps >= kMinGifFps && d.fps <= kMaxGifFps)
    ImGui::Text("%s per second · %d frame%s, %.2f s", d.tween > 0 && !d.parts ? "frames" : "steps", frames,
                frames == 1 ? "" : "s",
                gif_seconds(frames, static_cast<double>(d.fps)));
  else
    ImGui::TextUnformatted("steps per second (0.1 to 100)");
  help_marker("Steps shown per second, 0.1 to 100. 1 to 4 leaves time to read each step; GIF times "
              "frames in hundredths of a second, so 100 is the most.");
  // A tiled step's parts (S, P̃, the merge), as the keys . and , show them, each a frame.
  const Timeline& tl = stepped_timeline(app, d.panel);
  bool has_parts = false;
  for (int k = d.from - 1; k < d.to && !has_parts; ++k) has_parts = tl.part_count_at(k) >= 2;
  if (has_parts) {
    row_label("", column);
    if (ImGui::Checkbox("Each part of a tile step", &d.parts)) changed(d);
    help_marker("A frame for each part of a tiled step (its S, its P and the merge into O, m and l, as "
                "the keys . and , show them), the last being the whole step; without it, one frame per step.");
  }
  if (!d.parts) {
    row_label("Moves", column);
    ImGui::SetNextItemWidth(fs * 6.0f);
    if (ImGui::InputInt("##tween", &d.tween)) {
      d.tween = std::clamp(d.tween, 0, kMaxTween);
      changed(d);
    }
    ImGui::SameLine();
    ImGui::TextUnformatted("frames between steps");
    help_marker("Frames drawn between each step and the next, 0 to 30: the move the window animates "
                "(bars rescaling, tiles travelling to SRAM and back), as `flashstep gif --tween`. The "
                "steps' own frames stay exact. Each frame counts in the speed, so raise it with them.");
  }
}

void draw_json_choices(const AppState& app, ExportDialog& d) {
  const Recording& rec = *app.played.rec;
  ImGui::TextDisabled("%s · %s · %s · %d steps", app.current_lesson().id.c_str(),
                      std::string(precision_name(rec.precision)).c_str(), rec.backend.c_str(), rec.step_count());
  if (ImGui::Checkbox("Every step", &d.json_steps)) changed(d);
  help_marker("Each step's index, pass, label, sentence and the m and l after it. Without them the file "
              "has the output, the final m and l and the memory traffic, like `flashstep run --steps none`.");
  if (ImGui::Checkbox("The output", &d.json_output)) changed(d);
  help_marker("The softmax or attention output, every number of it. Leave it out when only the counts "
              "matter (like `flashstep run --output none`).");
}

void draw_choices(AppState& app, ExportDialog& d, bool typing) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float column = ImGui::CalcTextSize("Export").x + st.ItemSpacing.x * 3;
  bool accepted = false, cancelled = false;

  row_label("Export", column);
  int kind = d.kind;
  ImGui::RadioButton("Picture (PNG)", &kind, ExportRequest::png);
  ImGui::SameLine();
  ImGui::RadioButton("Animation (GIF)", &kind, ExportRequest::gif);
  ImGui::SameLine();
  ImGui::RadioButton("Recording (JSON)", &kind, ExportRequest::json);
  help_marker("A picture of the window or one panel as it is now; an animation of a range of steps, one "
              "frame per step; or the Recording itself, every step's numbers as JSON, the same file "
              "`flashstep run` writes.");
  if (kind != d.kind) {
    d.kind = static_cast<ExportRequest::Kind>(kind);
    if (d.path_typed) {
      d.path = with_export_extension(d.path, d.kind);
      ++d.field_generation;
    }
    changed(d);
  }
  ImGui::Separator();

  if (d.kind != ExportRequest::json) draw_picture_choices(app, d, column);
  if (d.kind == ExportRequest::png) {
    ImGui::SetCursorPosX(column);
    if (ImGui::Checkbox("Transparent background", &d.transparent)) changed(d);
    help_marker("The window's background becomes see-through, for a figure on a coloured slide: the "
                "text, the cells and the lines stay.");
  }
  if (d.kind == ExportRequest::gif) draw_gif_choices(app, d, column);
  if (d.kind == ExportRequest::json) draw_json_choices(app, d);
  ImGui::Separator();

  // The file: a proposal that follows the choices (and the playhead) until the user types one
  // of their own.
  bool refocus = false;
  if (!d.path_typed) {
    const std::string proposal =
        (fs::path(base_folder(d)) / default_export_name(app, d.kind, d.panel, d.from - 1, d.to - 1)).string();
    if (proposal != d.path) {
      d.path = proposal;
      ++d.field_generation;
      refocus = d.field_active;
    }
  }
  row_label("File", column);
  const float marker = ImGui::CalcTextSize("(?)").x + st.ItemSpacing.x;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - marker);
  // Focused at once, all selected: Enter exports the proposal, typing replaces it.
  if (d.first_frame || refocus) ImGui::SetKeyboardFocusHere();
  const std::string field = "##path" + std::to_string(d.field_generation);
  if (ImGui::InputText(field.c_str(), &d.path,
                       ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll))
    accepted = true;
  d.field_active = ImGui::IsItemActive();
  if (ImGui::IsItemEdited()) {
    d.path_typed = true;
    changed(d);
  }
  help_marker("A full path, or a name that goes in the folder of the last export (at first the working "
              "folder). The extension is added when the name has none; ~ is your home folder.");
  const std::string full = resolved_path(d);
  if (!full.empty() && full != d.path) {
    ImGui::SetCursorPosX(column);
    ImGui::TextDisabled("→ %s", full.c_str());
  }

  // What went wrong or the question, then the buttons on the right.
  const char* ok_label = d.replace.empty() ? "Export" : "Replace";
  const char* cancel_label = d.replace.empty() ? "Cancel" : "No";
  const float buttons = button_width(ok_label) + button_width(cancel_label) + st.ItemSpacing.x;
  const float text_w = ImGui::GetContentRegionAvail().x - buttons - st.ItemSpacing.x;
  ImGui::AlignTextToFramePadding();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_w);
  if (!d.replace.empty()) {
    ImGui::TextWrapped("%s is there already. Replace it?", fs::path(d.replace).filename().string().c_str());
  } else if (!d.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_colour());
    ImGui::TextWrapped("%s", d.error.c_str());
    ImGui::PopStyleColor();
  } else if (!d.notice.empty()) {
    ImGui::TextWrapped("%s", d.notice.c_str());
  } else {
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetFrameHeight()));
  }
  ImGui::PopTextWrapPos();
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - buttons);
  if (ImGui::Button(ok_label)) accepted = true;
  ImGui::SameLine();
  if (ImGui::Button(cancel_label)) {
    if (d.replace.empty()) cancelled = true;
    d.replace.clear();
  }

  // Enter exports (or answers "replace?" with yes), Escape cancels (or takes the question back).
  if (!accepted && !typing && (key_pressed(ImGuiKey_Enter) || key_pressed(ImGuiKey_KeyPadEnter))) accepted = true;
  if (key_pressed(ImGuiKey_Escape)) {
    if (!d.replace.empty()) d.replace.clear();
    else cancelled = true;
  }
  if (accepted && !cancelled) try_export(app, d);
  if (cancelled) close_dialog(d);
}

void draw_progress(AppState& app, ExportDialog& d) {
  const std::string name = fs::path(d.pending.path).filename().string();
  ImGui::Text("Writing %s…", name.c_str());
  if (d.job.busy()) {
    const int n = d.job.frame_count();
    const std::string label = strf("frame %d of %d", std::min(d.job.frames_done() + 1, n), n);
    ImGui::ProgressBar(d.job.progress(), ImVec2(-FLT_MIN, 0), label.c_str());
    ImGui::TextDisabled("The window shows each step as it is drawn; the playhead goes back at the end.");
  }
  ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - button_width("Cancel"));
  if (ImGui::Button("Cancel") || key_pressed(ImGuiKey_Escape)) {
    if (d.job.busy()) {
      d.job.cancel(app);
      finished(app, d);
    } else {
      d.start_requested = false;
      d.notice = "Export cancelled: " + name + " was not written.";
    }
  }
}

}  // namespace

void draw_export_dialog(AppState& app, ExportDialog& d) {
  if (app.requests.export_dialog) {
    app.requests.export_dialog = false;
    if (!d.open) open_dialog(app, d);
  }
  if (!d.open) return;
  if (d.want_popup) {
    ImGui::OpenPopup(kTitle);
    d.want_popup = false;
    d.first_frame = true;
  }
  // A fixed width in font heights (the app scales its fonts 1× to 3×); the height follows the
  // content, which changes with the kind of export.
  const float fs = ImGui::GetFontSize();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float w = std::min(fs * 36.0f, vp->WorkSize.x * 0.95f);
  ImGui::SetNextWindowSizeConstraints(ImVec2(w, 0.0f), ImVec2(w, vp->WorkSize.y * 0.95f));
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  // Keys belong to a text field while one is being typed in (it was active last frame).
  const bool typing = ImGui::GetIO().WantTextInput;
  const bool working = d.job.busy() || d.start_requested;
  bool keep = true;
  // While a file is being written the title bar has no close button: Cancel stops it.
  if (!ImGui::BeginPopupModal(kTitle, working ? nullptr : &keep,
                              ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                                  ImGuiWindowFlags_NoMove)) {
    if (!keep || !ImGui::IsPopupOpen(kTitle)) d.open = false;
    return;
  }
  if (d.close_requested) {
    d.close_requested = false;
    close_dialog(d);
    ImGui::EndPopup();
    return;
  }
  // Outlined fields: in the light theme a field is as white as the dialog around it.
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, std::max(ImGui::GetStyle().FrameBorderSize, 1.0f));
  if (working) draw_progress(app, d);
  else draw_choices(app, d, typing);
  ImGui::PopStyleVar();
  d.first_frame = false;
  ImGui::EndPopup();
}

void export_dialog_tick(AppState& app, ExportDialog& d, GLFWwindow* host) {
  if (d.start_requested) {
    d.start_requested = false;
    std::string error;
    d.job.start(app, d.pending, host, error);
    // A PNG or JSON is written (or refused) by now; a GIF's first frame comes on the next
    // tick, after the dialog has shown its progress bar.
    if (!d.job.busy()) finished(app, d);
    return;
  }
  if (!d.job.busy()) return;
  d.job.step(app);
  if (!d.job.busy()) finished(app, d);
}

bool export_dialog_busy(const ExportDialog& d) { return d.start_requested || d.job.busy(); }

}  // namespace flashstep::ui
