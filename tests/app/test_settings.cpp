// The settings file: what is saved comes back; a file that cannot be used is moved aside with
// its bytes intact and the defaults are used; a bad value costs only its own key; the config
// folder follows the XDG base directory rules.
#include "tests/app/drive.h"
#include "tests/temp_dir.h"
#include "app/files.h"
#include "app/settings.h"
#include "app/ui/model/app_state.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <unistd.h>

using namespace flashstep;
namespace fs = std::filesystem;

namespace {

// Sets (or unsets, with nullopt) an environment variable for a scope and puts it back after.
struct EnvVar {
  std::string name;
  std::optional<std::string> before;
  EnvVar(const char* n, std::optional<std::string> value) : name(n) {
    if (const char* v = std::getenv(n)) before = v;
    if (value) setenv(n, value->c_str(), 1);
    else unsetenv(n);
  }
  ~EnvVar() {
    if (before) setenv(name.c_str(), before->c_str(), 1);
    else unsetenv(name.c_str());
  }
};

std::string read(const std::string& path) {
  std::string text, error;
  REQUIRE_MESSAGE(read_file(path, text, error), error);
  return text;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void check_defaults(const Settings& s) {
  const Settings d;
  CHECK(s.theme == d.theme);
  CHECK(s.font_scale == d.font_scale);
  CHECK(s.play_speed == d.play_speed);
  CHECK(s.window_width == d.window_width);
  CHECK(s.window_height == d.window_height);
  CHECK(s.maximized == d.maximized);
  CHECK(s.recent_files == d.recent_files);
  CHECK(s.last_folder == d.last_folder);
  CHECK(s.restore_last == d.restore_last);
  CHECK(s.animate_steps == d.animate_steps);
  CHECK(s.ask_first == d.ask_first);
}

// A file that cannot be used: loading gives the defaults and one notice naming `why`; the file
// is now settings.json.bad-YYYYMMDD-HHMMSS with the same bytes, and settings.json is gone.
void check_moved_aside(const TempDir& dir, const std::string& original, const std::string& why) {
  const std::string path = dir.file("settings.json");
  std::vector<std::string> notices;
  const Settings s = load_settings(path, notices);
  check_defaults(s);
  REQUIRE(notices.size() == 1);
  CHECK_MESSAGE(contains(notices[0], why), notices[0]);
  CHECK(!fs::exists(path));
  const std::vector<std::string> names = dir.entries();
  REQUIRE(names.size() == 1);
  CHECK(std::regex_match(names[0], std::regex(R"(settings\.json\.bad-\d{8}-\d{6})")));
  CHECK_MESSAGE(contains(notices[0], dir.file(names[0].c_str())), notices[0]);
  CHECK(read(dir.file(names[0].c_str())) == original);
}

}  // namespace

TEST_CASE("saved settings load back the same, with a version") {
  TempDir dir("settings");
  const std::string path = (dir.path / "sub" / "folder" / "settings.json").string();  // folders made on save
  Settings s;
  s.theme = ui::Theme::projector;
  s.font_scale = 2.25f;
  s.play_speed = 16;
  s.window_width = 1920;
  s.window_height = 1080;
  s.maximized = true;
  s.recent_files = {"/home/ana/lecture 3.json", "/tmp/ünïcode.json"};
  s.last_folder = "/home/ana/slides";
  s.restore_last = false;
  s.animate_steps = false;
  s.ask_first = true;
  REQUIRE(save_settings(path, s) == "");
  CHECK(contains(read(path), "\"version\": 1"));
  std::vector<std::string> notices;
  const Settings t = load_settings(path, notices);
  CHECK(notices.empty());
  CHECK(t.theme == s.theme);
  CHECK(t.font_scale == s.font_scale);
  CHECK(t.play_speed == s.play_speed);
  CHECK(t.window_width == s.window_width);
  CHECK(t.window_height == s.window_height);
  CHECK(t.maximized == s.maximized);
  CHECK(t.recent_files == s.recent_files);
  CHECK(t.last_folder == s.last_folder);
  CHECK(t.restore_last == s.restore_last);
  CHECK(t.animate_steps == s.animate_steps);
  CHECK(t.ask_first == s.ask_first);
  // Saving again replaces the file (no temporary left behind).
  REQUIRE(save_settings(path, t) == "");
  CHECK(fs::directory_iterator(dir.path / "sub" / "folder")->path().filename() == "settings.json");
}

TEST_CASE("Ask me first: off by default and in a file from before the key, kept when on, a wrong value costs its key") {
  TempDir dir("settings");
  const std::string path = dir.file("settings.json");
  CHECK_FALSE(Settings{}.ask_first);
  std::vector<std::string> notices;
  write(path, R"({"version": 1, "theme": "light", "animate_steps": false})");
  Settings s = load_settings(path, notices);
  CHECK(notices.empty());
  CHECK(s.theme == ui::Theme::light);
  CHECK_FALSE(s.ask_first);
  write(path, R"({"version": 1, "ask_first": true})");
  CHECK(load_settings(path, notices).ask_first);
  CHECK(notices.empty());
  write(path, R"({"version": 1, "ask_first": "yes"})");
  s = load_settings(path, notices);
  CHECK_FALSE(s.ask_first);
  REQUIRE(notices.size() == 1);
  CHECK(contains(notices[0], "\"ask_first\" = \"yes\""));
  CHECK(contains(notices[0], "using false"));
}

TEST_CASE("file names that are not UTF-8 are left out of the file, not a reason to fail") {
  TempDir dir("settings");
  const std::string path = dir.file("settings.json");
  Settings s;
  s.recent_files = {"/ok.json", "/bad-\xff\xfe.json", "/also ok.json"};
  s.last_folder = "/latin1-\xe9t\xe9";
  REQUIRE(save_settings(path, s) == "");
  std::vector<std::string> notices;
  const Settings t = load_settings(path, notices);
  CHECK(notices.empty());
  CHECK(t.recent_files == std::vector<std::string>{"/ok.json", "/also ok.json"});
  CHECK(t.last_folder == "");
}

TEST_CASE("a missing settings file gives the defaults and no notice, and creates nothing") {
  TempDir dir("settings");
  std::vector<std::string> notices;
  check_defaults(load_settings(dir.file("settings.json"), notices));
  CHECK(notices.empty());
  CHECK(dir.entries().empty());
  check_defaults(load_settings((dir.path / "no" / "such" / "folder" / "settings.json").string(), notices));
  CHECK(notices.empty());
}

TEST_CASE("a settings file that is not JSON is moved aside with its bytes, and the defaults are used") {
  TempDir dir("settings");
  const std::string bytes = "{\"theme\": \"light\", \"font_scale\": 2,\n  oops\x01\xff";
  write(dir.file("settings.json"), bytes);
  check_moved_aside(dir, bytes, "is not JSON");
}

TEST_CASE("a settings file that is not an object, or is empty, is moved aside") {
  TempDir dir("settings");
  SUBCASE("an array") {
    write(dir.file("settings.json"), "[1, 2, 3]\n");
    check_moved_aside(dir, "[1, 2, 3]\n", "not a JSON object");
  }
  SUBCASE("a string") {
    write(dir.file("settings.json"), "\"dark\"");
    check_moved_aside(dir, "\"dark\"", "not a JSON object");
  }
  SUBCASE("empty") {
    write(dir.file("settings.json"), "");
    check_moved_aside(dir, "", "is not JSON");
  }
}

TEST_CASE("a settings file from a newer version is moved aside, not half read") {
  TempDir dir("settings");
  const std::string bytes = "{\"version\": 2, \"theme\": \"light\", \"font_scale\": 2}";
  write(dir.file("settings.json"), bytes);
  check_moved_aside(dir, bytes, "newer FlashStep");
}

TEST_CASE("a settings file whose version is not a number is moved aside") {
  TempDir dir("settings");
  const std::string bytes = "{\"version\": \"one\", \"theme\": \"light\"}";
  write(dir.file("settings.json"), bytes);
  check_moved_aside(dir, bytes, "\"version\" = \"one\"");
}

TEST_CASE("a folder where the settings file should be is moved aside") {
  TempDir dir("settings");
  fs::create_directories(dir.path / "settings.json" / "inside");
  std::vector<std::string> notices;
  check_defaults(load_settings(dir.file("settings.json"), notices));
  REQUIRE(notices.size() == 1);
  CHECK(contains(notices[0], "is a folder"));
  CHECK(!fs::exists(dir.path / "settings.json"));
  REQUIRE(dir.entries().size() == 1);
  CHECK(fs::is_directory(dir.path / dir.entries()[0] / "inside"));
}

TEST_CASE("two bad settings files in the same second keep both copies") {
  TempDir dir("settings");
  write(dir.file("settings.json"), "first");
  std::vector<std::string> notices;
  load_settings(dir.file("settings.json"), notices);
  write(dir.file("settings.json"), "second");
  load_settings(dir.file("settings.json"), notices);
  REQUIRE(notices.size() == 2);
  const std::vector<std::string> names = dir.entries();
  REQUIRE(names.size() == 2);
  std::vector<std::string> contents;
  for (const std::string& n : names) contents.push_back(read(dir.file(n.c_str())));
  std::sort(contents.begin(), contents.end());
  CHECK(contents == std::vector<std::string>{"first", "second"});
}

TEST_CASE("a value of the wrong type costs only its key, with a notice naming key and value") {
  TempDir dir("settings");
  const std::string path = dir.file("settings.json");
  SUBCASE("every key wrong") {
    write(path, R"({"version": 1, "theme": 42, "font_scale": "big", "window_width": "wide",
                    "window_height": 1.5, "maximized": "yes", "recent_files": "a.json",
                    "last_folder": 7, "restore_last": 0, "play_speed": -4})");
    std::vector<std::string> notices;
    check_defaults(load_settings(path, notices));
    REQUIRE(notices.size() == 9);
    const std::pair<const char*, const char*> expected[] = {
        {"\"theme\" = 42", "using dark"},           {"\"font_scale\" = \"big\"", "using 1"},
        {"\"window_width\" = \"wide\"", "1280"},    {"\"window_height\" = 1.5", "800"},
        {"\"maximized\" = \"yes\"", "using false"}, {"\"last_folder\" = 7", "using \"\""},
        {"\"restore_last\" = 0", "using true"},     {"\"recent_files\" = \"a.json\"", "using none"},
        {"\"play_speed\" = -4", "using 2"},
    };
    for (const auto& want : expected) {
      const std::string key = want.first, fallback = want.second;
      const bool found = std::any_of(notices.begin(), notices.end(), [&](const std::string& n) {
        return contains(n, key) && contains(n, fallback) && contains(n, path);
      });
      CHECK_MESSAGE(found, key);
    }
    CHECK(fs::exists(path));  // kept: only keys were bad
  }
  SUBCASE("one key wrong, the others kept, unknown keys ignored") {
    write(path, R"({"version": 1, "theme": "solarized", "font_scale": 2, "window_width": 1600,
                    "maximized": true, "recent_files": ["/a.json"], "future_key": {"x": [1, 2]}})");
    std::vector<std::string> notices;
    const Settings s = load_settings(path, notices);
    REQUIRE(notices.size() == 1);
    CHECK(contains(notices[0], "\"theme\" = \"solarized\""));
    CHECK(contains(notices[0], "dark, light or projector"));
    CHECK(s.theme == ui::Theme::dark);
    CHECK(s.font_scale == 2.0f);
    CHECK(s.window_width == 1600);
    CHECK(s.window_height == 800);
    CHECK(s.maximized);
    CHECK(s.recent_files == std::vector<std::string>{"/a.json"});
  }
  SUBCASE("no version key is read as version 1") {
    write(path, R"({"theme": "light"})");
    std::vector<std::string> notices;
    CHECK(load_settings(path, notices).theme == ui::Theme::light);
    CHECK(notices.empty());
  }
}

