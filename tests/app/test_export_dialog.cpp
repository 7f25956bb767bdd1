// The export dialog driven by keys: in a headless ImGui context (a JSON export needs no
// rendering) and in a window's own frame loop, where a GIF is written between frames with the
// window's OpenGL context and the window's ImGui context, framebuffer and playhead come back
// untouched. The window case needs a display (./build.sh test provides Xvfb).
#include "tests/app/drive.h"
#include "tests/display.h"
#include "tests/temp_dir.h"
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/ui/dialogs/export_dialog.h"
#include "app/ui/panels/frame.h"
#include "app/ui/style.h"

#include <backends/imgui_impl_opengl3.h>
#include <doctest/doctest.h>
#include <gif_lib.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace flashstep;
using namespace flashstep::ui;
namespace fs = std::filesystem;

namespace {

struct GifInfo {
  int frames = -1, w = 0, h = 0;
};

GifInfo gif_info(const std::string& path) {
  GifInfo out;
  int err = 0;
  GifFileType* g = DGifOpenFileName(path.c_str(), &err);
  if (!g) return out;
  if (DGifSlurp(g) == GIF_OK) out = {g->ImageCount, g->SWidth, g->SHeight};
  DGifCloseFile(g, &err);
  return out;
}

// An ImGui context with a built font atlas and Enter / Escape mapped as GLFW maps them; frames
// are built and never rasterised.
struct HeadlessDialog {
  ImGuiContext* ctx;
  HeadlessDialog() {
    ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    load_fonts(1.0f);
    apply_style(1.0f);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
    io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
  }
  ~HeadlessDialog() { ImGui::DestroyContext(ctx); }
  // One frame of the window (panels, then the dialog) with `key` down and `typed` typed, then
  // the work between frames.
  void frame(AppState& app, ExportDialog& d, int key = -1, const char* typed = nullptr) {
    ImGuiIO& io = ImGui::GetIO();
    if (key >= 0) io.KeysDown[key] = true;
    if (typed) io.AddInputCharactersUTF8(typed);
    ImGui::NewFrame();
    draw_frame(app);
    draw_export_dialog(app, d);
    ImGui::Render();
    if (key >= 0) io.KeysDown[key] = false;
    export_dialog_tick(app, d, nullptr);
  }
  void settle(AppState& app, ExportDialog& d, int n = 3) {
    for (int i = 0; i < n; ++i) frame(app, d);
  }
};

}  // namespace

TEST_CASE("export dialog: Enter writes the proposed file, a second time asks before replacing it") {
  HeadlessDialog gui;
  AppState app;
  open_at(app, "online", 2);
  TempDir dir("export-dialog");
  ExportDialog d;
  d.kind = ExportRequest::json;  // needs no rendering
  d.last_folder = dir.path.string();
  app.requests.export_dialog = true;
  gui.settle(app, d);
  CHECK(d.open);
  CHECK_FALSE(app.requests.export_dialog);
  const std::string proposed = dir.file("online-recording.json");
  CHECK(d.path == proposed);
  gui.frame(app, d, GLFW_KEY_ENTER);  // the focused file field takes Enter
  CHECK(fs::exists(proposed));
  CHECK(app.status.find("Exported the recording " + proposed + " (") == 0);
  CHECK(app.status_severity == Severity::info);
  gui.settle(app, d);
  CHECK_FALSE(d.open);

  // Again: the file is there, so Enter asks; Escape takes the question back, the dialog stays.
  const auto first_write = fs::last_write_time(proposed);
  app.requests.export_dialog = true;
  gui.settle(app, d);
  gui.frame(app, d, GLFW_KEY_ENTER);
  CHECK(d.replace == proposed);
  gui.settle(app, d);
  gui.frame(app, d, GLFW_KEY_ESCAPE);
  CHECK(d.replace.empty());
  CHECK(d.open);
  gui.settle(app, d);
  gui.frame(app, d, GLFW_KEY_ENTER);  // asks again...
  CHECK(d.replace == proposed);
  gui.settle(app, d);
  CHECK(fs::last_write_time(proposed) == first_write);
  gui.frame(app, d, GLFW_KEY_ENTER);  // ...and yes replaces
  gui.settle(app, d);
  CHECK_FALSE(d.open);
  CHECK(dir.entries() == std::vector<std::string>{"online-recording.json"});
}

