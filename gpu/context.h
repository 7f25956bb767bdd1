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

struct GlInfo {
  std::string renderer, version, vendor;  // the driver's strings
  int major = 0, minor = 0;
  bool has_compute() const { return major > 4 || (major == 4 && minor >= 3); }
  std::string summary() const;  // "OpenGL 4.5 (Core Profile) Mesa 22.3.6, renderer llvmpipe (...)"
};

// The current context's strings. Needs a current context.
GlInfo gl_info();

// The one-line refusal when `info` has no compute shaders, naming its version and renderer.
std::string needs_compute_message(const GlInfo& info);

// An invisible window whose OpenGL >= 4.3 core context is current on the creating thread for the
// object's lifetime. Create it on the main thread (GLFW's rule for windows); make_current() then
// moves the context to the thread that records.
class HiddenContext {
 public:
  // nullptr and `error` set to one line when there is no display or no GL 4.3 ("GPU backend needs
  // OpenGL 4.3 compute shaders; this context is 3.3 (renderer X). Use --backend cpu.").
  // With `share`, GLFW belongs to the caller (the app's window) and the new context shares its
  // objects; otherwise this object initialises GLFW and terminates it when destroyed.
  static std::unique_ptr<HiddenContext> create(std::string& error, GLFWwindow* share = nullptr);
  ~HiddenContext();
  HiddenContext(const HiddenContext&) = delete;
  HiddenContext& operator=(const HiddenContext&) = delete;

  void make_current();
  const GlInfo& info() const { return info_; }

 private:
  HiddenContext(GLFWwindow* window, bool owns_glfw, GlInfo info);
  GLFWwindow* window_;
  bool owns_glfw_;
  GlInfo info_;
};

}  // namespace flashstep::gpu
