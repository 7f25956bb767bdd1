#include "app/settings.h"

#include "app/files.h"
#include "core/report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <system_error>

namespace flashstep {

namespace fs = std::filesystem;

namespace {

// A usable base folder from the environment: set, not empty, absolute.
std::string env_folder(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v || v[0] != '/') return "";
  return v;
}

// A value as the notice shows it: its JSON text, cut short when long.
std::string shown(const Json& v) {
  std::string s = v.dump();
  if (s.size() <= 60) return s;
  std::size_t cut = 57;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return s.substr(0, cut) + "...";
}

// JSON strings are UTF-8; a file name need not be. Such a name cannot be saved as it is.
bool fits_json(const std::string& s) {
  try {
    (void)Json(s).dump();
    return true;
  } catch (const Json::type_error&) {
    return false;
  }
}

// settings.json.bad-20240131-142501, or with -2, -3, … when a file of that name is there already.
std::string aside_name(const std::string& path) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  const std::string base = path + ".bad-" + stamp;
  std::string name = base;
  std::error_code ec;
  for (int i = 2; fs::exists(fs::symlink_status(name, ec)) && i < 1000; ++i) name = base + "-" + std::to_string(i);
  return name;
}

// One notice for a file that cannot be used: what was wrong, and where the file went.
std::string move_aside(const std::string& path, const std::string& why) {
  const std::string aside = aside_name(path);
  std::error_code ec;
  fs::rename(path, aside, ec);
  if (ec)
    return "Settings " + path + " " + why + "; using the defaults (the file could not be moved aside: " +
           ec.message() + ")";
  return "Settings " + path + " " + why + "; using the defaults (the old file is now " + aside + ")";
}

// A JSON integer that fits in int64; nullopt for anything else (1280.0 included).
std::optional<std::int64_t> whole_number(const Json& v) {
  if (v.is_number_unsigned())
    return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)
               ? std::optional<std::int64_t>(static_cast<std::int64_t>(v.get<std::uint64_t>()))
               : std::nullopt;
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return std::nullopt;
}

// Reads the keys this version knows; a bad value costs only its key.
struct Reader {
  const Json& j;
  const std::string& path;
  std::vector<std::string>& notices;

  const Json* find(const char* key) const {
    const auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  void bad(const char* key, const Json& v, const std::string& want, const std::string& fallback) {
    notices.push_back("Settings " + path + ": \"" + key + "\" = " + shown(v) + " is not " + want + "; using " +
                      fallback);
  }
  void boolean(const char* key, bool& out) {
    const Json* v = find(key);
    if (!v) return;
    if (v->is_boolean()) out = v->get<bool>();
    else bad(key, *v, "true or false", out ? "true" : "false");
  }
  void string(const char* key, std::string& out) {
    const Json* v = find(key);
    if (!v) return;
    if (v->is_string()) out = v->get<std::string>();
    else bad(key, *v, "a string", "\"" + out + "\"");
  }
  void integer(const char* key, int& out, int lo, int hi) {
    const Json* v = find(key);
    if (!v) return;
    const auto n = whole_number(*v);
    if (n && *n >= lo && *n <= hi) out = static_cast<int>(*n);
    else bad(key, *v, "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi), std::to_string(out));
  }
};

}  // namespace

std::string config_dir() {
  if (std::string xdg = env_folder("XDG_CONFIG_HOME"); !xdg.empty()) return xdg + "/flashstep";
  if (std::string home = env_folder("HOME"); !home.empty()) return home + "/.config/flashstep";
  return "";
}

std::string settings_path(const std::string& dir) { return dir + "/settings.json"; }
std::string last_scenario_path(const std::string& dir) { return dir + "/last-scenario.json"; }
std::string kept_lessons_path(const std::string& dir) { return dir + "/lessons.json"; }

Settings load_settings(const std::string& path, std::vector<std::string>& notices) {
  Settings s;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return s;
  if (st.type() == fs::file_type::directory) {
    notices.push_back(move_aside(path, "is a folder, not a file"));
    return s;
  }
  std::string text, error;
  if (!read_file(path, text, error)) {
    // read_file names the file; the notice does already.
    const std::string named = "cannot read " + path + ": ";
    if (error.compare(0, named.size(), named) == 0) error.erase(0, named.size());
    notices.push_back(move_aside(path, "cannot be read (" + error + ")"));
    return s;
  }
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    notices.push_back(move_aside(path, "is not JSON"));
    return s;
  }
  if (!j.is_object()) {
    notices.push_back(move_aside(path, "holds " + std::string(j.type_name()) + ", not a JSON object"));
    return s;
  }
  if (const auto v = j.find("version"); v != j.end()) {
    const auto version = whole_number(*v);
    if (!version && v->is_number_unsigned()) {
      notices.push_back(move_aside(path, "is version " + v->dump() + ", written by a newer FlashStep"));
      return s;
    }
    if (!version || *version < 1) {
      notices.push_back(move_aside(path, "has \"version\" = " + shown(*v) + ", not a version number"));
      return s;
    }
    if (*version > kSettingsVersion) {
      notices.push_back(move_aside(path, "is version " + v->dump() + ", written by a newer FlashStep (this one reads " +
                                             std::to_string(kSettingsVersion) + ")"));
      return s;
    }
  }

