// The window's own file dialog (Debian packages no ImGui one): a modal with the folder as an
// editable path, its sub-folders and scenario files, a name field, the recent files, and
// Open/Save and Cancel. Enter confirms, Escape cancels; saving over a file asks first.
//
// The listing and the name logic are plain functions with no ImGui in them
// (tests/app/test_file_dialog.cpp); FileDialog draws them.
#pragma once

#include <string>
#include <vector>

namespace flashstep::ui {

struct DirEntry {
  std::string name;  // the file or folder name; ".." for the parent folder
  bool is_dir = false;
};

// `dir` made absolute and normal, without a trailing '/' (except for "/" itself).
std::string normal_folder(const std::string& dir);

// What the dialog lists in `dir`: ".." first when there is a parent, then the folders, then the
// files whose name ends in `ext` (any case; every file when `ext` is ""), each group sorted
// case-insensitively. Hidden entries (a name starting with '.') and entries that cannot be
// looked at (broken links) are left out. A folder that cannot be listed gives {} and `error`.
std::vector<DirEntry> list_folder(const std::string& dir, const std::string& ext, std::string& error);

// The file a typed name stands for: `typed` (spaces around it dropped, "~" as $HOME) if it is
// absolute, else `folder`/`typed`, normalised, with `ext` added when the name has no extension
// of its own ("lecture" → "lecture.json", "lecture." → "lecture.json", "a.b" stays). A name
// ending in '/', "." or ".." is a folder and gets nothing added. No trailing '/' in the result;
// "" for an empty name.
std::string resolve_choice(const std::string& folder, const std::string& typed, const std::string& ext);

class FileDialog {
 public:
  enum class Mode { open, save };

  // Opens the modal on the next draw(). `folder` "" or unusable: the working folder.
  // `file_name`: the name field's first text (save: the current document's name).
  // `ext`: ".json". `recent`: absolute paths, most recent first.
  void open(Mode mode, std::string title, std::string folder, std::string file_name, std::string ext,
            std::vector<std::string> recent);
  // Draws the modal while it is open; call it every frame from the same place (outside any
  // window). Returns true on the frame the user confirmed, with path() set; the dialog is then
  // closed. Cancel, Escape and the title bar's close button close it and return false.
  bool draw();
  const std::string& path() const { return path_; }
  bool is_open() const { return open_; }
  Mode mode() const { return mode_; }
  const std::string& folder() const { return folder_; }  // the folder shown, for "last folder"

 private:
  bool go_to(const std::string& dir);  // false (and folder_error_) when it cannot be listed
  bool confirm();                      // true when path_ is chosen
  void pick_recent(const std::string& file);
  void draw_entries(bool& accepted);
  void draw_recent();
  void draw_bottom(bool& accepted, bool& cancelled);

  Mode mode_ = Mode::open;
  std::string title_, ext_;
  std::vector<std::string> recent_;
  std::vector<bool> recent_exists_;
  bool open_ = false, want_popup_ = false, first_frame_ = false, focus_name_ = false;
  std::string folder_, folder_edit_, folder_error_;
  std::vector<DirEntry> entries_;
  int selected_ = -1;
  std::string name_;
  std::string message_;  // why the last confirm did not close the dialog
  std::string replace_;  // the existing file a save asks to replace; "" when not asking
  std::string path_;
};

}  // namespace flashstep::ui
