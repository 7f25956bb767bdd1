// A real ImGui context without a window or GL (Dear ImGui's "null" backend idea): the font atlas
// is built but never uploaded, and the GLFW key map is the window's. Frames draw the whole app
// (draw_frame), so tests drive it with keys and characters as a user would.
#pragma once

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/ui/model/app_state.h"
#include "app/ui/panels/frame.h"
#include "app/ui/style.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <imgui.h>
#include <imgui_internal.h>

namespace flashstep::ui {

// An ImGui context with a built font atlas and the GLFW key map, as the window has.
struct Headless {
  ImGuiContext* ctx;
  Headless() {
    ctx = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    // As the window's OpenGL 3 backend: draw lists may pass 65536 vertices (big screens).
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    load_fonts(1.0f);
    apply_style(1.0f);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.KeyMap[ImGuiKey_LeftArrow] = GLFW_KEY_LEFT;
    io.KeyMap[ImGuiKey_RightArrow] = GLFW_KEY_RIGHT;
    io.KeyMap[ImGuiKey_UpArrow] = GLFW_KEY_UP;
    io.KeyMap[ImGuiKey_DownArrow] = GLFW_KEY_DOWN;
    io.KeyMap[ImGuiKey_Home] = GLFW_KEY_HOME;
    io.KeyMap[ImGuiKey_End] = GLFW_KEY_END;
    io.KeyMap[ImGuiKey_Space] = GLFW_KEY_SPACE;
    io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
    io.KeyMap[ImGuiKey_PageUp] = GLFW_KEY_PAGE_UP;
    io.KeyMap[ImGuiKey_PageDown] = GLFW_KEY_PAGE_DOWN;
    io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
    io.KeyMap[ImGuiKey_Tab] = GLFW_KEY_TAB;
    io.KeyMap[ImGuiKey_Backspace] = GLFW_KEY_BACKSPACE;
    io.KeyMap[ImGuiKey_Delete] = GLFW_KEY_DELETE;
    io.KeyMap[ImGuiKey_A] = GLFW_KEY_A;
  }
  ~Headless() { ImGui::DestroyContext(ctx); }

  void frame(AppState& app, const FrameOptions& opt = {}) {
    app.tick(1.0 / 60.0);
    prepare_input(app);
    ImGui::NewFrame();
    draw_frame(app, opt);
    ImGui::Render();
  }
  // At about `count` evenly spaced steps of the app's timeline (every step where it has fewer),
  // from the first: seeks it, draws `frames` frames, then calls `at()`.
  template <class At>
  void at_steps(AppState& app, int count, int frames, At at) {
    const int n = app.timeline.count();
    for (int k = 0; k < n; k += std::max(1, n / count)) {
      CAPTURE(k);
      app.seek(k);
      for (int f = 0; f < frames; ++f) frame(app);
      at();
    }
  }
  // One frame with `key` down (and shift / ctrl as given), then one with it up.
  void press(AppState& app, int key, bool shift = false, bool ctrl = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyShift = shift;
    io.KeyCtrl = ctrl;
    io.KeysDown[key] = true;
    frame(app);
    io.KeysDown[key] = false;
    io.KeyShift = false;
    io.KeyCtrl = false;
    frame(app);
  }
  // Whether a window of that name was drawn in the last frame.
  static bool drawn(const char* name) {
    const ImGuiWindow* w = ImGui::FindWindowByName(name);
    return w && w->Active;
  }
  // A left click at `p`: one frame with the button down, one with it up.
  void click(AppState& app, ImVec2 p) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = p;
    io.MouseDown[0] = true;
    frame(app);
    io.MouseDown[0] = false;
    frame(app);
  }
  void type_text(AppState& app, const char* text) {
    for (const char* c = text; *c; ++c) type(app, static_cast<ImWchar>(*c));
  }
  void type(AppState& app, ImWchar c) {
    ImGui::GetIO().AddInputCharacter(c);
    frame(app);
  }
};

// The window's fonts and style at `scale` (the screen's, times the font size, times 1.5 when
// presenting), in `theme`, as the window makes them, the atlas built as the window builds it.
inline void use_scale(AppState& app, float scale, Theme theme) {
  load_fonts(scale);
  apply_style(scale, theme);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  app.ui_scale = scale;
  app.set_theme(theme);
}

// Back to the window's fonts and style at font 1× in the dark theme and a 1280 × 800 display,
// as the next test expects to find them.
inline void restore_window() {
  AppState reset;
  use_scale(reset, 1.0f, Theme::dark);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 800);
}

// `app` on `lesson`, its recordings made in the foreground (nothing to wait for), showing `tab`,
// presenting or not, at font `font`: presenting, 1.5 times that in the projector theme, as the
// window has it; else in the dark theme.
inline void open_at(AppState& app, const char* lesson, Tab tab, bool presenting, float font = 1.0f) {
  app.background_allowed = false;
  REQUIRE(app.open_lesson(lesson));
  app.tab = tab;
  app.tab_changed = true;
  app.presenting = presenting;
  app.set_font_scale(font);
  use_scale(app, (presenting ? 1.5f : 1.0f) * font, presenting ? Theme::projector : Theme::dark);
}

}  // namespace flashstep::ui