TEST_CASE("export dialog: a typed name goes in the last folder, a missing folder stays red in the dialog and in the log") {
  HeadlessDialog gui;
  AppState app;
  open_at(app, "safe", 1);
  TempDir dir("export-dialog");
  ExportDialog d;
  d.kind = ExportRequest::json;
  d.last_folder = dir.path.string();
  app.requests.export_dialog = true;
  gui.settle(app, d);
  gui.frame(app, d, -1, "talk");  // replaces the selected proposal
  CHECK(d.path == "talk");
  gui.frame(app, d, GLFW_KEY_ENTER);
  CHECK(fs::exists(dir.file("talk.json")));
  gui.settle(app, d);
  CHECK_FALSE(d.open);

  app.requests.export_dialog = true;
  gui.settle(app, d);
  gui.frame(app, d, -1, "/proc/nonexistent/x.json");
  gui.frame(app, d, GLFW_KEY_ENTER);
  CHECK(d.error == "There is no folder /proc/nonexistent.");
  CHECK(app.status == "Export failed: there is no folder /proc/nonexistent.");
  CHECK(app.status_severity == Severity::error);
  CHECK(app.log.back().text == app.status);
  gui.settle(app, d);
  CHECK(d.open);  // the choices are still there to correct
  gui.frame(app, d, GLFW_KEY_ESCAPE);
  gui.settle(app, d);
  CHECK_FALSE(d.open);
  CHECK(dir.entries() == std::vector<std::string>{"talk.json"});
  CHECK(app.timeline.playhead() == 1);
}

TEST_CASE("export dialog: in a window's frame loop a GIF is written between frames with the window's context") {
  if (!have_display()) return;
  REQUIRE(glfwInit());
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(800, 500, "FlashStep export test", nullptr, nullptr);
  glfwDefaultWindowHints();
  REQUIRE(window);
  glfwMakeContextCurrent(window);
  ImGuiContext* gui = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
  io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
  load_fonts(1.0f);
  apply_style(1.0f);
  REQUIRE(ImGui_ImplOpenGL3_Init("#version 330"));
  {
    AppState app;
    open_at(app, "online", 6);
    TempDir dir("export-dialog");
    ExportDialog d;
    d.kind = ExportRequest::gif;
    d.last_folder = dir.path.string();
    int frames = 0;
    // The window's loop: build the frame, draw it, present, then the export's turn.
    auto frame = [&](int key = -1) {
      io.DisplaySize = ImVec2(800, 500);
      io.DeltaTime = 1.0f / 60.0f;
      if (key >= 0) io.KeysDown[key] = true;
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();
      draw_frame(app);
      draw_export_dialog(app, d);
      ImGui::Render();
      if (key >= 0) io.KeysDown[key] = false;
      glViewport(0, 0, 800, 500);
      glClearColor(0, 0, 0, 1);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      glfwSwapBuffers(window);
      export_dialog_tick(app, d, window);
      ++frames;
      // The export switched to its own ImGui context and framebuffer and put the window's back.
      CHECK(ImGui::GetCurrentContext() == gui);
      CHECK(glfwGetCurrentContext() == window);
      GLint fb = -1;
      glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fb);
      CHECK(fb == 0);
      CHECK(glGetError() == GL_NO_ERROR);
    };
    app.requests.export_dialog = true;
    frame();
    frame();
    CHECK(d.path == dir.file("online-steps1-" + std::to_string(app.timeline.count()) + ".gif"));
    d.from = 2;  // steps 2 to 4 as the timeline numbers them
    d.to = 4;
    frame();
    CHECK(d.path == dir.file("online-steps2-4.gif"));
    frame(GLFW_KEY_ENTER);
    CHECK(export_dialog_busy(d));
    bool saw_progress = false;
    while ((export_dialog_busy(d) || d.open) && frames < 40) {
      saw_progress |= d.job.busy() && d.job.frames_done() > 0;
      frame();
    }
    CHECK(saw_progress);
    CHECK_FALSE(d.open);
    CHECK(app.status.find("Exported the animation " + dir.file("online-steps2-4.gif") + " (3 frames, 800×500, ") == 0);
    CHECK(app.timeline.playhead() == 6);
    const GifInfo g = gif_info(dir.file("online-steps2-4.gif"));
    CHECK(g.frames == 3);
    CHECK(g.w == 800);
    CHECK(g.h == 500);
    CHECK(dir.entries() == std::vector<std::string>{"online-steps2-4.gif"});
  }  // the dialog's renderer lives on the window's context: gone before the window is
  ImGui_ImplOpenGL3_Shutdown();
  ImGui::DestroyContext(gui);
  glfwDestroyWindow(window);
}
