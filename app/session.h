// The window's session: what carries over from one run to the next and the files the user
// opens and saves in between. At start-up the settings (app/settings.h), the last scenario
// and the other lessons' kept inputs come back; File ▸ Open / Save go through the file dialog;
// at quit (and while the window runs) the settings, last-scenario.json and lessons.json are written. Benchmarks use none of it, so their figures are reproducible.
#pragma once

#include "app/settings.h"
#include "app/ui/dialogs/file_dialog.h"
#include "app/window.h"

#include <string>
#include <vector>

namespace flashstep {

struct GuiOptions;
namespace ui {
class AppState;
}

class Session {
 public:
  // Reads the settings from the config folder unless `bench`. A settings file that cannot be
  // used is no error: its notices go to the status bar in restore().
  explicit Session(bool bench);

  // The saved size (and maximized state), unless --width/--height were given.
  WindowOptions window_options(const GuiOptions& opt) const;
  // Theme, font size, recent files and the settings' notices; then the last scenario, unless
  // a lesson was asked for on the command line or the user turned that off.
  void restore(ui::AppState& app, bool lesson_given);
  // Before the frame is built: files dropped on the window and a path asked for (Open Recent)
  // start opening; a file read in the background is applied when it is ready.
  void open_pending(ui::AppState& app, const std::vector<std::string>& dropped);
  // Inside the ImGui frame, after the panels: File ▸ Open / Save / Save as and their keys, and
  // File ▸ Open tour….
  void serve_file_requests(ui::AppState& app);
  // At quit: the settings and last-scenario.json. A failure is one line on stderr.
  void save(const ui::AppState& app, const WindowPlacement& where);
  // While the window runs: the same files, written (atomically) once what they would hold has
  // changed and kAutosaveSeconds have passed since the last look, so a crash or a kill loses
  // at most those seconds.
  void autosave(const ui::AppState& app, const WindowPlacement& where, double now);
  static constexpr double kAutosaveSeconds = 2.0;

 private:
  // The settings and the last scenario as they would be written now.
  void fill_settings(const ui::AppState& app, const WindowPlacement& where);
  std::string written_settings_, written_scenario_;  // what the files hold
  int written_kept_generation_ = -1;                 // AppState::kept_generation in lessons.json
  double last_look_ = -1e9;
  bool autosave_failed_ = false;
  std::string config_;  // the config folder; "" when nothing is read or written
  std::vector<std::string> notices_;
  Settings settings_;
  ui::FileDialog dialog_;
  bool tour_dialog_ = false;  // the dialog is File ▸ Open tour…'s
};

}  // namespace flashstep
