// The OpenGL side the GPU engine needs: what the current context is, and a hidden window that
// provides one when nothing else does (the command line, the tests, the benchmark).
//
// No GL or GLFW header here, so the app can include it next to its own GL loader.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

struct GLFWwindow;

namespace flashstep::gpu {

// A failure of the GPU backend: a shader that does not compile (the message names the shader and
// carries the driver's log), a buffer the driver cannot allocate, no usable context.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Something this GPU backend cannot run as asked (fp64, a tile larger than shared memory, a
// trace larger than the largest storage buffer). The message says what to change; the command
// line reports it as bad input.
class Unsupported : public GpuError {
 public:
  using GpuError::GpuError;
};

// How a context without the app's window is made (--gl): auto tries the EGL device platform,
// then EGL surfaceless (Mesa), then a hidden GLFW window; egl tries only the first two, glfw
// only the last. EGL needs no display: a GPU server with no X, or a CI machine without Xvfb.
enum class GlPath { auto_path, egl, glfw };
// "auto", "egl", "glfw" ↔ GlPath; nullopt-like false for anything else.
bool parse_gl_path(const std::string& text, GlPath& out);

struct GlInfo {
  std::string renderer, version, vendor;  // the driver's strings
  std::string path;  // how the context was made: "egl-device", "egl-surfaceless", "glfw"; "" unknown
  int major = 0, minor = 0;
  bool has_compute() const { return major > 4 || (major == 4 && minor >= 3); }
  std::string summary() const;  // "OpenGL 4.5 (Core Profile) Mesa 22.3.6, renderer llvmpipe (...)"
};

// The current context's strings. Needs a current context.
GlInfo gl_info();
// Whether this thread has a current OpenGL context (GLFW's or EGL's).
bool has_current_context();

// The one-line refusal when `info` has no compute shaders, naming its version and renderer.
std::string needs_compute_message(const GlInfo& info);

// GLFW for one more user in this process (the app's window, a hidden context): glfwInit(), and
// false when it fails. Every user that got true calls release_glfw() once, after destroying its
// windows; the last one terminates GLFW, which destroys every window left and unloads the driver.
// Any thread that may create windows (GLFW's rule: the main thread).
bool acquire_glfw();
void release_glfw();

// What a HiddenContext is made for.
struct ContextOptions {
  GlPath path = GlPath::auto_path;
  GLFWwindow* share = nullptr;  // a hidden GLFW window sharing this window's objects (path ignored)
  // true: OpenGL 4.3 with compute shaders, or nothing (the GPU engine). false: drawing only (the
  // off-screen renderer), 4.3 where the driver has it, else 3.3 core.
  bool compute = true;
};

// The thread's current context, EGL's or GLFW's, saved when constructed and made current again
// when destroyed (or none, when none was).
class SavedContext {
 public:
  SavedContext();
  ~SavedContext();
  SavedContext(const SavedContext&) = delete;
  SavedContext& operator=(const SavedContext&) = delete;

 private:
  void* egl_display_ = nullptr;
  void* egl_draw_ = nullptr;
  void* egl_read_ = nullptr;
  void* egl_context_ = nullptr;
  GLFWwindow* glfw_ = nullptr;
};

// An OpenGL core context with no window on screen, current on the creating thread for the
// object's lifetime: an EGL context without a surface, or an invisible GLFW window. Create it on
// the main thread (GLFW's rule for windows); make_current() then moves the context to the thread
// that records, release() lets it go there.
class HiddenContext {
 public:
  // nullptr and `error` set to one line when no path gives a GL 4.3 context ("GPU backend needs
  // OpenGL 4.3 compute shaders; this context is 3.3 (renderer X). Use --backend cpu.").
  // With `share`, the context is a hidden GLFW window sharing the caller's objects (the app's
  // window; GLFW belongs to the caller); otherwise `path` chooses, and a GLFW path acquires
  // GLFW (acquire_glfw) and releases it when destroyed.
  static std::unique_ptr<HiddenContext> create(std::string& error, GLFWwindow* share = nullptr,
                                               GlPath path = GlPath::auto_path);
  static std::unique_ptr<HiddenContext> create(std::string& error, GlPath path) {
    return create(error, nullptr, path);
  }
  static std::unique_ptr<HiddenContext> create(std::string& error, const ContextOptions& opt);
  ~HiddenContext();
  HiddenContext(const HiddenContext&) = delete;
  HiddenContext& operator=(const HiddenContext&) = delete;

  void make_current();
  // Leaves this thread with no current context (this one or any other).
  void release();
  const GlInfo& info() const { return info_; }

 private:
  HiddenContext(GLFWwindow* window, bool owns_glfw, GlInfo info);
  struct Egl;  // EGL's display and context, when the context is EGL's
  static std::unique_ptr<HiddenContext> create_egl(std::string& error, bool compute);
  static std::unique_ptr<HiddenContext> create_glfw(std::string& error, GLFWwindow* share, bool compute);
  GLFWwindow* window_ = nullptr;
  bool owns_glfw_ = false;
  std::unique_ptr<Egl> egl_;
  GlInfo info_;
};

}  // namespace flashstep::gpu
