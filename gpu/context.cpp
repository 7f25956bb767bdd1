#include "gpu/context.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
// epoxy provides the GL and EGL declarations; GLFW must not pull in another GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <map>
#include <mutex>

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

bool has_current_context() {
  if (epoxy_has_egl() && eglGetCurrentContext() != EGL_NO_CONTEXT) return true;
  return glfwGetCurrentContext() != nullptr;
}

bool parse_gl_path(const std::string& text, GlPath& out) {
  if (text == "auto") out = GlPath::auto_path;
  else if (text == "egl") out = GlPath::egl;
  else if (text == "glfw") out = GlPath::glfw;
  else return false;
  return true;
}

// GLFW is one per process and glfwTerminate() is not counted either: it destroys every GLFW
// window and unloads the driver, so a hidden context that terminated it would pull the context
// from under the app's window or a GPU worker still using it (whose next GL call then jumps into
// unloaded code). Its users are counted, and the last one terminates it.
namespace {
std::mutex g_glfw_mutex;
int g_glfw_users = 0;
}  // namespace

bool acquire_glfw() {
  std::lock_guard<std::mutex> lock(g_glfw_mutex);
  if (!glfwInit()) return false;
  ++g_glfw_users;
  return true;
}

void release_glfw() {
  std::lock_guard<std::mutex> lock(g_glfw_mutex);
  if (g_glfw_users > 0 && --g_glfw_users > 0) return;
  glfwTerminate();
}

namespace {

// An EGL display is one per device and process, and eglTerminate() is not counted: the second of
// two contexts on a device (the GPU engine's and the off-screen renderer's) would lose its display
// when the first went. So the contexts on each display are counted here.
std::mutex g_displays_mutex;
std::map<EGLDisplay, int> g_display_users;

void display_used(EGLDisplay d) {
  std::lock_guard<std::mutex> lock(g_displays_mutex);
  ++g_display_users[d];
}

// eglTerminate() unless another context still uses `d`.
void display_unused(EGLDisplay d) {
  std::lock_guard<std::mutex> lock(g_displays_mutex);
  auto it = g_display_users.find(d);
  if (it != g_display_users.end() && --it->second > 0) return;
  if (it != g_display_users.end()) g_display_users.erase(it);
  eglTerminate(d);
}

}  // namespace

struct HiddenContext::Egl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  ~Egl() {
    if (display == EGL_NO_DISPLAY) return;
    if (eglGetCurrentContext() == context) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context != EGL_NO_CONTEXT) eglDestroyContext(display, context);
    display_unused(display);
  }
};

namespace {

// A 4.3 core context on `display`, current without a surface; EGL_NO_CONTEXT (and `why`) when
// the display cannot give one.
EGLContext egl_context(EGLDisplay display, std::string& why, bool compute) {
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) {
    why = "eglInitialize failed";
    return EGL_NO_CONTEXT;
  }
  display_used(display);
  if (!epoxy_has_egl_extension(display, "EGL_KHR_surfaceless_context")) {
    why = "no EGL_KHR_surfaceless_context";
    display_unused(display);
    return EGL_NO_CONTEXT;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    why = "no desktop OpenGL through EGL";
    display_unused(display);
    return EGL_NO_CONTEXT;
  }
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!epoxy_has_egl_extension(display, "EGL_KHR_no_config_context")) {
    const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLint n = 0;
    if (!eglChooseConfig(display, want, &config, 1, &n) || n < 1) {
      why = "no EGL config for desktop OpenGL";
      display_unused(display);
      return EGL_NO_CONTEXT;
    }
  }
  auto core = [&](EGLint major, EGLint minor) {
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    return eglCreateContext(display, config, EGL_NO_CONTEXT, attrs);
  };
  EGLContext context = core(4, 3);
  // Drawing alone (ImGui's OpenGL 3 renderer) makes do with 3.3.
  if (context == EGL_NO_CONTEXT && !compute) context = core(3, 3);
  if (context == EGL_NO_CONTEXT) {
    // Whatever the driver offers instead, to name its version and renderer.
    why = "no OpenGL 4.3 core context";
    const EGLint none[] = {EGL_NONE};
    EGLContext any = eglCreateContext(display, config, EGL_NO_CONTEXT, none);
    if (any != EGL_NO_CONTEXT) {
      if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, any)) {
        why = needs_compute_message(gl_info());
        eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      }
      eglDestroyContext(display, any);
    }
    display_unused(display);
    return EGL_NO_CONTEXT;
  }
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    why = "the context cannot be made current without a surface";
    eglDestroyContext(display, context);
    display_unused(display);
    return EGL_NO_CONTEXT;
  }
  return context;
}

}  // namespace

std::unique_ptr<HiddenContext> HiddenContext::create_egl(std::string& error, bool compute) {
  // libEGL itself may be missing (a bare GPU server without glvnd): epoxy would abort on the
  // first call, so its presence is asked first.
  if (!epoxy_has_egl()) {
    error = "no EGL library (libEGL.so.1)";
    return nullptr;
  }
  std::string why;
  auto made = [&](EGLDisplay display, const char* path) -> std::unique_ptr<HiddenContext> {
    if (display == EGL_NO_DISPLAY) return nullptr;
    EGLContext context = egl_context(display, why, compute);
    if (context == EGL_NO_CONTEXT) return nullptr;
    GlInfo info = gl_info();
    info.path = path;
    auto h = std::unique_ptr<HiddenContext>(new HiddenContext(nullptr, false, std::move(info)));
    h->egl_ = std::make_unique<Egl>();
    h->egl_->display = display;
    h->egl_->context = context;
    return h;
  };
  std::unique_ptr<HiddenContext> h;
  // The device platform: every GPU (and Mesa's software device) without any window system.
  if (epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_device_enumeration") &&
      epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_platform_device")) {
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (eglQueryDevicesEXT(16, devices, &n))
      for (EGLint i = 0; i < n && !h; ++i)
        h = made(eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr), "egl-device");
  }
  if (!h && epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
    h = made(eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
             "egl-surfaceless");
  if (h && compute && !h->info_.has_compute()) {
    error = needs_compute_message(h->info_);
    return nullptr;
  }
  if (!h)
    error = why.rfind("GPU backend", 0) == 0
                ? why
                : "no EGL device or surfaceless display gave an OpenGL 4.3 context" + (why.empty() ? "" : " (" + why + ")");
  return h;
}

