#include "app/ui/offscreen.h"

// epoxy before GLFW: it provides the GL declarations, GLFW only the window.
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/files.h"
#include "app/ui/style.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <unordered_set>
#include <unistd.h>

namespace flashstep::ui {

namespace {

// Makes a GL and an ImGui context current for a scope and puts the caller's back after.
struct ContextSwitch {
  gpu::SavedContext gl_before;
  ImGuiContext* imgui_before;
  ContextSwitch(GLFWwindow* host, gpu::HiddenContext* own, ImGuiContext* ctx)
      : imgui_before(ImGui::GetCurrentContext()) {
    if (own) own->make_current();
    else if (glfwGetCurrentContext() != host) glfwMakeContextCurrent(host);
    if (ctx) ImGui::SetCurrentContext(ctx);
  }
  ~ContextSwitch() { ImGui::SetCurrentContext(imgui_before); }
};

}  // namespace

OffscreenRenderer::OffscreenRenderer(GLFWwindow* host, gpu::GlPath path) {
  if (host) {
    window_ = host;
  } else {
    gpu::SavedContext keep;  // the caller's context stays current
    gpu::ContextOptions opt;
    opt.path = path;
    opt.compute = false;
    std::string error;
    context_ = gpu::HiddenContext::create(error, opt);
    if (!context_) {
      fatal_ = error_ = error;
      return;
    }
  }
  ImGuiContext* before = ImGui::GetCurrentContext();
  imgui_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(before);
}

OffscreenRenderer::~OffscreenRenderer() {
  if (window_ || context_) {
    ContextSwitch sw(window_, context_.get(), imgui_);
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (color_) glDeleteTextures(1, &color_);
    if (backend_) ImGui_ImplOpenGL3_Shutdown();
  }
  if (imgui_) {
    ImGuiContext* before = ImGui::GetCurrentContext();
    ImGui::DestroyContext(imgui_);
    if (before != imgui_) ImGui::SetCurrentContext(before);
  }
  if (context_) {
    gpu::SavedContext keep;
    context_.reset();
  }
}

bool OffscreenRenderer::prepare(float scale, Theme theme, int w, int h) {
  ImGuiIO& io = ImGui::GetIO();
  if (!backend_) {
    io.IniFilename = nullptr;
    io.LogFilename = nullptr;
    if (!ImGui_ImplOpenGL3_Init("#version 330")) {
      fatal_ = error_ = "the OpenGL 3.3 renderer of ImGui did not start";
      return false;
    }
    backend_ = true;
  }
  if (font_scale_ != scale) {
    load_fonts(scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    font_scale_ = scale;
    apply_style(scale, theme);
    theme_ = theme;
  }
  if (theme_ != theme) {
    apply_style(scale, theme);
    theme_ = theme;
  }
  if (fbo_w_ != w || fbo_h_ != h) {
    if (!fbo_) glGenFramebuffers(1, &fbo_);
    if (!color_) glGenTextures(1, &color_);
    glBindTexture(GL_TEXTURE_2D, color_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      error_ = "framebuffer of " + std::to_string(w) + "×" + std::to_string(h) + " is incomplete";
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      fbo_w_ = fbo_h_ = 0;
      return false;
    }
    fbo_w_ = w;
    fbo_h_ = h;
  }
  return true;
}

bool OffscreenRenderer::render(AppState& app, const RenderOptions& opt, Image& out) {
  if (!ok()) {
    error_ = fatal_;
    return false;
  }
  const float s = std::clamp(opt.scale, 0.25f, 8.0f);
  const int w = std::max(1, static_cast<int>(static_cast<float>(opt.width) * s + 0.5f));
  const int h = std::max(1, static_cast<int>(static_cast<float>(opt.height) * s + 0.5f));
  GLint max_size = 0;
  ContextSwitch sw(window_, context_.get(), imgui_);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (w > max_size || h > max_size) {
    // Only this picture fails; smaller ones still render.
    error_ = "image " + std::to_string(w) + "×" + std::to_string(h) + " is larger than this GPU's " +
             std::to_string(max_size) + " pixels";
    out = {};
    return false;
  }
  error_.clear();
  // The user's font scale is in window units, so it multiplies the picture's pixels per unit.
  const float ui = s * std::clamp(app.font_scale, 0.5f, 4.0f) * (app.presenting ? kPresentationScale : 1.0f);
  // prepare() binds our framebuffer when it (re)creates it: the caller's binding is read first
  // and put back on every path, so a host window never draws into the export's framebuffer.
  GLint fb_before = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fb_before);
  if (!prepare(ui, app.theme, w, h)) {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(fb_before));
    return false;
  }