TEST_CASE("font_scale outside 1..3 is clamped and window sizes outside their range are not used") {
  TempDir dir("settings");
  const std::string path = dir.file("settings.json");
  struct Case {
    const char* json;
    float font_scale;
    int width, height;
    std::size_t notices;
  };
  const Case cases[] = {
      {R"({"font_scale": 5})", 3.0f, 1280, 800, 1},
      {R"({"font_scale": 0.25})", 1.0f, 1280, 800, 1},
      {R"({"font_scale": -2})", 1.0f, 1280, 800, 1},
      {R"({"font_scale": 1e999})", 1.0f, 1280, 800, 1},  // parses as infinity
      {R"({"font_scale": 2.5, "window_width": 2560, "window_height": 1440})", 2.5f, 2560, 1440, 0},
      {R"({"font_scale": 1, "window_width": 960, "window_height": 600})", 1.0f, 960, 600, 0},
      // Below the smallest window the panels fit in.
      {R"({"window_width": 320, "window_height": 240})", 1.0f, 1280, 800, 2},
      {R"({"window_width": 0, "window_height": -600})", 1.0f, 1280, 800, 2},
      {R"({"window_width": 100000, "window_height": 18446744073709551615})", 1.0f, 1280, 800, 2},
      {R"({"window_width": 959, "window_height": 16385})", 1.0f, 1280, 800, 2},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    write(path, c.json);
    std::vector<std::string> notices;
    const Settings s = load_settings(path, notices);
    CHECK(s.font_scale == c.font_scale);
    CHECK(s.window_width == c.width);
    CHECK(s.window_height == c.height);
    CHECK(notices.size() == c.notices);
  }
  // Saving clamps too, so the file never holds what the next start would refuse.
  Settings big;
  big.font_scale = 7.0f;
  REQUIRE(save_settings(path, big) == "");
  std::vector<std::string> notices;
  CHECK(load_settings(path, notices).font_scale == 3.0f);
  CHECK(notices.empty());
}

