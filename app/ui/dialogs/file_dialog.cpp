#include "app/ui/dialogs/file_dialog.h"

#include "app/ui/widgets.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace flashstep::ui {

namespace fs = std::filesystem;

// ---- the logic (no ImGui) ----

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with_ci(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && lower(s.substr(s.size() - tail.size())) == lower(tail);
}

bool less_ci(const DirEntry& a, const DirEntry& b) {
  const std::string la = lower(a.name), lb = lower(b.name);
  return la != lb ? la < lb : a.name < b.name;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string home() {
  const char* h = std::getenv("HOME");
  return h && h[0] == '/' ? h : "";
}

}  // namespace

std::string normal_folder(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec);
  if (ec) p = dir;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::vector<DirEntry> list_folder(const std::string& dir, const std::string& ext, std::string& error) {
  error.clear();
  const std::string folder = normal_folder(dir);
  std::error_code ec;
  const fs::file_status st = fs::status(folder, ec);
  if (!fs::is_directory(st)) {
    error = "Cannot open the folder " + folder + ": " +
            (st.type() == fs::file_type::not_found ? std::string("no such folder")
             : ec                                   ? ec.message()
                                                    : std::string("not a folder"));
    return {};
  }
  std::vector<DirEntry> dirs, files;
  fs::directory_iterator it(folder, fs::directory_options::none, ec);
  if (ec) {
    error = "Cannot open the folder " + folder + ": " + ec.message();
    return {};
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code st_ec;
    const fs::file_status st = it->status(st_ec);  // follows links: a link to a folder is a folder
    if (st_ec) continue;
    if (fs::is_directory(st)) dirs.push_back({name, true});
    else if (ext.empty() || (name.size() > ext.size() && ends_with_ci(name, ext))) files.push_back({name, false});
  }
  if (ec) {
    error = "Cannot list the folder " + folder + ": " + ec.message();
    return {};
  }
  std::sort(dirs.begin(), dirs.end(), less_ci);
  std::sort(files.begin(), files.end(), less_ci);
  std::vector<DirEntry> out;
  out.reserve(dirs.size() + files.size() + 1);
  if (folder != "/") out.push_back({"..", true});
  out.insert(out.end(), dirs.begin(), dirs.end());
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

std::string resolve_choice(const std::string& folder, const std::string& typed, const std::string& ext) {
  std::string t = trim(typed);
  if (t.empty()) return "";
  if ((t == "~" || t.compare(0, 2, "~/") == 0) && !home().empty()) t = home() + t.substr(1);
  const fs::path last = fs::path(t).filename();  // "" when t ends in '/'
  const bool is_folder = last.empty() || last == "." || last == "..";
  const fs::path p = t[0] == '/' ? fs::path(t) : fs::path(normal_folder(folder)) / t;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();  // "a/.." normalises to "/x/"
  if (is_folder || ext.empty()) return s;
  const fs::path name = fs::path(s).filename();
  const std::string e = name.extension().string();
  if (e.empty()) s += ext;
  else if (e == ".") s += ext[0] == '.' ? ext.substr(1) : ext;
  return s;
}

// ---- the dialog ----

namespace {

std::string file_name_of(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

void FileDialog::open(Mode mode, std::string title, std::string folder, std::string file_name, std::string ext,
                      std::vector<std::string> recent) {
  mode_ = mode;
  title_ = std::move(title);
  ext_ = std::move(ext);
  recent_ = std::move(recent);
  recent_exists_.clear();
  for (const std::string& r : recent_) {
    std::error_code ec;
    recent_exists_.push_back(fs::is_regular_file(r, ec));
  }
  message_.clear();
  replace_.clear();
  path_.clear();
  folder_error_.clear();
  entries_.clear();
  folder_.clear();
  // The folder asked for, else the working folder, else home, else the root.
  std::string why;
  for (const std::string& f : {folder, std::string("."), home(), std::string("/")}) {
    if (f.empty()) continue;
    if (go_to(f)) break;
    if (why.empty()) why = folder_error_;
  }
  folder_error_ = normal_folder(folder) == folder_ ? "" : why;
  name_ = std::move(file_name);
  // Show the named file selected when it is in the list.
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (!entries_[i].is_dir && entries_[i].name == name_) selected_ = static_cast<int>(i);
  open_ = want_popup_ = true;
}

bool FileDialog::go_to(const std::string& dir) {
  std::string error;
  std::vector<DirEntry> list = list_folder(dir, ext_, error);
  if (!error.empty()) {
    folder_error_ = error;  // the folder field keeps what was typed, to be corrected
    return false;
  }
  folder_ = normal_folder(dir);
  folder_edit_ = folder_;
  folder_error_.clear();
  entries_ = std::move(list);
  selected_ = -1;
  replace_.clear();
  // Opening, a name from another folder means nothing here; saving, it is the name to save as.
  if (mode_ == Mode::open) name_.clear();
  return true;
}

void FileDialog::pick_recent(const std::string& file) {
  message_.clear();
  if (!go_to(fs::path(file).parent_path().string())) return;
  name_ = file_name_of(file);
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (!entries_[i].is_dir && entries_[i].name == name_) selected_ = static_cast<int>(i);
}

bool FileDialog::confirm() {
  message_.clear();
  std::error_code ec;
  const std::string typed = trim(name_);
  if (typed.empty()) {
    // Nothing typed: Enter on a selected folder goes into it.
    if (selected_ >= 0 && selected_ < static_cast<int>(entries_.size()) && entries_[selected_].is_dir) {
      go_to(folder_ + "/" + entries_[selected_].name);
      return false;
    }
    message_ = mode_ == Mode::save ? "Type a file name." : "Choose a file.";
    return false;
  }
  // A typed folder (absolute, relative or "..") is somewhere to go, not a choice.
  const std::string as_typed = resolve_choice(folder_, typed, "");
  if (fs::is_directory(as_typed, ec)) {
    if (go_to(as_typed)) name_.clear();
    focus_name_ = true;  // Enter took the keyboard from the name field: give it back
    return false;
  }
  if (mode_ == Mode::open) {
    if (fs::is_regular_file(as_typed, ec)) {
      path_ = as_typed;
      return true;
    }
    const std::string p = resolve_choice(folder_, typed, ext_);
    if (fs::is_regular_file(p, ec)) {
      path_ = p;
      return true;
    }
    message_ = "There is no file " + p + ".";
    return false;
  }
  const std::string p = resolve_choice(folder_, typed, ext_);
  const fs::path parent = fs::path(p).parent_path();
  if (!fs::is_directory(parent, ec)) {
    message_ = "There is no folder " + parent.string() + ".";
    return false;
  }
  if (fs::is_directory(p, ec)) {
    go_to(p);
    return false;
  }
  if (fs::exists(p, ec) && replace_ != p) {
    replace_ = p;  // asked in the bottom row; confirming again replaces it
    return false;
  }
  path_ = p;
  return true;
}

void FileDialog::draw_entries(bool& accepted) {
  const char* folder_mark = pick("\u25B8 ", 0x25B8, "");
  std::string go;  // a folder to open once the list is drawn
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const DirEntry& e = entries_[i];
    // Folders "▸ name" (or "name/" when the font has no ▸), files indented to line up.
    std::string label = e.is_dir ? folder_mark + e.name + (*folder_mark ? "" : "/") : (*folder_mark ? "   " : "") + e.name;
    label += "##" + std::to_string(i);
    const bool is_selected = selected_ == static_cast<int>(i);
    if (ImGui::Selectable(label.c_str(), is_selected,
                          ImGuiSelectableFlags_AllowDoubleClick | ImGuiSelectableFlags_DontClosePopups)) {
      selected_ = static_cast<int>(i);
      replace_.clear();
      message_.clear();
      if (!e.is_dir) name_ = e.name;
      else if (mode_ == Mode::open) name_.clear();  // so that Enter goes into the folder
      if (ImGui::IsMouseDoubleClicked(0)) {
        if (e.is_dir) go = folder_ + "/" + e.name;
        else accepted = confirm();
      }
    }
    if (is_selected && first_frame_) ImGui::SetScrollHereY(0.5f);
  }
  if (entries_.empty() && folder_error_.empty()) {
    if (ext_.empty()) ImGui::TextDisabled("This folder is empty.");
    else ImGui::TextDisabled("No folders or %s files here.", ext_.c_str());
  }
  if (!go.empty()) go_to(go);
}

void FileDialog::draw_recent() {
  for (std::size_t i = 0; i < recent_.size(); ++i) {
    const std::string& r = recent_[i];
    const fs::path p(r);
    // The name, then its folder dimmed; a file that is gone is greyed out and cannot be picked.
    const std::string id = "##recent" + std::to_string(i);
    if (!recent_exists_[i]) ImGui::BeginDisabled();
    if (ImGui::Selectable(id.c_str(), false, ImGuiSelectableFlags_DontClosePopups)) pick_recent(r);
    const bool hovered = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled);
    ImGui::SameLine(0.0f, 0.0f);
    ImGui::TextUnformatted(p.filename().string().c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", p.parent_path().string().c_str());
    if (!recent_exists_[i]) ImGui::EndDisabled();
    if (hovered) ImGui::SetTooltip("%s%s", r.c_str(), recent_exists_[i] ? "" : "\n(no longer there)");
  }
}

void FileDialog::draw_bottom(bool& accepted, bool& cancelled) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const bool save = mode_ == Mode::save;
  // The name: the file to save, or (opening) a name or a path typed instead of clicked.
  const char* name_label = save ? "Save as" : "File";
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(name_label);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (first_frame_ || focus_name_) ImGui::SetKeyboardFocusHere();
  focus_name_ = false;
  const std::string hint = save ? "name" + ext_ : "a name or a path";
  if (ImGui::InputTextWithHint("##name", hint.c_str(), &name_,
                               ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll)) {
    accepted = confirm();  // a second Enter on the same name answers "replace?" with yes
  }
  if (ImGui::IsItemEdited()) {
    replace_.clear();
    message_.clear();
  }

  // The question, or what was wrong, then the buttons on the right.
  const char* ok_label = save ? (replace_.empty() ? "Save" : "Replace") : "Open";
  const char* cancel_label = replace_.empty() ? "Cancel" : "No";
  const float buttons = button_width(ok_label) + button_width(cancel_label) + st.ItemSpacing.x;
  const float text_w = ImGui::GetContentRegionAvail().x - buttons - st.ItemSpacing.x;
  ImGui::AlignTextToFramePadding();
  if (!replace_.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_w);
    ImGui::TextWrapped("Replace %s?", file_name_of(replace_).c_str());
    ImGui::PopTextWrapPos();
  } else if (!message_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_colour());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_w);
    ImGui::TextWrapped("%s", message_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  } else {
    ImGui::Dummy(ImVec2(1.0f, ImGui::GetFrameHeight()));
  }
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - buttons);
  if (ImGui::Button(ok_label)) accepted = confirm();
  ImGui::SameLine();
  if (ImGui::Button(cancel_label)) {
    if (replace_.empty()) cancelled = true;
    replace_.clear();
  }
}