  Reader r{j, path, notices};
  if (const Json* v = r.find("theme")) {
    const auto t = v->is_string() ? ui::parse_theme(v->get<std::string>()) : std::nullopt;
    if (t) s.theme = *t;
    else r.bad("theme", *v, std::string(ui::kThemeNames), ui::theme_name(s.theme));
  }
  if (const Json* v = r.find("font_scale")) {
    const double f = v->is_number() ? v->get<double>() : NAN;
    if (!std::isfinite(f)) {
      r.bad("font_scale", *v, "a number from 1 to 3", "1");
    } else if (f < kMinFontScale || f > kMaxFontScale) {
      s.font_scale = std::clamp(static_cast<float>(f), kMinFontScale, kMaxFontScale);
      notices.push_back("Settings " + path + ": \"font_scale\" = " + shown(*v) + " is outside 1 to 3; using " +
                        (s.font_scale == kMinFontScale ? "1" : "3"));
    } else {
      s.font_scale = static_cast<float>(f);
    }
  }
  if (const Json* v = r.find("play_speed")) {
    const double f = v->is_number() ? v->get<double>() : NAN;
    if (std::isfinite(f) && f > 0) s.play_speed = f;
    else r.bad("play_speed", *v, "a number of steps per second above 0", "2");
  }
  r.integer("window_width", s.window_width, kMinWindowWidth, kMaxWindowSide);
  r.integer("window_height", s.window_height, kMinWindowHeight, kMaxWindowSide);
  r.boolean("maximized", s.maximized);
  r.string("last_folder", s.last_folder);
  r.boolean("restore_last", s.restore_last);
  r.boolean("animate_steps", s.animate_steps);
  r.boolean("ask_first", s.ask_first);
  if (const Json* v = r.find("recent_files")) {
    if (!v->is_array()) {
      r.bad("recent_files", *v, "a list of file names", "none");
    } else {
      std::size_t skipped = 0;
      for (const Json& e : *v) {
        if (s.recent_files.size() == kMaxRecent) break;  // a huge list is read no further
        if (!e.is_string() || e.get_ref<const std::string&>().empty()) {
          ++skipped;
          continue;
        }
        const std::string& f = e.get_ref<const std::string&>();
        if (std::find(s.recent_files.begin(), s.recent_files.end(), f) == s.recent_files.end())
          s.recent_files.push_back(f);
      }
      if (skipped > 0)
        notices.push_back("Settings " + path + ": skipped " + std::to_string(skipped) +
                          " entr" + (skipped == 1 ? "y" : "ies") + " of \"recent_files\" that " +
                          (skipped == 1 ? "is" : "are") + " not a file name");
    }
  }
  return s;
}

Json settings_to_json(const Settings& s) {
  Json j = Json::object();
  j["version"] = kSettingsVersion;
  j["theme"] = ui::theme_name(s.theme);
  j["font_scale"] = std::clamp(s.font_scale, kMinFontScale, kMaxFontScale);
  j["play_speed"] = s.play_speed;
  j["window_width"] = s.window_width;
  j["window_height"] = s.window_height;
  j["maximized"] = s.maximized;
  Json recent = Json::array();
  for (const std::string& f : s.recent_files)
    if (recent.size() < kMaxRecent && fits_json(f)) recent.push_back(f);
  j["recent_files"] = recent;
  j["last_folder"] = fits_json(s.last_folder) ? s.last_folder : "";
  j["restore_last"] = s.restore_last;
  j["animate_steps"] = s.animate_steps;
  j["ask_first"] = s.ask_first;
  return j;
}

std::string save_settings(const std::string& path, const Settings& s) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) return "cannot create the folder " + parent.string() + ": " + ec.message();
  }
  return write_file_atomic(path, settings_to_json(s).dump(2) + "\n");
}

void add_recent(std::vector<std::string>& recent, const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  std::string full = fs::absolute(path, ec).lexically_normal().string();
  if (ec || full.empty()) full = path;
  recent.erase(std::remove(recent.begin(), recent.end(), full), recent.end());
  recent.insert(recent.begin(), full);
  if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
}

void add_recent(Settings& s, const std::string& path) { add_recent(s.recent_files, path); }

}  // namespace flashstep