TEST_CASE("recent files: at most ten, no duplicates, entries that are not names skipped") {
  TempDir dir("settings");
  const std::string path = dir.file("settings.json");
  SUBCASE("loading") {
    std::string list = R"("/a.json", 5, "/b.json", "/a.json", null, "", {"x": 1})";
    for (int i = 0; i < 5000; ++i) list += ", \"/f" + std::to_string(i) + ".json\"";
    write(path, "{\"recent_files\": [" + list + "]}");
    std::vector<std::string> notices;
    const Settings s = load_settings(path, notices);
    REQUIRE(s.recent_files.size() == kMaxRecent);
    CHECK(s.recent_files[0] == "/a.json");
    CHECK(s.recent_files[1] == "/b.json");
    CHECK(s.recent_files[2] == "/f0.json");
    CHECK(s.recent_files[9] == "/f7.json");
    REQUIRE(notices.size() == 1);
    CHECK(contains(notices[0], "skipped 4 entries of \"recent_files\""));
  }
  SUBCASE("add_recent") {
    Settings s;
    for (int i = 0; i < 12; ++i) add_recent(s, "/tmp/f" + std::to_string(i) + ".json");
    REQUIRE(s.recent_files.size() == kMaxRecent);
    CHECK(s.recent_files.front() == "/tmp/f11.json");
    CHECK(s.recent_files.back() == "/tmp/f2.json");
    add_recent(s, "/tmp/./f5.json");  // the same file written differently moves to the front
    REQUIRE(s.recent_files.size() == kMaxRecent);
    CHECK(s.recent_files.front() == "/tmp/f5.json");
    CHECK(std::count(s.recent_files.begin(), s.recent_files.end(), "/tmp/f5.json") == 1);
    CHECK(s.recent_files[1] == "/tmp/f11.json");
    add_recent(s, "relative.json");  // made absolute against the working folder
    CHECK(s.recent_files.front() == (fs::current_path() / "relative.json").string());
    add_recent(s, "");
    CHECK(s.recent_files.front() == (fs::current_path() / "relative.json").string());
    // What is saved loads back the same.
    REQUIRE(save_settings(path, s) == "");
    std::vector<std::string> notices;
    CHECK(load_settings(path, notices).recent_files == s.recent_files);
    CHECK(notices.empty());
  }
}