bool FileDialog::draw() {
  if (!open_) return false;
  const std::string label = title_ + "###flashstep-file-dialog";
  if (want_popup_) {
    ImGui::OpenPopup(label.c_str());
    want_popup_ = false;
    first_frame_ = true;
  }
  // Sizes in font heights: the app scales its fonts 1× to 3×.
  const float fs = ImGui::GetFontSize();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 room(vp->WorkSize.x * 0.95f, vp->WorkSize.y * 0.95f);
  ImGui::SetNextWindowSize(ImVec2(std::min(fs * 42.0f, room.x), std::min(fs * 30.0f, room.y)), ImGuiCond_Appearing);
  ImGui::SetNextWindowSizeConstraints(ImVec2(std::min(fs * 22.0f, room.x), std::min(fs * 16.0f, room.y)), room);
  ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  // Keys belong to a text field while one is being typed in (it was active last frame).
  const bool typing = ImGui::GetIO().WantTextInput;
  bool keep = true;
  if (!ImGui::BeginPopupModal(label.c_str(), &keep, ImGuiWindowFlags_NoSavedSettings)) {
    if (!keep || !ImGui::IsPopupOpen(label.c_str())) open_ = false;
    return false;
  }
  const ImGuiStyle& st = ImGui::GetStyle();
  bool accepted = false, cancelled = false;
  // Outlined fields: in the light theme a field is as white as the dialog around it.
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, std::max(st.FrameBorderSize, 1.0f));

  // The folder, editable: Enter goes there; a folder that cannot be listed stays red below.
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Folder");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::InputText("##folder", &folder_edit_, ImGuiInputTextFlags_EnterReturnsTrue)) {
    // Relative to the folder shown; "~" is home.
    const std::string typed = resolve_choice(folder_, folder_edit_, "");
    if (!typed.empty()) go_to(typed);
  }
  if (!folder_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, error_colour());
    ImGui::TextWrapped("%s", folder_error_.c_str());
    ImGui::PopStyleColor();
  }

  // Below the list: the recent files (at most four lines, then it scrolls), the name row and
  // the buttons row.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float frame_row = ImGui::GetFrameHeightWithSpacing();
  // In a small window the recent files give up lines before the folder list does.
  const float room_lines = std::floor(ImGui::GetContentRegionAvail().y * 0.2f / line);
  const float recent_lines = std::clamp(std::min(static_cast<float>(recent_.size()), 4.0f), 0.0f, std::max(room_lines, 1.0f));
  const float recent_h = recent_.empty() ? 0.0f : recent_lines * line - st.ItemSpacing.y + st.WindowPadding.y * 2;
  const float below = (recent_.empty() ? 0.0f : line + recent_h + st.ItemSpacing.y) + frame_row * 2 + st.ItemSpacing.y;
  ImGui::BeginChild("##entries", ImVec2(0, -below), true);
  draw_entries(accepted);
  ImGui::EndChild();

  if (!recent_.empty()) {
    ImGui::TextDisabled("Recent");
    ImGui::BeginChild("##recent", ImVec2(0, recent_h), true);
    draw_recent();
    ImGui::EndChild();
  }
  draw_bottom(accepted, cancelled);

  // Enter confirms (or answers "replace?"), Escape cancels (or takes the question back).
  if (!accepted && !typing && (key_pressed(ImGuiKey_Enter) || key_pressed(ImGuiKey_KeyPadEnter)))
    accepted = confirm();
  if (key_pressed(ImGuiKey_Escape)) {
    if (!replace_.empty()) replace_.clear();
    else cancelled = true;
  }
  ImGui::PopStyleVar();
  first_frame_ = false;
  if (accepted || cancelled) {
    if (!accepted) path_.clear();
    ImGui::CloseCurrentPopup();
    open_ = false;
  }
  ImGui::EndPopup();
  return accepted;
}

}  // namespace flashstep::ui
