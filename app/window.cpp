#include "app/window.h"

#include "app/settings.h"

#include "app/ui/panels/frame.h"
#include "gpu/context.h"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace flashstep {

namespace {

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "flashstep: GLFW error %d: %s\n", code, text);
}

}  // namespace

std::unique_ptr<Window> Window::open(const WindowOptions& o) {
  glfwSetErrorCallback(glfw_error);
  // Counted (gpu/context.h): an off-screen context made beside the window must not end GLFW.
  if (!gpu::acquire_glfw()) {
    std::fprintf(stderr, "flashstep: cannot open a window (no display?); `flashstep run` works without one\n");
    return nullptr;
  }
  // OpenGL 4.3 core for the compute shaders; 3.3 core is enough for the window alone.
  GLFWwindow* window = nullptr;
  const int versions[][2] = {{4, 3}, {3, 3}};
  for (const auto& v : versions) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_MAXIMIZED, o.maximized ? GLFW_TRUE : GLFW_FALSE);
    window = glfwCreateWindow(std::max(o.width, kMinWindowWidth), std::max(o.height, kMinWindowHeight), "FlashStep",
                              nullptr, nullptr);
    if (window) break;
  }
  if (!window) {
    std::fprintf(stderr, "flashstep: cannot create an OpenGL 3.3 window\n");
    gpu::release_glfw();
    return nullptr;
  }
  glfwSetWindowSizeLimits(window, kMinWindowWidth, kMinWindowHeight, GLFW_DONT_CARE, GLFW_DONT_CARE);
  std::unique_ptr<Window> w(new Window(window));
  glfwMakeContextCurrent(window);
  glfwSwapInterval(o.vsync ? 1 : 0);

  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window, &sx, &sy);
  w->content_scale_ = std::clamp(std::max(sx, sy), 1.0f, 4.0f);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is ours (scenario files), not imgui.ini's
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  glfwSetWindowUserPointer(window, w.get());
  glfwSetDropCallback(window, on_drop);
  // After ImGui's backend installed its own: ours records the press, then hands it on.
  glfwSetKeyCallback(window, on_key);
  return w;
}

Window::~Window() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  gpu::release_glfw();
}

// Called from inside glfwPollEvents / glfwWaitEvents*: the paths wait in dropped_ until the frame
// loop takes them, so opening a file never happens in the middle of GLFW's event handling.
void Window::on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* self = static_cast<Window*>(glfwGetWindowUserPointer(window));
  if (!self) return;
  for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
}

const char* Window::renderer() const { return reinterpret_cast<const char*>(glGetString(GL_RENDERER)); }

bool Window::should_close() const { return glfwWindowShouldClose(window_); }

void Window::wait_events(bool busy) {
  if (busy) glfwPollEvents();
  else glfwWaitEventsTimeout(0.1);
}

void Window::on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  auto* self = static_cast<Window*>(glfwGetWindowUserPointer(window));
  if (self && key >= 0 && (action == GLFW_PRESS || action == GLFW_REPEAT))
    self->keys_.push_back({key, (mods & GLFW_MOD_SHIFT) != 0, (mods & GLFW_MOD_CONTROL) != 0, action == GLFW_REPEAT});
  ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
}

std::vector<ui::KeyPress> Window::take_keys() {
  std::vector<ui::KeyPress> out;
  out.swap(keys_);
  return out;
}

double Window::time() { return glfwGetTime(); }

std::vector<std::string> Window::take_dropped() {
  std::vector<std::string> out;
  out.swap(dropped_);
  return out;
}

void Window::FullScreen::set(GLFWwindow* window, bool want) {
  if (want == on) return;
  if (want) {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
    if (!mode) return;
    glfwGetWindowPos(window, &x, &y);
    glfwGetWindowSize(window, &w, &h);
    glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else {
    // Back to the size the window had before (never below the minimum).
    glfwSetWindowMonitor(window, nullptr, x, y, std::max(w, kMinWindowWidth), std::max(h, kMinWindowHeight), 0);
  }
  on = want;
}

void Window::set_full_screen(bool on) { full_screen_.set(window_, on); }

bool Window::use_style(float scale, ui::Theme theme) {
  if (scale == style_scale_ && theme == style_theme_) return false;
  if (scale != style_scale_) {
    // The font atlas is a texture of the OpenGL3 backend: it must be rebuilt with the fonts.
    ui::load_fonts(scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ui::apply_style(scale, theme);
  style_scale_ = scale;
  style_theme_ = theme;
  return true;
}

void Window::begin_frame(ui::AppState& app) {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ui::prepare_input(app);
  ImGui::NewFrame();
}

// The panels tile the window, so the background is the clear colour (ui::clear_colour()).
void Window::render(ui::Theme theme) {
  int w, h;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  const ImVec4 bg = ui::clear_colour(theme);
  glClearColor(bg.x, bg.y, bg.z, bg.w);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() { glfwSwapBuffers(window_); }

// Full screen or maximized is not a size to come back to: the size from before is saved instead.
WindowPlacement Window::placement() const {
  WindowPlacement p;
  p.maximized = glfwGetWindowAttrib(window_, GLFW_MAXIMIZED) == GLFW_TRUE;
  if (full_screen_.on) {
    p.has_size = true;
    p.width = full_screen_.w;
    p.height = full_screen_.h;
  } else if (!p.maximized) {
    p.has_size = true;
    glfwGetWindowSize(window_, &p.width, &p.height);
  }
  return p;
}

}  // namespace flashstep