TEST_CASE("the config folder follows XDG_CONFIG_HOME, else HOME/.config") {
  SUBCASE("XDG_CONFIG_HOME absolute") {
    EnvVar xdg("XDG_CONFIG_HOME", "/srv/conf");
    EnvVar home("HOME", "/home/ana");
    CHECK(config_dir() == "/srv/conf/flashstep");
  }
  SUBCASE("XDG_CONFIG_HOME empty") {
    EnvVar xdg("XDG_CONFIG_HOME", "");
    EnvVar home("HOME", "/home/ana");
    CHECK(config_dir() == "/home/ana/.config/flashstep");
  }
  SUBCASE("XDG_CONFIG_HOME relative is ignored") {
    EnvVar xdg("XDG_CONFIG_HOME", "conf");
    EnvVar home("HOME", "/home/ana");
    CHECK(config_dir() == "/home/ana/.config/flashstep");
  }
  SUBCASE("XDG_CONFIG_HOME unset") {
    EnvVar xdg("XDG_CONFIG_HOME", std::nullopt);
    EnvVar home("HOME", "/home/ana");
    CHECK(config_dir() == "/home/ana/.config/flashstep");
  }
  SUBCASE("neither usable") {
    EnvVar xdg("XDG_CONFIG_HOME", std::nullopt);
    EnvVar home("HOME", "");
    CHECK(config_dir() == "");
  }
  SUBCASE("HOME relative") {
    EnvVar xdg("XDG_CONFIG_HOME", "");
    EnvVar home("HOME", "ana");
    CHECK(config_dir() == "");
  }
  CHECK(settings_path("/c/flashstep") == "/c/flashstep/settings.json");
  CHECK(last_scenario_path("/c/flashstep") == "/c/flashstep/last-scenario.json");
}

