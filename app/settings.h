// The window's settings between runs: theme, font size, window size, recent files, the last
// folder of the file dialog. A small JSON file in the user's config folder
// ($XDG_CONFIG_HOME/flashstep/settings.json), read at start-up and written at quit.
//
// Settings are a convenience, so a bad file never stops the app: a file that cannot be used
// at all is moved aside (settings.json.bad-YYYYMMDD-HHMMSS, so nothing the user wrote is lost)
// and the defaults are used; a bad value for one key costs only that key. Each problem comes
// back as one notice for the status bar and the log. No ImGui and no GL are used here
// (tests/app/test_settings.cpp).
#pragma once

#include "app/ui/model/theme.h"
#include "core/report.h"

#include <string>
#include <vector>

namespace flashstep {

inline constexpr int kSettingsVersion = 1;  // "version" of the files this app writes
inline constexpr std::size_t kMaxRecent = 10;
inline constexpr float kMinFontScale = 1.0f, kMaxFontScale = 3.0f;
// Window sizes outside these are not used (a size saved on a bigger screen, a broken file). The
// minimum is the smallest window the panels fit in without overlapping: the window cannot be
// made smaller.
inline constexpr int kMinWindowWidth = 960, kMinWindowHeight = 600, kMaxWindowSide = 16384;

struct Settings {
  ui::Theme theme = ui::Theme::dark;
  float font_scale = 1.0f;  // 1..3, on top of the screen's DPI scale
  double play_speed = 2.0;  // steps per second while playing; the nearest of the timeline's speeds is used
  int window_width = 1280, window_height = 800;
  bool maximized = false;
  std::vector<std::string> recent_files;  // absolute paths, most recent first, ≤ kMaxRecent, no duplicates
  std::string last_folder;                // where the file dialog opens; "" = the working folder
  bool restore_last = true;               // reopen the last scenario at start-up
  bool animate_steps = true;              // View ▸ Animate steps (app/ui/model/transition.h)
  bool ask_first = false;                 // View ▸ Ask me first (app/ui/model/ask.h)
};

// The config folder: $XDG_CONFIG_HOME/flashstep, or $HOME/.config/flashstep when
// XDG_CONFIG_HOME is unset, empty or not absolute (the XDG base directory spec says to ignore
// a relative one); "" when HOME is not usable either.
std::string config_dir();
std::string settings_path(const std::string& dir);       // dir + "/settings.json"
std::string last_scenario_path(const std::string& dir);  // dir + "/last-scenario.json"
std::string kept_lessons_path(const std::string& dir);   // dir + "/lessons.json": each lesson's work

// Reads the settings at `path`. A missing file gives the defaults and no notice. What went
// wrong is appended to `notices`, one sentence each; see the top of this file.
Settings load_settings(const std::string& path, std::vector<std::string>& notices);
// Creates the folder and writes `s` (with "version") through a temporary file and a rename.
// Returns "" or a message naming the problem.
std::string save_settings(const std::string& path, const Settings& s);
// What save_settings() writes.
Json settings_to_json(const Settings& s);

// Puts `path`, made absolute, first in the list, without duplicates, at most kMaxRecent.
void add_recent(std::vector<std::string>& recent, const std::string& path);
void add_recent(Settings& s, const std::string& path);  // in s.recent_files

}  // namespace flashstep
