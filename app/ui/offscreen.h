// Off-screen rendering: the whole app (or one named panel) drawn into a framebuffer object of
// W·S × H·S pixels and read back as RGBA, for the rendering tests and the exporters
// (`flashstep shot` / `gif`). At scale S the fonts are rasterised at S times their size and
// every style size is multiplied by S, so a 2× picture is sharp, not an upscaled 1× one.
//
// Its OpenGL context is a gpu::HiddenContext (EGL needs no display; a hidden GLFW window is the
// fallback, --gl chooses), or the context of an existing window (the GUI exporting what it shows).
#pragma once

#include "app/ui/model/app_state.h"
#include "app/ui/panels/frame.h"
#include "gpu/context.h"

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;
struct ImGuiContext;

namespace flashstep::ui {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;  // top row first
};

// The smallest rectangle holding every pixel that differs from the top-left one (the
// background), grown by `margin` px and kept inside the image. The whole image when all is
// background.
struct PixelRect {
  int x = 0, y = 0, w = 0, h = 0;
};
PixelRect content_rect(const Image& img, int margin);
PixelRect united(const PixelRect& a, const PixelRect& b);
Image cropped(const Image& img, const PixelRect& r);

struct RenderOptions {
  int width = 1280, height = 800;  // the window size the picture stands for
  float scale = 1.0f;              // pixels per window unit: the image is W·S × H·S
  FrameOptions frame;              // whole window or one panel
  bool transparent = false;        // the background (the framebuffer clear) gets alpha 0
  int frames = 4;                  // frames drawn before the read-back, so layouts settle
};

class OffscreenRenderer {
 public:
  // host: a window whose OpenGL context is used (the GUI's); null: a context of our own, made
  // as `path` says.
  explicit OffscreenRenderer(GLFWwindow* host = nullptr, gpu::GlPath path = gpu::GlPath::auto_path);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  bool ok() const { return fatal_.empty(); }
  const std::string& error() const { return error_; }  // of the last call

  // Draws `app` as it stands (lesson, playhead, panels) and reads the pixels back. Restores the
  // caller's OpenGL and ImGui contexts. False (with error()) when the context is unusable.
  bool render(AppState& app, const RenderOptions& opt, Image& out);

  // The context of our own (null with a host window or when none could be made): the GPU
  // backend of `flashstep shot` runs in it, so a lesson on the GPU is drawn from a GPU run.
  gpu::HiddenContext* context() const { return context_.get(); }
 private:
  bool prepare(float scale, Theme theme, int w, int h);
  GLFWwindow* window_ = nullptr;  // the host
  std::unique_ptr<gpu::HiddenContext> context_;
  ImGuiContext* imgui_ = nullptr;
  bool backend_ = false;
  float font_scale_ = 0.0f;
  Theme theme_ = Theme::dark;
  unsigned fbo_ = 0, color_ = 0;
  int fbo_w_ = 0, fbo_h_ = 0;
  std::string fatal_;  // the renderer cannot work at all
  std::string error_;
};

// Opens lesson `id` in a fresh AppState at step k (negative: counted from the end, −1 = last)
// and renders it.
bool render_lesson(OffscreenRenderer& r, const std::string& id, int step, const RenderOptions& opt,
                   Image& out, std::string& error);

// Writes a PNG through a temporary file renamed into place, so a failure leaves no partial file.
bool write_png(const std::string& path, const Image& img, std::string& error);

// How many distinct colours an image has (up to `limit`): a blank or broken render has few.
int distinct_colours(const Image& img, int limit = 4096);
// Fraction of pixels that differ between two images of the same size.
double difference(const Image& a, const Image& b);

}  // namespace flashstep::ui