static std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "unknown GLFW error";
}

std::unique_ptr<HiddenContext> HiddenContext::create(std::string& error, GLFWwindow* share, GlPath path) {
  ContextOptions opt;
  opt.share = share;
  opt.path = path;
  return create(error, opt);
}

std::unique_ptr<HiddenContext> HiddenContext::create(std::string& error, const ContextOptions& opt) {
  if (opt.share || opt.path == GlPath::glfw) return create_glfw(error, opt.share, opt.compute);
  std::string egl_error;
  if (auto h = create_egl(egl_error, opt.compute)) return h;
  const char* what = opt.compute ? "GPU backend needs OpenGL 4.3 compute shaders" : "drawing off-screen needs OpenGL 3.3";
  if (opt.path == GlPath::egl) {
    error = egl_error.rfind("GPU backend", 0) == 0
                ? egl_error
                : std::string(what) + ", but --gl egl found none: " + egl_error + "." +
                      (opt.compute ? " Use --gl glfw (a display) or --backend cpu." : " Use --gl glfw (a display).");
    return nullptr;
  }
  std::string glfw_error_text;
  if (auto h = create_glfw(glfw_error_text, nullptr, opt.compute)) return h;
  // The more telling of the two: a driver's version beats "no display".
  error = egl_error.rfind("GPU backend", 0) == 0 ? egl_error : glfw_error_text + " (EGL: " + egl_error + ")";
  return nullptr;
}

std::unique_ptr<HiddenContext> HiddenContext::create_glfw(std::string& error, GLFWwindow* share, bool compute) {
  const bool owns_glfw = share == nullptr;
  const std::string none = compute ? "GPU backend needs OpenGL 4.3 compute shaders, but no OpenGL context can be created ("
                                   : "no OpenGL context for drawing off-screen (";
  const std::string advice = compute ? "). Use --backend cpu." : ")";
  if (owns_glfw && !acquire_glfw()) {
    error = none + glfw_error() + advice;
    return nullptr;
  }
  auto fail = [&](std::string message) -> std::unique_ptr<HiddenContext> {
    error = std::move(message);
    if (owns_glfw) release_glfw();
    return nullptr;
  };
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(16, 16, "flashstep gpu", nullptr, share);
  if (!window && !compute) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window = glfwCreateWindow(16, 16, "flashstep gpu", nullptr, share);
  }
  if (!window) {
    // No 4.3 context: open whatever the driver offers, to name its version and renderer.
    const std::string why = glfw_error();
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    GLFWwindow* any = glfwCreateWindow(16, 16, "flashstep gpu", nullptr, nullptr);
    if (!any)
      return fail(none + why + advice);
    GLFWwindow* previous = glfwGetCurrentContext();
    glfwMakeContextCurrent(any);
    const GlInfo info = gl_info();
    glfwMakeContextCurrent(previous);
    glfwDestroyWindow(any);
    return fail(needs_compute_message(info));
  }
  glfwMakeContextCurrent(window);
  GlInfo info = gl_info();
  if (compute && !info.has_compute()) {
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(window);
    return fail(needs_compute_message(info));
  }
  info.path = "glfw";
  return std::unique_ptr<HiddenContext>(new HiddenContext(window, owns_glfw, std::move(info)));
}

HiddenContext::HiddenContext(GLFWwindow* window, bool owns_glfw, GlInfo info)
    : window_(window), owns_glfw_(owns_glfw), info_(std::move(info)) {}

HiddenContext::~HiddenContext() {
  if (egl_) {
    egl_.reset();
    return;
  }
  if (glfwGetCurrentContext() == window_) glfwMakeContextCurrent(nullptr);
  glfwDestroyWindow(window_);
  if (owns_glfw_) release_glfw();
}

void HiddenContext::make_current() {
  if (egl_) eglMakeCurrent(egl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_->context);
  else glfwMakeContextCurrent(window_);
}

void HiddenContext::release() {
  if (egl_) eglMakeCurrent(egl_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  else glfwMakeContextCurrent(nullptr);
}

SavedContext::SavedContext() {
  if (epoxy_has_egl() && eglGetCurrentContext() != EGL_NO_CONTEXT) {
    egl_display_ = eglGetCurrentDisplay();
    egl_draw_ = eglGetCurrentSurface(EGL_DRAW);
    egl_read_ = eglGetCurrentSurface(EGL_READ);
    egl_context_ = eglGetCurrentContext();
  } else {
    glfw_ = glfwGetCurrentContext();
  }
}

SavedContext::~SavedContext() {
  if (egl_context_) {
    eglMakeCurrent(egl_display_, egl_draw_, egl_read_, egl_context_);
    return;
  }
  if (epoxy_has_egl() && eglGetCurrentContext() != EGL_NO_CONTEXT)
    eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (glfwGetCurrentContext() != glfw_) glfwMakeContextCurrent(glfw_);
}

}  // namespace flashstep::gpu
