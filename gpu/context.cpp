#include "gpu/context.h"

#include <epoxy/gl.h>
// epoxy provides the GL declarations; GLFW must not pull in another GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace flashstep::gpu {

static std::string gl_string(GLenum name) {
  const GLubyte* s = glGetString(name);
  return s ? reinterpret_cast<const char*>(s) : "";
}

GlInfo gl_info() {
  GlInfo info;
  info.renderer = gl_string(GL_RENDERER);
  info.version = gl_string(GL_VERSION);
  info.vendor = gl_string(GL_VENDOR);
  const int v = epoxy_gl_version();  // 10 * major + minor, also for contexts older than 3.0
  info.major = v / 10;
  info.minor = v % 10;
  return info;
}

std::string GlInfo::summary() const {
  return "OpenGL " + version + ", renderer " + renderer;
}

std::string needs_compute_message(const GlInfo& info) {
  return "GPU backend needs OpenGL 4.3 compute shaders; this context is " +
         std::to_string(info.major) + "." + std::to_string(info.minor) + " (renderer " +
         info.renderer + "). Use --backend cpu.";
}

static std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "unknown GLFW error";
}

std::unique_ptr<HiddenContext> HiddenContext::create(std::string& error, GLFWwindow* share) {
  const bool owns_glfw = share == nullptr;
  if (owns_glfw && !glfwInit()) {
    error = "GPU backend needs OpenGL 4.3 compute shaders, but no OpenGL context can be created (" +
            glfw_error() + "). Use --backend cpu.";
    return nullptr;
  }
  auto fail = [&](std::string message) -> std::unique_ptr<HiddenContext> {
    error = std::move(message);
    if (owns_glfw) glfwTerminate();
    return nullptr;
  };
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(16, 16, "flashstep gpu", nullptr, share);
  if (!window) {
    // No 4.3 context: open whatever the driver offers, to name its version and renderer.
    const std::string why = glfw_error();
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    GLFWwindow* any = glfwCreateWindow(16, 16, "flashstep gpu", nullptr, nullptr);
    if (!any)
      return fail("GPU backend needs OpenGL 4.3 compute shaders, but no OpenGL context can be created (" +
                  why + "). Use --backend cpu.");
    GLFWwindow* previous = glfwGetCurrentContext();
    glfwMakeContextCurrent(any);
    const GlInfo info = gl_info();
    glfwMakeContextCurrent(previous);
    glfwDestroyWindow(any);
    return fail(needs_compute_message(info));
  }
  glfwMakeContextCurrent(window);
  GlInfo info = gl_info();
  if (!info.has_compute()) {
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(window);
    return fail(needs_compute_message(info));
  }
  return std::unique_ptr<HiddenContext>(new HiddenContext(window, owns_glfw, std::move(info)));
}

HiddenContext::HiddenContext(GLFWwindow* window, bool owns_glfw, GlInfo info)
    : window_(window), owns_glfw_(owns_glfw), info_(std::move(info)) {}

HiddenContext::~HiddenContext() {
  if (glfwGetCurrentContext() == window_) glfwMakeContextCurrent(nullptr);
  glfwDestroyWindow(window_);
  if (owns_glfw_) glfwTerminate();
}

void HiddenContext::make_current() { glfwMakeContextCurrent(window_); }

}  // namespace flashstep::gpu
