// The file dialog: what a folder lists and in which order, what a typed name stands for, and
// the dialog itself driven by keys in a headless ImGui context (no window, no GL: the frames
// are built and never rasterised).
#include "app/files.h"
#include "app/ui/dialogs/file_dialog.h"

#include <doctest/doctest.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <unistd.h>

using namespace flashstep;
using namespace flashstep::ui;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("flashstep-dialog-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
  void file(const std::string& name, const std::string& text = "{}") const {
    REQUIRE(write_file_atomic((path / name).string(), text).empty());
  }
  void folder(const std::string& name) const { fs::create_directories(path / name); }
};

std::vector<std::string> names(const std::vector<DirEntry>& entries) {
  std::vector<std::string> out;
  for (const DirEntry& e : entries) out.push_back(e.is_dir ? e.name + "/" : e.name);
  return out;
}

// A headless ImGui context: the font atlas is built (NewFrame needs it) but never uploaded.
struct HeadlessImGui {
  ImGuiContext* ctx;
  static constexpr int kEnter = 257, kEscape = 256;  // any free KeysDown[] slots
  HeadlessImGui() {
    ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    io.KeyMap[ImGuiKey_Enter] = kEnter;
    io.KeyMap[ImGuiKey_Escape] = kEscape;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  ~HeadlessImGui() { ImGui::DestroyContext(ctx); }
  // One frame; `key` held down during it (released before the next). Returns what draw() did.
  bool frame(FileDialog& d, int key = -1, const char* typed = nullptr) {
    ImGuiIO& io = ImGui::GetIO();
    if (key >= 0) io.KeysDown[key] = true;
    if (typed) io.AddInputCharactersUTF8(typed);
    ImGui::NewFrame();
    const bool confirmed = d.draw();
    ImGui::Render();
    if (key >= 0) io.KeysDown[key] = false;
    return confirmed;
  }
  // A few frames with no input, so the popup appears and the name field takes the focus.
  void settle(FileDialog& d, int n = 3) {
    for (int i = 0; i < n; ++i) REQUIRE_FALSE(frame(d));
  }
};

}  // namespace

TEST_CASE("a folder lists '..', then folders, then files of the extension, each sorted ignoring case") {
  TempDir dir;
  for (const char* f : {"beta", "Alpha", "gamma", ".git", "zeta.json"}) dir.folder(f);
  for (const char* f : {"b.json", "A.json", "c.JSON", "notes.txt", ".hidden.json", "json", "Bb.json"}) dir.file(f);
  std::string error = "stale";
  const std::vector<DirEntry> got = list_folder(dir.str(), ".json", error);
  CHECK(error.empty());
  // A folder named like a scenario file is still a folder; "json" has no extension.
  CHECK(names(got) == std::vector<std::string>{"../", "Alpha/", "beta/", "gamma/", "zeta.json/", "A.json", "b.json",
                                                "Bb.json", "c.JSON"});
  SUBCASE("no extension lists every file that is not hidden") {
    CHECK(names(list_folder(dir.str() + "/", "", error)) ==
          std::vector<std::string>{"../", "Alpha/", "beta/", "gamma/", "zeta.json/", "A.json", "b.json", "Bb.json",
                                   "c.JSON", "json", "notes.txt"});
    CHECK(error.empty());
  }
  SUBCASE("another extension") {
    CHECK(names(list_folder(dir.str(), ".txt", error)) ==
          std::vector<std::string>{"../", "Alpha/", "beta/", "gamma/", "zeta.json/", "notes.txt"});
  }
}

TEST_CASE("links: to a folder is a folder, to a file is a file, a broken one is left out") {
  TempDir dir;
  dir.folder("real");
  dir.file("real.json");
  fs::create_directory_symlink(dir.path / "real", dir.path / "linked");
  fs::create_symlink(dir.path / "real.json", dir.path / "linked.json");
  fs::create_symlink(dir.path / "gone.json", dir.path / "broken.json");
  std::string error;
  CHECK(names(list_folder(dir.str(), ".json", error)) ==
        std::vector<std::string>{"../", "linked/", "real/", "linked.json", "real.json"});
  CHECK(error.empty());
}

TEST_CASE("the root has no '..' and an empty folder has only '..'") {
  std::string error;
  const std::vector<DirEntry> root = list_folder("/", ".json", error);
  CHECK(error.empty());
  REQUIRE(!root.empty());
  CHECK(root.front().name != "..");
  TempDir dir;
  CHECK(names(list_folder(dir.str(), ".json", error)) == std::vector<std::string>{"../"});
}

TEST_CASE("a folder that is not there, or is a file, gives an error naming it") {
  TempDir dir;
  dir.file("plain.json");
  std::string error;
  CHECK(list_folder(dir.str() + "/missing", ".json", error).empty());
  CHECK(error.find(dir.str() + "/missing") != std::string::npos);
  CHECK(error.find("no such folder") != std::string::npos);
  CHECK(list_folder(dir.str() + "/plain.json", ".json", error).empty());
  CHECK(error.find("not a folder") != std::string::npos);
  // And a good folder clears the error.
  list_folder(dir.str(), ".json", error);
  CHECK(error.empty());
}

TEST_CASE("normal_folder: absolute, normal, no trailing slash") {
  CHECK(normal_folder("/a/b/") == "/a/b");
  CHECK(normal_folder("/a/./b/../c") == "/a/c");
  CHECK(normal_folder("/") == "/");
  CHECK(normal_folder("//") == "/");
  CHECK(normal_folder("") == fs::current_path().string());
  CHECK(normal_folder("x/..") == fs::current_path().string());
}

