// The platform window: GLFW, the window's OpenGL context and Dear ImGui's GLFW + OpenGL3
// backends, owned by one object so they are torn down in the reverse order they were set up.
// The frame loop (app/gui.cpp) uses it as ImGui's examples use main():
//
//   window->begin_frame(app);       // the backends' NewFrame, the app's input rules, ImGui::NewFrame
//   ... panels ...; ImGui::Render();
//   window->render(theme);          // clear with the theme's colour, rasterise the draw data
//   window->present();              // swap
//
// The window owns its GLFW context and makes it current. The GPU engine is created on "the
// current context" (gpu/gpu_engine.h), so it never asks where the context came from; a run with
// no window gets one from gpu/context.h (HiddenContext), which is where a headless context
// (EGL device, then EGL surfaceless, then a hidden GLFW window) belongs, not here.
#pragma once

#include "app/ui/style.h"

namespace flashstep::ui {
class AppState;
struct KeyPress;
}

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace flashstep {

struct WindowOptions {
  int width = 1280, height = 800;  // at least kMinWindowWidth × kMinWindowHeight (settings.h)
  bool maximized = false;
  bool vsync = true;  // off for --bench-frames: frames as fast as they can be drawn
};

// Where the window was at quit, for the settings (app/session.h).
struct WindowPlacement {
  bool maximized = false;
  bool has_size = false;  // false while maximized: the size saved before stays
  int width = 0, height = 0;
};

class Window {
 public:
  // An OpenGL 4.3 core context for the compute shaders, else 3.3 core (enough for the window
  // alone), current on this thread, with ImGui set up on it. nullptr when there is no display or
  // no OpenGL 3.3; the reason is already printed to stderr.
  static std::unique_ptr<Window> open(const WindowOptions& o);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  // High-DPI screens report a content scale above 1 (1..4): fonts and sizes follow it.
  float content_scale() const { return content_scale_; }
  const char* renderer() const;  // the driver's GL_RENDERER string

  bool should_close() const;
  // Busy (playing, recording, exporting): take the events and go on. Idle: sleep until an event
  // (at most 0.1 s) instead of spinning.
  void wait_events(bool busy);
  static double time();  // seconds since GLFW started
  // Files dropped on the window since the last call, in the order they came.
  std::vector<std::string> take_dropped();
  // Every key press since the last call, none lost (see AppState::key_presses).
  std::vector<ui::KeyPress> take_keys();

  // Full screen on the primary monitor while presenting; back to the old place and size after.
  void set_full_screen(bool on);
  // Rebuilds the fonts (rasterised at the final size, never scaled as bitmaps) and the style
  // when `scale` or `theme` changed since the last call. Returns true when it rebuilt them.
  bool use_style(float scale, ui::Theme theme);

  // The backends' NewFrame, then ui::prepare_input(app) (no pointer in presentation mode), then
  // ImGui::NewFrame.
  void begin_frame(ui::AppState& app);
  void render(ui::Theme theme);  // after ImGui::Render()
  void present();

  WindowPlacement placement() const;

 private:
  struct FullScreen {
    bool on = false;
    int x = 0, y = 0, w = 0, h = 0;  // the window before, to go back to
    void set(GLFWwindow* window, bool want);
  };

  explicit Window(GLFWwindow* window) : window_(window) {}
  static void on_drop(GLFWwindow* window, int count, const char** paths);
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);

  GLFWwindow* window_;
  float content_scale_ = 1.0f;
  std::vector<std::string> dropped_;  // filled by on_drop while events are taken
  std::vector<ui::KeyPress> keys_;    // filled by on_key while events are taken
  FullScreen full_screen_;
  float style_scale_ = 0;  // 0: fonts not built yet
  ui::Theme style_theme_ = ui::Theme::dark;
};

}  // namespace flashstep
