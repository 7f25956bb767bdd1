// Heatmap cells as colours: one cell, a block of g × g cells (averaged so a picture of a
// large matrix keeps its structure), or a whole matrix as an RGBA image uploaded to an OpenGL
// texture. A matrix drawn as one textured quad costs the rasterizer two triangles instead of
// two per cell, which is what keeps N = 128 playing at 60 frames per second on llvmpipe.
#pragma once

#include "app/ui/views/view.h"
#include "app/ui/views/view_logic.h"

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace flashstep::ui {

// The cells of one buffer as a heatmap sees them (rows × cols on screen; transposed shows
// buffer cell (c, r) at (r, c)).
struct HeatSource {
  const std::vector<double>* values = nullptr;
  const std::vector<std::uint8_t>* defined = nullptr;
  int rows = 0, cols = 0;  // on screen
  int stride = 0;          // the buffer's columns
  bool transposed = false;
  ValueRange range;

  std::size_t index(int r, int c) const {
    return transposed ? static_cast<std::size_t>(c) * stride + r : static_cast<std::size_t>(r) * stride + c;
  }
};

// The colour of the block of cells [r, r + g) × [c, c + g): inf/nan if any cell is, else the
// mean of the finite cells, else −∞ grey if any is defined, else the undefined colour.
ImU32 block_fill(const Palette& pal, const HeatSource& src, int r, int c, int g);

// The whole source at one texel per g × g block: w = ⌈cols/g⌉, h = ⌈rows/g⌉ (heat_image_size).
void heat_image_size(const HeatSource& src, int g, int& w, int& h);
void heat_image(const Palette& pal, const HeatSource& src, int g, std::vector<ImU32>& out);

// True when ImGui renders with OpenGL in this context, so heat_texture() may be used.
bool gl_renderer();

// A w × h texture owned by the current ImGui window (kept in its state storage under `key`, so
// a new ImGui context starts with fresh textures). `content` identifies what the pixels show:
// paint() fills and uploads them only when it differs from the last upload.
ImTextureID heat_texture(const char* key, std::uint64_t content, int w, int h,
                         const std::function<void(std::vector<ImU32>&)>& paint);

}  // namespace flashstep::ui
