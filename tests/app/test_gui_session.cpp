// The window between runs, as a user meets it: settings and the last scenario are written at
// quit and read at start-up; a broken settings or last-scenario file never stops the window.
// Runs the real executable in a config folder of its own (needs a display: Xvfb in the suite).
#include "app/files.h"
#include "core/report.h"
#include "tests/display.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using flashstep::Json;

namespace {

struct ConfigHome {
  fs::path root;
  ConfigHome() {
    root = fs::temp_directory_path() / ("flashstep-session-" + std::to_string(getpid()) + "-" +
                                         std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(root);
  }
  ~ConfigHome() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path dir() const { return root / "flashstep"; }
  // Runs the window for a few frames with XDG_CONFIG_HOME here; returns the exit status.
  int run(const std::string& args) const {
    const std::string cmd = "XDG_CONFIG_HOME='" + root.string() + "' " + FLASHSTEP_EXE + " --quit-after 3 " +
                            args + " >/dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  Json read(const char* name) const {
    std::string text, error;
    REQUIRE(flashstep::read_file((dir() / name).string(), text, error));
    const Json j = Json::parse(text, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  }
  // Starts the window with `args` in the background (its pid; stop it with kill_window).
  pid_t start(const std::string& args) const {
    const std::string cmd = "XDG_CONFIG_HOME='" + root.string() + "' exec " + FLASHSTEP_EXE + " " + args +
                            " >/dev/null 2>&1";
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }
  // The playhead the autosave has written, once it is `want` or 10 s have passed (-1: none).
  int wait_for_playhead(int want) const {
    int playhead = -1;
    for (int i = 0; i < 100 && playhead != want; ++i) {
      usleep(100 * 1000);
      std::string text, error;
      if (flashstep::read_file((dir() / "last-scenario.json").string(), text, error)) {
        const Json j = Json::parse(text, nullptr, false);
        if (!j.is_discarded()) playhead = j.value("playhead", -1);
      }
    }
    return playhead;
  }
  void write(const char* name, const std::string& text) const {
    fs::create_directories(dir());
    REQUIRE(flashstep::write_file_atomic((dir() / name).string(), text).empty());
  }
};

}  // namespace

TEST_CASE("quitting writes the settings and the last scenario, and the next start restores them") {
  if (!have_display()) return;
  ConfigHome home;
  REQUIRE(home.run("--lesson attn-tiled") == 0);
  const Json first = home.read("settings.json");
  CHECK(first["version"] == 1);
  CHECK(first["theme"] == "dark");
  CHECK(home.read("last-scenario.json")["lesson"] == "attn-tiled");

  // A lecturer's choices from a previous run: light theme, large fonts, chunked softmax at step 3.
  Json settings = first;
  settings["theme"] = "light";
  settings["font_scale"] = 2.0;
  home.write("settings.json", settings.dump());
  Json last = home.read("last-scenario.json");
  last["lesson"] = "chunked";
  last["playhead"] = 3;
  last["scenario"] = {{"algorithm", "chunked"}, {"input", {{4, 1, 7, 2, 9, 3}}}, {"chunks", 3}};
  home.write("last-scenario.json", last.dump());
  // And the safe-softmax lesson left with a vector of the user's own at step 4.
  Json lesson = last;
  lesson["lesson"] = "safe";
  lesson["playhead"] = 4;
  lesson["scenario"] = {{"algorithm", "safe"}, {"input", {{9, 8, 7}}}};
  home.write("lessons.json", Json{{"lessons", Json::array({lesson})}}.dump());

  REQUIRE(home.run("") == 0);  // no --lesson: the last scenario comes back
  const Json after = home.read("last-scenario.json");
  CHECK(after["lesson"] == "chunked");
  CHECK(after["playhead"] == 3);
  CHECK(after["scenario"]["chunks"] == 3);
  CHECK(after["scenario"]["input"] == Json::array({Json::array({4, 1, 7, 2, 9, 3})}));
  const Json kept = home.read("settings.json");
  CHECK(kept["theme"] == "light");
  CHECK(kept["font_scale"] == 2.0);
  // The safe lesson's own work was restored, kept and written again.
  const Json lessons = home.read("lessons.json");
  INFO(lessons.dump());
  bool safe_kept = false;
  for (const Json& l : lessons["lessons"])
    if (l["lesson"] == "safe")
      safe_kept = l["playhead"] == 4 && l["scenario"]["input"] == Json::array({Json::array({9, 8, 7})});
  CHECK(safe_kept);

  REQUIRE(home.run("--lesson online") == 0);  // --lesson wins over the last scenario
  CHECK(home.read("last-scenario.json")["lesson"] == "online");
}

TEST_CASE("View ▸ Ask me first is kept from one run to the next, and a settings file without it starts with it off") {
  if (!have_display()) return;
  ConfigHome home;
  REQUIRE(home.run("--lesson online") == 0);
  Json settings = home.read("settings.json");
  CHECK(settings["ask_first"] == false);
  // Turned on in a previous run: on again, and written again at quit.
  settings["ask_first"] = true;
  home.write("settings.json", settings.dump());
  REQUIRE(home.run("--lesson online") == 0);
  CHECK(home.read("settings.json")["ask_first"] == true);
  // A file from before the key: off.
  settings.erase("ask_first");
  home.write("settings.json", settings.dump());
  REQUIRE(home.run("--lesson online") == 0);
  CHECK(home.read("settings.json")["ask_first"] == false);
}

TEST_CASE("a corrupt settings file is moved aside and the window starts with the defaults") {
  if (!have_display()) return;
  ConfigHome home;
  home.write("settings.json", "{\"theme\": \"light\", oops");
  REQUIRE(home.run("") == 0);
  int moved = 0;
  for (const auto& e : fs::directory_iterator(home.dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("settings.json.bad-", 0) != 0) continue;
    ++moved;
    std::string text, error;
    REQUIRE(flashstep::read_file(e.path().string(), text, error));
    CHECK(text == "{\"theme\": \"light\", oops");  // the user's bytes, untouched
  }
  CHECK(moved == 1);
  CHECK(home.read("settings.json")["theme"] == "dark");
}

TEST_CASE("a last scenario that cannot be used leaves the first lesson open and is replaced at quit") {
  if (!have_display()) return;
  ConfigHome home;
  home.write("last-scenario.json", R"({"flashstep_scenario": 1, "lesson": "no-such-lesson", "scenario": {}})");
  REQUIRE(home.run("") == 0);
  CHECK(home.read("last-scenario.json")["lesson"] == "naive");
  home.write("last-scenario.json", "not json at all");
  REQUIRE(home.run("") == 0);
  CHECK(home.read("last-scenario.json")["lesson"] == "naive");
}

TEST_CASE("a window killed with SIGKILL a few seconds after a change has already saved it, and the next start restores it") {
  if (!have_display()) return;
  ConfigHome home;
  const pid_t pid = home.start("--lesson attn-tiled-v2");
  // The autosave looks every 2 s: the lesson opened at start-up is on disk well within 15 s.
  const fs::path last = home.dir() / "last-scenario.json";
  bool saved = false;
  for (int i = 0; i < 150 && !saved; ++i) {
    usleep(100 * 1000);
    std::string text, error;
    if (fs::exists(last) && flashstep::read_file(last.string(), text, error)) {
      const Json j = Json::parse(text, nullptr, false);
      saved = !j.is_discarded() && j.value("lesson", "") == "attn-tiled-v2";
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  REQUIRE(saved);
  CHECK(fs::exists(home.dir() / "settings.json"));
  // No --lesson: the killed session's lesson comes back.
  REQUIRE(home.run("") == 0);
  CHECK(home.read("last-scenario.json")["lesson"] == "attn-tiled-v2");
}

TEST_CASE("twenty Right presses sent to the real window as fast as X takes them advance twenty steps") {
  if (!have_display()) return;
  REQUIRE_MESSAGE(std::system("command -v xdotool >/dev/null 2>&1") == 0,
                  "xdotool is needed to drive the window (scripts/setup.sh installs it)");
  ConfigHome home;
  const pid_t pid = home.start("--lesson attn-online");
  // Each press and release is sent with no delay: many fall within one frame, which ImGui 1.86
  // alone would count once. The autosave then carries the playhead to disk.
  const std::string keys = "wid=$(xdotool search --sync --pid " + std::to_string(pid) +
                           " | head -1) && for i in $(seq 20); do xdotool key --window $wid --delay 0 Right; done";
  const int sent = std::system(("timeout 20 sh -c '" + keys + "'").c_str());
  const int playhead = home.wait_for_playhead(20);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(sent == 0);
  CHECK(playhead == 20);
}

TEST_CASE("kill -9 a few seconds after changes made with the keyboard: the next start has the lesson, the inputs and the playhead back") {
  if (!have_display()) return;
  REQUIRE_MESSAGE(std::system("command -v xdotool >/dev/null 2>&1") == 0,
                  "xdotool is needed to drive the window (scripts/setup.sh installs it)");
  ConfigHome home;
  // The user's own vector, opened from a file; then three steps forward with the keyboard.
  const fs::path file = home.root / "mine.json";
  REQUIRE(flashstep::write_file_atomic(file.string(),
                                       R"({"algorithm":"safe","input":[[6,2,9,4,1]]})").empty());
  const pid_t pid = home.start("--scenario '" + file.string() + "'");
  const std::string keys = "wid=$(xdotool search --sync --pid " + std::to_string(pid) +
                           " | head -1) && sleep 0.5 && xdotool key --window $wid --delay 50 Right Right Right";
  const int sent = std::system(("timeout 20 sh -c '" + keys + "'").c_str());
  const int playhead = home.wait_for_playhead(3);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(sent == 0);
  REQUIRE(playhead == 3);
  // The next start restores them; its own quit writes them again, as they were.
  REQUIRE(home.run("") == 0);
  const Json after = home.read("last-scenario.json");
  CHECK(after["lesson"] == "safe");
  CHECK(after["playhead"] == 3);
  CHECK(after["scenario"]["input"] == Json::array({Json::array({6, 2, 9, 4, 1})}));
}

TEST_CASE("a window smaller than its panels fit in is refused on the command line with the smallest size") {
  const std::string cmd = std::string(FLASHSTEP_EXE) + " --width 200 --height 150 --quit-after 1 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    const int st = pclose(p);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) != 0);
  }
  INFO(out);
  CHECK(out.find("960") != std::string::npos);
}