TEST_CASE("the environment is put back after the XDG cases") {
  const char* before = std::getenv("XDG_CONFIG_HOME");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  {
    EnvVar xdg("XDG_CONFIG_HOME", "/elsewhere");
    CHECK(std::string(std::getenv("XDG_CONFIG_HOME")) == "/elsewhere");
  }
  const char* after = std::getenv("XDG_CONFIG_HOME");
  CHECK((after ? std::optional<std::string>(after) : std::nullopt) == saved);
}

TEST_CASE("settings that cannot be written give a message and leave no file") {
  TempDir dir("settings");
  SUBCASE("a file where the folder should be") {
    write(dir.file("plain"), "x");
    const std::string err = save_settings((dir.path / "plain" / "flashstep" / "settings.json").string(), Settings{});
    CHECK(contains(err, "cannot create the folder"));
    CHECK(contains(err, dir.file("plain")));
  }
  SUBCASE("a folder where the file should be") {
    fs::create_directories(dir.path / "settings.json" / "inside");
    const std::string err = save_settings(dir.file("settings.json"), Settings{});
    CHECK(contains(err, "cannot write"));
    CHECK(fs::is_directory(dir.path / "settings.json" / "inside"));
  }
  CHECK(dir.entries().size() <= 2);
  for (const std::string& n : dir.entries()) CHECK(!contains(n, ".tmp"));
}

TEST_CASE("the saved play speed is used by the lesson's and Compare's timelines, as the nearest speed they have") {
  ui::AppState app;
  for (const auto& speeds : {std::pair{16.0, 16.0}, {3.0, 4.0}, {0.001, 0.25}, {1e9, 1024.0}, {2.0, 2.0}}) {
    const double saved = speeds.first, used = speeds.second;
    CAPTURE(saved);
    app.set_play_speed(saved);
    CHECK(app.timeline.speed() == used);
    CHECK(app.compare.timeline.speed() == used);
  }
}