  const float keep_scale = app.ui_scale;
  const bool keep_bg = app.background_allowed;
  app.ui_scale = ui;
  app.background_allowed = false;

  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  ImGuiIO& io = ImGui::GetIO();
  // The tab bar remembers its tab across AppStates; make it show this one's.
  app.tab_changed = true;
  for (int f = 0; f < std::max(opt.frames, 1); ++f) {
    io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = 1.0f / 60.0f;
    // No mouse: nothing hovered, no tooltip in the picture.
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    app.tick(0.0);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    FrameOptions fo = opt.frame;
    fo.keyboard = false;
    fo.picture = true;
    draw_frame(app, fo);
    ImGui::Render();
    glViewport(0, 0, w, h);
    const ImVec4 bg = opt.transparent ? ImVec4(0, 0, 0, 0) : clear_colour(app.theme);
    glClearColor(bg.x, bg.y, bg.z, bg.w);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  glFinish();
  out.width = w;
  out.height = h;
  out.rgba.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4, 0);
  std::vector<unsigned char> flipped(out.rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  // OpenGL's rows start at the bottom; images start at the top.
  const std::size_t row = static_cast<std::size_t>(w) * 4;
  for (int y = 0; y < h; ++y)
    std::copy_n(flipped.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(h - 1 - y) * row), row,
                out.rgba.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * row));
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(fb_before));

  app.ui_scale = keep_scale;
  app.background_allowed = keep_bg;
  return true;
}

bool render_lesson(OffscreenRenderer& r, const std::string& id, int step, const RenderOptions& opt,
                   Image& out, std::string& error) {
  AppState app;
  app.background_allowed = false;
  if (!app.open_lesson(id)) {
    error = "no lesson '" + id + "'";
    return false;
  }
  const int n = app.timeline.count();
  app.seek(step < 0 ? n + step : step);
  if (!r.render(app, opt, out)) {
    error = r.error();
    return false;
  }
  return true;
}

bool write_png(const std::string& path, const Image& img, std::string& error) {
  if (img.width <= 0 || img.height <= 0 || img.rgba.size() != static_cast<std::size_t>(img.width) * img.height * 4) {
    error = path + ": nothing to write (empty image)";
    return false;
  }
  // Encoded in memory, then written through write_file_atomic(), whose message names the
  // system's reason (a name too long, no space, no permission, no such folder).
  std::string png;
  auto append = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, img.width, img.height, 4, img.rgba.data(), img.width * 4)) {
    error = path + ": the PNG could not be encoded";
    return false;
  }
  error = write_file_atomic(path, png);
  return error.empty();
}

int distinct_colours(const Image& img, int limit) {
  std::unordered_set<std::uint32_t> seen;
  const std::size_t n = img.rgba.size() / 4;
  for (std::size_t i = 0; i < n && static_cast<int>(seen.size()) < limit; ++i) {
    const unsigned char* p = &img.rgba[i * 4];
    seen.insert(static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
                static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24);
  }
  return static_cast<int>(seen.size());
}

double difference(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size()) return 1.0;
  const std::size_t n = a.rgba.size() / 4;
  if (n == 0) return 0.0;
  std::size_t diff = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::equal(a.rgba.begin() + static_cast<std::ptrdiff_t>(i * 4),
                    a.rgba.begin() + static_cast<std::ptrdiff_t>(i * 4 + 4),
                    b.rgba.begin() + static_cast<std::ptrdiff_t>(i * 4)))
      ++diff;
  return static_cast<double>(diff) / static_cast<double>(n);
}

PixelRect content_rect(const Image& img, int margin) {
  if (img.width <= 0 || img.height <= 0) return {};
  const auto at = [&](int x, int y) {
    return img.rgba.data() + (static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) +
                              static_cast<std::size_t>(x)) * 4;
  };
  const unsigned char* bg = at(0, 0);
  int x0 = img.width, y0 = img.height, x1 = -1, y1 = -1;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      if (!std::equal(bg, bg + 4, at(x, y))) {
        x0 = std::min(x0, x), x1 = std::max(x1, x);
        y0 = std::min(y0, y), y1 = std::max(y1, y);
      }
  if (x1 < 0) return {0, 0, img.width, img.height};
  x0 = std::max(0, x0 - margin), y0 = std::max(0, y0 - margin);
  x1 = std::min(img.width - 1, x1 + margin), y1 = std::min(img.height - 1, y1 + margin);
  return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

PixelRect united(const PixelRect& a, const PixelRect& b) {
  if (a.w <= 0 || a.h <= 0) return b;
  if (b.w <= 0 || b.h <= 0) return a;
  const int x0 = std::min(a.x, b.x), y0 = std::min(a.y, b.y);
  const int x1 = std::max(a.x + a.w, b.x + b.w), y1 = std::max(a.y + a.h, b.y + b.h);
  return {x0, y0, x1 - x0, y1 - y0};
}

Image cropped(const Image& img, const PixelRect& r) {
  Image out;
  out.width = r.w;
  out.height = r.h;
  out.rgba.resize(static_cast<std::size_t>(r.w) * static_cast<std::size_t>(r.h) * 4);
  const std::size_t row = static_cast<std::size_t>(r.w) * 4;
  for (int y = 0; y < r.h; ++y)
    std::copy_n(img.rgba.begin() + static_cast<std::ptrdiff_t>(
                                       (static_cast<std::size_t>(r.y + y) * static_cast<std::size_t>(img.width) +
                                        static_cast<std::size_t>(r.x)) * 4),
                row, out.rgba.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * row));
  return out;
}

}  // namespace flashstep::ui