TEST_CASE("a typed name: joined to the folder, absolute paths kept, the extension added when missing") {
  const std::string ext = ".json";
  CHECK(resolve_choice("/a/b", "lecture", ext) == "/a/b/lecture.json");
  CHECK(resolve_choice("/a/b/", "lecture.json", ext) == "/a/b/lecture.json");
  CHECK(resolve_choice("/a/b", "lecture.JSON", ext) == "/a/b/lecture.JSON");
  CHECK(resolve_choice("/a/b", "lecture.", ext) == "/a/b/lecture.json");
  CHECK(resolve_choice("/a/b", "v1.2", ext) == "/a/b/v1.2");  // has an extension of its own
  CHECK(resolve_choice("/a/b", "  spaced name  ", ext) == "/a/b/spaced name.json");
  CHECK(resolve_choice("/a/b", "/x/y", ext) == "/x/y.json");
  CHECK(resolve_choice("/a/b", "../up", ext) == "/a/up.json");
  CHECK(resolve_choice("/a/b", "sub/deeper/file", ext) == "/a/b/sub/deeper/file.json");
  CHECK(resolve_choice("/a/b", ".hidden", ext) == "/a/b/.hidden.json");
  CHECK(resolve_choice("/a/b", "sub/", ext) == "/a/b/sub");  // a folder: nothing added
  CHECK(resolve_choice("/a/b", "..", ext) == "/a");
  CHECK(resolve_choice("/a/b", "sub/.", ext) == "/a/b/sub");
  CHECK(resolve_choice("/a/b", "/", ext) == "/");
  CHECK(resolve_choice("/a/b", "", ext) == "");
  CHECK(resolve_choice("/a/b", "   ", ext) == "");
  CHECK(resolve_choice("/a/b", "lecture", "") == "/a/b/lecture");
  CHECK(resolve_choice("/a/b", "lecture.", "json") == "/a/b/lecture.json");
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') CHECK(resolve_choice("/a/b", "~/talk", ext) == normal_folder(home) + "/talk.json");
}

TEST_CASE("the dialog: a typed name is saved with the extension added, in the folder shown") {
  TempDir dir;
  HeadlessImGui gui;
  FileDialog d;
  d.open(FileDialog::Mode::save, "Save scenario", dir.str(), "", ".json", {});
  CHECK(d.is_open());
  CHECK(d.folder() == dir.str());
  gui.settle(d);
  CHECK(ImGui::GetIO().WantTextInput);  // the name field has the keyboard
  CHECK_FALSE(gui.frame(d, -1, "lecture"));
  CHECK(gui.frame(d, HeadlessImGui::kEnter));
  CHECK(d.path() == dir.str() + "/lecture.json");
  CHECK_FALSE(d.is_open());
  CHECK_FALSE(gui.frame(d));  // closed: draws nothing, confirms nothing
}

TEST_CASE("the dialog: saving over a file asks first, a second Enter replaces and Escape takes the question back") {
  TempDir dir;
  dir.file("talk.json");
  HeadlessImGui gui;
  FileDialog d;
  d.open(FileDialog::Mode::save, "Save scenario", dir.str(), "talk.json", ".json", {});
  gui.settle(d);
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEnter));  // asks "Replace talk.json?"
  CHECK(d.is_open());
  gui.settle(d, 2);
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEscape));  // no: the question goes, the dialog stays
  CHECK(d.is_open());
  gui.settle(d, 2);
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEnter));  // asks again
  gui.settle(d, 2);
  CHECK(gui.frame(d, HeadlessImGui::kEnter));  // yes
  CHECK(d.path() == dir.str() + "/talk.json");
  CHECK_FALSE(d.is_open());
}

TEST_CASE("the dialog: opening a missing file stays open, a typed folder is entered and Escape cancels") {
  TempDir dir;
  dir.folder("slides");
  dir.file("slides/week1.json");
  HeadlessImGui gui;
  FileDialog d;
  d.open(FileDialog::Mode::open, "Open scenario", dir.str(), "", ".json", {});
  gui.settle(d);
  CHECK_FALSE(gui.frame(d, -1, "nothing-here"));
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEnter));
  CHECK(d.is_open());
  CHECK(d.path().empty());
  // Typing a folder goes there instead of choosing it.
  gui.settle(d, 2);
  d.open(FileDialog::Mode::open, "Open scenario", dir.str(), "slides", ".json", {});
  gui.settle(d);
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEnter));
  CHECK(d.folder() == dir.str() + "/slides");
  CHECK(d.is_open());
  // A name without its extension finds the file.
  gui.settle(d, 2);
  CHECK_FALSE(gui.frame(d, -1, "week1"));
  CHECK(gui.frame(d, HeadlessImGui::kEnter));
  CHECK(d.path() == dir.str() + "/slides/week1.json");
  // Escape cancels with no path.
  d.open(FileDialog::Mode::open, "Open scenario", dir.str(), "", ".json", {});
  gui.settle(d);
  CHECK_FALSE(gui.frame(d, HeadlessImGui::kEscape));
  CHECK_FALSE(d.is_open());
  CHECK(d.path().empty());
}

TEST_CASE("the dialog: a folder that cannot be listed falls back to the working folder") {
  TempDir dir;
  FileDialog d;
  d.open(FileDialog::Mode::open, "Open scenario", dir.str() + "/gone", "", ".json", {dir.str() + "/old.json"});
  CHECK(d.folder() == fs::current_path().string());
  HeadlessImGui gui;
  gui.settle(d);
  CHECK(d.is_open());
}
