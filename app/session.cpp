#include "app/session.h"

#include "app/files.h"
#include "app/gui.h"
#include "app/ui/model/app_state.h"
#include "app/ui/model/document.h"
#include "core/scenario_json.h"

#include <cstdio>
#include <filesystem>

namespace flashstep {

namespace {

// The last session's scenario, put back at start-up. Not open_document(): the file is ours, so it
// must not become the document or a recent file.
void restore_last(ui::AppState& app, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  std::string text, error;
  if (!read_file(path, text, error)) {
    app.note(ui::Severity::warning, "The last session was not restored: " + error);
    return;
  }
  try {
    if (!ui::apply_document(app, parse_document(text), error))
      app.note(ui::Severity::warning, "The last session was not restored: " + error);
  } catch (const InputError& e) {
    app.note(ui::Severity::warning, std::string("The last session was not restored: ") + e.what());
  }
}

// The lessons left with their own inputs: after the last scenario, which opened its lesson.
void restore_kept(ui::AppState& app, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  std::string text, error;
  std::vector<std::string> notices;
  if (!read_file(path, text, error)) {
    notices.push_back("the lessons' kept inputs were not restored: " + error);
  } else {
    try {
      ui::kept_from_json(app, Json::parse(text), notices);
    } catch (const std::exception& e) {
      notices.push_back(std::string("the lessons' kept inputs were not restored: ") + path + " is not JSON (" +
                        e.what() + ")");
    }
  }
  for (const std::string& n : notices) app.note(ui::Severity::warning, "The last session: " + n);
}

}  // namespace

Session::Session(bool bench) : config_(bench ? "" : config_dir()) {
  if (!config_.empty()) settings_ = load_settings(settings_path(config_), notices_);
}

WindowOptions Session::window_options(const GuiOptions& opt) const {
  WindowOptions o;
  o.width = opt.size_given ? opt.width : settings_.window_width;
  o.height = opt.size_given ? opt.height : settings_.window_height;
  o.maximized = settings_.maximized && !opt.size_given;
  return o;
}

void Session::restore(ui::AppState& app, bool lesson_given) {
  app.set_theme(settings_.theme);
  app.set_font_scale(settings_.font_scale);
  app.set_play_speed(settings_.play_speed);
  app.motion.enabled = settings_.animate_steps;
  app.quiz.on = settings_.ask_first;
  app.recent_files = settings_.recent_files;
  for (const std::string& n : notices_) app.note(ui::Severity::warning, n);
  if (config_.empty() || !settings_.restore_last) return;
  if (!lesson_given) restore_last(app, last_scenario_path(config_));
  restore_kept(app, kept_lessons_path(config_));
  written_kept_generation_ = app.kept_generation;
}

void Session::open_pending(ui::AppState& app, const std::vector<std::string>& dropped) {
  for (const std::string& path : dropped) {
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0)
      app.requests.open_path = path;
    else
      app.note(ui::Severity::error, "Not opened: " + path + " is not a scenario file (.json)");
  }
  if (!app.requests.open_path.empty()) {
    ui::begin_open_document(app, app.requests.open_path);
    app.requests.open_path.clear();
  }
  ui::poll_open_document(app);
}

// The dialog opens in the open document's folder, else where it was last used. Save with a
// document open writes straight to it; without one it is Save as.
void Session::serve_file_requests(ui::AppState& app) {
  namespace fs = std::filesystem;
  ui::AppState::Requests& q = app.requests;
  const std::string folder =
      app.document_path.empty() ? settings_.last_folder : fs::path(app.document_path).parent_path().string();
  if (!dialog_.is_open()) {
    tour_dialog_ = false;
    if (q.open) {
      dialog_.open(ui::FileDialog::Mode::open, "Open scenario", folder, "", ".json", app.recent_files);
    } else if (q.open_tour) {
      dialog_.open(ui::FileDialog::Mode::open, "Open tour", folder, "", ".json", {});
      tour_dialog_ = true;
    } else if (q.save && !app.document_path.empty()) {
      ui::save_document(app, app.document_path);
    } else if (q.save || q.save_as) {
      const std::string name = app.document_path.empty() ? app.current_lesson().id + ".json"
                                                         : fs::path(app.document_path).filename().string();
      dialog_.open(ui::FileDialog::Mode::save, "Save scenario as", folder, name, ".json", app.recent_files);
    }
  }
  q.open = q.save = q.save_as = q.open_tour = false;
  if (dialog_.draw()) {
    settings_.last_folder = dialog_.folder();
    if (tour_dialog_) ui::open_tour_file(app, dialog_.path());
    else if (dialog_.mode() == ui::FileDialog::Mode::open) ui::begin_open_document(app, dialog_.path());
    else ui::save_document(app, dialog_.path());
  }
}

void Session::fill_settings(const ui::AppState& app, const WindowPlacement& where) {
  settings_.theme = app.theme;
  settings_.font_scale = app.font_scale;
  settings_.play_speed = app.timeline.speed();
  settings_.animate_steps = app.motion.enabled;
  settings_.ask_first = app.quiz.on;
  settings_.recent_files = app.recent_files;
  settings_.maximized = where.maximized;
  if (where.has_size) {
    settings_.window_width = where.width;
    settings_.window_height = where.height;
  }
}

void Session::save(const ui::AppState& app, const WindowPlacement& where) {
  if (config_.empty()) return;
  fill_settings(app, where);
  std::string err = save_settings(settings_path(config_), settings_);
  if (err.empty())
    err = write_file_atomic(last_scenario_path(config_), document_to_json(ui::make_document(app)).dump(2) + "\n");
  if (err.empty()) err = write_file_atomic(kept_lessons_path(config_), ui::kept_to_json(app).dump(2) + "\n");
  if (!err.empty()) std::fprintf(stderr, "flashstep: settings not saved: %s\n", err.c_str());
}

void Session::autosave(const ui::AppState& app, const WindowPlacement& where, double now) {
  if (config_.empty() || now - last_look_ < kAutosaveSeconds) return;
  last_look_ = now;
  fill_settings(app, where);  // in presentation mode: the size the window will go back to
  const std::string settings = settings_to_json(settings_).dump(2) + "\n";
  const std::string scenario = document_to_json(ui::make_document(app)).dump(2) + "\n";
  std::string err;
  if (settings != written_settings_) {
    err = save_settings(settings_path(config_), settings_);
    if (err.empty()) written_settings_ = settings;
  }
  if (err.empty() && scenario != written_scenario_) {
    err = write_file_atomic(last_scenario_path(config_), scenario);
    if (err.empty()) written_scenario_ = scenario;
  }
  // The kept lessons only when one changed: they can hold large vectors.
  if (err.empty() && app.kept_generation != written_kept_generation_) {
    err = write_file_atomic(kept_lessons_path(config_), ui::kept_to_json(app).dump(2) + "\n");
    if (err.empty()) written_kept_generation_ = app.kept_generation;
  }
  if (!err.empty() && !autosave_failed_) std::fprintf(stderr, "flashstep: settings not saved: %s\n", err.c_str());
  autosave_failed_ = !err.empty();
}

}  // namespace flashstep
